package sweep

import (
	"testing"

	"github.com/lfsim/lfsim/internal/schematest"
)

// TestSweepJSONSchema: SWEEPS.md's example validates against the sweep
// schema (a real validator, draft 2020-12), and what Load refuses for its
// shape the schema refuses too.
func TestSweepJSONSchema(t *testing.T) {
	s := schematest.Compile(t, SchemaID, JSONSchema())
	asJSON := func(src string) any { return schematest.YAML(t, []byte(src)) }
	good := `base: incast-8to1.yaml
vary:
  switch.ecn.kmin: [20KiB, 50KiB, 100KiB]
  hca.dcqcn.rpg_ai_rate: [5Mbps, 40Mbps]
  traffic[0].poisson.load: [30%, 50%]
repeat: 3
`
	if err := s.Validate(asJSON(good)); err != nil {
		t.Errorf("SWEEPS.md's example fails: %v", err)
	}
	for _, ok := range []string{
		"base: [a.yaml, b.yaml]\n",                                  // bases compared alone
		"base: [a.yaml, b.yaml]\nvary: {switch.ecn.kmin: [1KiB]}\n", // and with a setting
	} {
		if err := s.Validate(asJSON(ok)); err != nil {
			t.Errorf("the schema refuses\n%s: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"vary: {switch.ecn.kmin: [1KiB]}\n",             // no base
		"base: x.yaml\n",                                // no vary
		"base: x.yaml\nvary: {switch.ecn.kmin: []}\n",   // an empty list
		"base: x.yaml\nvary: {switch.ecn.kmin: 5KiB}\n", // not a list
		"base: x.yaml\nvary: {a: [1]}\nrepeat: 0\n",     // repeat below 1
		"base: x.yaml\nvary: {a: [1]}\nrepeats: 3\n",    // an unknown key
		"base: x.yaml\nvary: {\"switch..ecn\": [1]}\n",  // not a path
		"base: []\nvary: {a: [1]}\n",                    // no base in the list
		"base: [a.yaml, a.yaml]\n",                      // one twice
		"base: [a.yaml, b.yaml]\nvary: {}\n",            // an empty vary
	} {
		if err := s.Validate(asJSON(bad)); err == nil {
			t.Errorf("the schema accepts\n%s", bad)
		}
	}
}
