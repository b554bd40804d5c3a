package sweep

import "encoding/json"

// SchemaID is the sweep schema's $id.
const SchemaID = "https://lfsim.dev/schema/sweep.schema.json"

// JSONSchema returns the JSON Schema (draft 2020-12) of sweep files, as
// Load reads them: base (a scenario file or an example's name, or a list
// of them to compare), vary (a mapping of dotted paths to lists of
// values; the values' own checks need the base, which Load does; not
// required when base is a list) and repeat (1 to 100000).
func JSONSchema() []byte {
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "lfsim sweep",
		"description":          "A sweep for lfsim: a base scenario run over every combination of some settings' values (docs/SWEEPS.md).",
		"type":                 "object",
		"required":             []string{"base"},
		"additionalProperties": false,
		// vary may be left out only when base is a list.
		"if":   map[string]any{"properties": map[string]any{"base": map[string]any{"type": "string"}}},
		"then": map[string]any{"required": []string{"vary"}},
		"properties": map[string]any{
			"base": map[string]any{"description": "a scenario file (relative to this one) or an example's name; a list of them is compared, as the first varied setting",
				"oneOf": []any{
					map[string]any{"type": "string", "minLength": 1},
					map[string]any{"type": "array", "minItems": 1, "uniqueItems": true, "items": map[string]any{"type": "string", "minLength": 1}},
				}},
			"vary": map[string]any{"type": "object", "minProperties": 1,
				"description":          "dotted paths of the scenario (traffic[0].poisson.load), each with its list of values",
				"propertyNames":        map[string]any{"pattern": `^[A-Za-z_][A-Za-z0-9_-]*(\[[0-9]+\]|\.[A-Za-z0-9_-]+)*$`},
				"additionalProperties": map[string]any{"type": "array", "minItems": 1}},
			"repeat": map[string]any{"type": "integer", "minimum": 1, "maximum": 100000, "description": "seeds per point"},
		},
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
