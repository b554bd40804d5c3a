package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/lfsim/lfsim/internal/schematest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// compiledSchema compiles JSONSchema() with a real JSON Schema validator.
func compiledSchema(t *testing.T) *jsonschema.Schema {
	return schematest.Compile(t, SchemaID, JSONSchema())
}

// TestJSONSchemaRejects: what the loader refuses for its shape, the
// schema refuses too (each case is checked against both).
func TestJSONSchemaRejects(t *testing.T) {
	s := compiledSchema(t)
	const ok = "topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n"
	if err := s.Validate(schematest.YAML(t, []byte(ok))); err != nil {
		t.Fatalf("a good file fails: %v", err)
	}
	// A fault's loss rate written as a YAML number is taken by the loader
	// (resolve's faults), so the schema takes it too.
	lossy := ok + "faults:\n  - {at: 0, link: [h0, s0], action: loss, rate: 1e-2}\n"
	if err := s.Validate(schematest.YAML(t, []byte(lossy))); err != nil {
		t.Errorf("a loss rate written as a number fails: %v", err)
	}
	several, err := os.ReadFile("../resolve/testdata/several-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, src string }{
		{"the loader's several-errors test file", string(several)},
		{"unknown top-level key", ok + "colour: blue\n"},
		{"unknown key in a block", "topology: {kind: star, hosts: 2}\nswitch: {bufer: 1MiB}\n"},
		{"missing topology", "traffic: []\n"},
		{"missing kind", "topology: {hosts: 2}\n"},
		{"unknown kind", "topology: {kind: torus, hosts: 2}\n"},
		{"a key of another kind", "topology: {kind: star, k: 4, hosts: 2}\n"},
		{"missing required key of the kind", "topology: {kind: fat-tree}\n"},
		{"enum", "topology: {kind: star, hosts: 2}\nhca: {cc: cubic}\n"},
		{"integer out of range", "topology: {kind: star, hosts: 2}\nhca: {priority: 9}\n"},
		{"oneof", "topology: {kind: star, hosts: 2}\nhca: {mtu: 1500}\n"},
		{"a size that is no size", "topology: {kind: star, hosts: 2}\nswitch: {buffer: lots}\n"},
		{"a time without a unit", "topology: {kind: star, hosts: 2}\nstop: {at: 10}\n"},
		{"a rate without a unit", "topology: {kind: star, hosts: 2, link: {rate: 100}}\n"},
		{"a fraction above one", "topology: {kind: star, hosts: 2}\nswitch: {ecn: {pmax: 2}}\n"},
		{"unknown generator", "topology: {kind: star, hosts: 2}\ntraffic:\n  - stream: {from: h0, to: h1, size: 1MiB}\n"},
		{"two generators in one item", "topology: {kind: star, hosts: 2}\ntraffic:\n  - {flow: {from: h0, to: h1, size: 1}, incast: {to: h1, from: [h0], size: 1}}\n"},
		{"a flow without size", "topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1}\n"},
		{"an unknown work completion status", "topology: {kind: star, hosts: 2}\nexpect: {work_completions: {ok: 1}}\n"},
		{"a link of three ends", "topology: {kind: explicit, hosts: [a, b], links: [[a, b, c]]}\n"},
		{"ecn as a word", "topology: {kind: star, hosts: 2}\nswitch: {ecn: on}\n"},
	} {
		if err := s.Validate(schematest.YAML(t, []byte(tc.src))); err == nil {
			t.Errorf("%s: the schema accepts\n%s", tc.name, tc.src)
		}
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(tc.src), &root); err != nil {
			t.Fatal(err)
		}
		if _, d := Decode("t.yaml", &root, 1<<20); d.Err() == nil {
			t.Errorf("%s: the loader accepts it (the case is no test of the schema)", tc.name)
		}
	}
}

// TestJSONSchemaCoversTheLoader: every schema struct the loader decodes
// under File is in the schema's $defs or inline, so a key added to the
// loader cannot be missing from the schema; and the committed
// scenario.schema.json (what editors read) is JSONSchema() now.
func TestJSONSchemaCoversTheLoader(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(JSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	for _, name := range []string{"HCAS", "SwitchS", "FlowS", "PerftestS", "RemoteMRS", "DCTCPS", "StarS", "ExplicitS", "FaultS", "observeS", "ExpectS", "IBS"} {
		if defs[name] == nil {
			t.Errorf("$defs has no %s", name)
		}
	}
	hca := defs["HCAS"].(map[string]any)["properties"].(map[string]any)
	for _, f := range schemaOf(reflect.TypeOf(HCAS{})).fields {
		if hca[f.name] == nil {
			t.Errorf("hca.%s is not in the schema", f.name)
		}
	}
	committed, err := os.ReadFile("../scenarios/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, JSONSchema()) {
		t.Error("scenarios/scenario.schema.json is out of date: run `lfsim schema > scenarios/scenario.schema.json`")
	}
}
