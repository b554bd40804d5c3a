package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// A config_db.json read into a tree that keeps where each value starts,
// so that a message can name the line and column of what it is about.
// encoding/json gives no positions to decoded values; its streaming
// Decoder does give the offset after each token (InputOffset), and a
// value starts at the first byte after that offset that is not white
// space, a colon or a comma. Its SyntaxError's Offset is where reading
// stopped, which is one past the byte at fault.

// value is a JSON value: an object (keys and vals in the file's order), an
// array (vals), or a scalar (text: a string's value, a number's literal,
// true, false or null).
type value struct {
	kind  kind
	text  string
	keys  []string
	keyAt []int // where each key's string starts
	vals  []*value
	at    int // where the value starts, a byte offset
}

type kind uint8

const (
	kObject kind = iota
	kArray
	kString
	kNumber
	kBool
	kNull
)

func (k kind) String() string {
	return [...]string{"an object", "an array", "a string", "a number", "true or false", "null"}[k]
}

// maxDepth bounds nesting: a config_db.json is three levels deep (table,
// key, field), four with a list value.
const maxDepth = 32

// syntaxError is a JSON mistake at a byte offset.
type syntaxError struct {
	at  int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// parseJSON reads data as one JSON value. A syntax error is found first
// by json.Unmarshal, whose SyntaxError's offset is one past the byte at
// fault (the Decoder's tokens are not so consistent: a value's mistake
// can be reported at the key before it).
func parseJSON(data []byte) (*value, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at, msg := int(se.Offset)-1, se.Error()
			if msg == "unexpected end of JSON input" {
				at, msg = len(data), "the file ends inside a value"
			}
			return nil, &syntaxError{at: max(at, 0), msg: "invalid JSON: " + msg}
		}
		return nil, &syntaxError{at: 0, msg: "invalid JSON: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &parser{dec: dec, data: data}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &syntaxError{at: p.start(), msg: "more after the top-level object; a config_db.json is one object"}
		}
		return nil, p.wrap(err)
	}
	return v, nil
}

type parser struct {
	dec  *json.Decoder
	data []byte
}

// start is where the next token starts.
func (p *parser) start() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
			continue
		}
		break
	}
	return i
}

// wrap turns encoding/json's errors into syntaxErrors at their byte.
func (p *parser) wrap(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &syntaxError{at: max(int(se.Offset)-1, 0), msg: "invalid JSON: " + se.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &syntaxError{at: len(p.data), msg: "invalid JSON: the file ends inside a value"}
	}
	return &syntaxError{at: p.start(), msg: "invalid JSON: " + err.Error()}
}

func (p *parser) value(depth int) (*value, error) {
	at := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.wrap(err)
	}
	return p.from(tok, at, depth)
}

// from is the value that starts with token tok at at.
func (p *parser) from(tok json.Token, at, depth int) (*value, error) {
	if depth > maxDepth {
		return nil, &syntaxError{at: at, msg: fmt.Sprintf("nested more than %d deep; a config_db.json is table, key, field", maxDepth)}
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return p.object(at, depth)
		}
		if t == '[' {
			return p.array(at, depth)
		}
		return nil, &syntaxError{at: at, msg: fmt.Sprintf("invalid JSON: unexpected %q", rune(t))}
	case string:
		return &value{kind: kString, text: t, at: at}, nil
	case json.Number:
		return &value{kind: kNumber, text: string(t), at: at}, nil
	case bool:
		return &value{kind: kBool, text: fmt.Sprint(t), at: at}, nil
	case nil:
		return &value{kind: kNull, text: "null", at: at}, nil
	}
	return nil, &syntaxError{at: at, msg: fmt.Sprintf("invalid JSON: unexpected %v", tok)}
}

func (p *parser) object(at, depth int) (*value, error) {
	v := &value{kind: kObject, at: at}
	seen := map[string]int{}
	for p.dec.More() {
		kat := p.start()
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.wrap(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, &syntaxError{at: kat, msg: "invalid JSON: an object's key must be a string"}
		}
		if first, dup := seen[key]; dup {
			line, col := lineCol(p.data, first)
			return nil, &syntaxError{at: kat, msg: fmt.Sprintf("key %q is given twice in one object (first at line %d, column %d)", key, line, col)}
		}
		seen[key] = kat
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.keys, v.keyAt, v.vals = append(v.keys, key), append(v.keyAt, kat), append(v.vals, val)
	}
	if _, err := p.dec.Token(); err != nil { // the closing brace
		return nil, p.wrap(err)
	}
	return v, nil
}

func (p *parser) array(at, depth int) (*value, error) {
	v := &value{kind: kArray, at: at}
	for p.dec.More() {
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.vals = append(v.vals, val)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.wrap(err)
	}
	return v, nil
}

// lineCol is the 1-based line and column (in characters) of byte offset
// at in data.
func lineCol(data []byte, at int) (line, col int) {
	at = min(max(at, 0), len(data))
	line = 1 + bytes.Count(data[:at], []byte{'\n'})
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:at])
}
