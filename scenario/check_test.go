package scenario

import (
	"strings"
	"testing"
)

// TestChecksThatNeedOnlyTheFile: the format itself reports what needs no
// topology and no model default, at the value's line and column.
func TestChecksThatNeedOnlyTheFile(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: -x\n", "t.yaml:1:7: name: \"-x\" is not a valid name"},
		{"stop: {at: 1ms, when: [deadlock, deadlock]}\n", "t.yaml:1:34: stop.when: deadlock is listed twice"},
		{"stop: {at: 0}\n", "t.yaml:1:12: stop.at: 0 means no time limit, which needs a when: condition"},
		{"hca: {dcqcn: {dce_tcp_g: 1.5}}\n", "t.yaml:1:26: hca.dcqcn.dce_tcp_g: dce_tcp_g is a whole number of 1/1024ths from 0 to 1024"},
		{"hca: {dcqcn: {dce_tcp_g: 1025}}\n", "hca.dcqcn.dce_tcp_g: dce_tcp_g is a whole number"},
		{"hca: {dcqcn: {initial_alpha_value: 1025}}\n", "t.yaml:1:36: hca.dcqcn.initial_alpha_value: initial_alpha_value is in 1/1024ths, at most 1024, not 1025"},
		{"hca: {hpcc: {eta: 0}}\n", "t.yaml:1:19: hca.hpcc.eta: eta must be above 0"},
	} {
		root, err := ParseYAML("t.yaml", []byte(c.src))
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		_, d := Decode("t.yaml", root, 1000)
		err = d.Err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
	// And nothing where the values are right.
	root, _ := ParseYAML("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic: [{flow: {from: h0, to: h1, size: 1KiB}}]\nname: ok-1\nstop: {at: 0, when: flows-done}\nhca: {dcqcn: {dce_tcp_g: 1019, initial_alpha_value: 1024}, hpcc: {eta: 0.95}}\n"))
	if _, d := Decode("t.yaml", root, 1000); d.ErrorCount() != 0 {
		t.Errorf("valid values: %v", d.Err())
	}
}
