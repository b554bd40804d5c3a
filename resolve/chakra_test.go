package resolve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChakraErrors: a chakra generator whose trace is wrong for the
// scenario is an error at the trace key's line and column, naming the
// trace's file (and node) and what was expected.
func TestChakraErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "groups.json"), []byte(`{"1": [0, 9]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cut.0.et"), []byte{0x07, 0x0a, 0x05, '0', '.', '0'}, 0o644); err != nil {
		t.Fatal(err)
	}
	mb, err := filepath.Abs("../scenarios/examples/chakra-microbenchmarks")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, traffic, want string
	}{
		{"fewer hosts than rank files", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1]}",
			"t.yaml:4:21: traffic[0].chakra.trace: " + mb + "/all_reduce/4npus_1MB/all_reduce.2.et: a rank file beyond the 2 ranks given (the hosts): expected one file per rank"},
		{"more hosts than rank files", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce}",
			"t.yaml:4:21: traffic[0].chakra.trace: " + mb + "/all_reduce/4npus_1MB/all_reduce.4.et: no such file (the trace has ranks 0 to 3): expected one file per rank"},
		{"no trace", "{trace: nosuch}",
			"t.yaml:4:21: traffic[0].chakra.trace: nosuch.0.et: no such file"},
		{"a truncated trace", "{trace: cut, ranks: [h0]}",
			"t.yaml:4:21: traffic[0].chakra.trace: cut.0.et: byte 0: the GlobalMetadata: its length prefix says 7 bytes but 5 are left: the file is truncated"},
		{"a bad communicator-group file", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1, h2, h3], comm_group: groups.json}",
			"groups.json: group \"1\": rank 9: expected a rank from 0 to 3 (the trace's 4 ranks)"},
		{"an unknown host", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1, h2, hx]}",
			"traffic[0].chakra.ranks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "topology: {kind: star, hosts: 6, link: {rate: 100Gbps, delay: 1us}}\nstop: {at: 1ms}\ntraffic:\n  - chakra: " + c.traffic + "\n"
			_, err := Parse(filepath.Join(dir, "t.yaml"), []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n%v\nwant it to hold\n%s", err, c.want)
			}
		})
	}
}
