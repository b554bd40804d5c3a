package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseYAML parses one YAML document into a node tree; a syntax error
// becomes a Diagnostic at the line yaml.v3 reports.
func ParseYAML(file string, data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 is not known to panic; be sure
			root, err = nil, Errors{{File: file, Msg: fmt.Sprintf("invalid YAML: %v", r)}}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, Errors{yamlDiag(file, err)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, Errors{{File: file, Line: next.Line, Col: next.Column, Msg: "a second YAML document starts here; a scenario file holds one (remove the ---)"}}
	case !errors.Is(err, io.EOF):
		return nil, Errors{yamlDiag(file, err)}
	}
	return &doc, nil
}

// ParseMapping is ParseYAML for a file whose document is one mapping:
// its top node, or an error at 1:1 saying what the file holds (what,
// e.g. "a sweep file is a mapping: base:, vary: and repeat:") when it
// is empty or anything else.
func ParseMapping(file string, data []byte, what string) (*yaml.Node, error) {
	root, err := ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if root == nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: what}}
	}
	return root.Content[0], nil
}

func yamlDiag(file string, err error) Diagnostic {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Diagnostic{File: file, Line: line, Msg: "invalid YAML: " + m[2]}
	}
	return Diagnostic{File: file, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// DefaultName is the file's base name without its extension.
func DefaultName(file string) string {
	base := filepath.Base(file)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || name == "." || name == "<input>" || name == string(filepath.Separator) {
		return "scenario"
	}
	return name
}
