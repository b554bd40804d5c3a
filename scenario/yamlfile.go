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
