// Package schematest compiles lfsim's JSON Schemas with a real validator
// (github.com/santhosh-tekuri/jsonschema, draft 2020-12) and turns YAML
// documents into what it validates, for the scenario and sweep packages'
// tests. Only tests import it; it imports nothing of lfsim's.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// Compile compiles schema, whose $id is id.
func Compile(t testing.TB, id string, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// YAML is a YAML document as the validator takes JSON: through yaml.v3's
// generic decoding (merge keys resolved) and JSON.
func YAML(t testing.TB, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(stringKeys(v))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// stringKeys gives every mapping string keys, as an editor's YAML
// language server reads a file against a JSON Schema (whose object keys
// are strings): {26: 3} is {"26": 3}.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e)
		}
		return x
	}
	return v
}
