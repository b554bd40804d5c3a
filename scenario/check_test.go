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
	root, _ := ParseYAML("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic: [{flow: {from: h0, to: h1, size: 1KiB}}]\nname: ok-1\nstop: {at: 0, when: flows-done}\n"))
	if _, d := Decode("t.yaml", root, 1000); d.ErrorCount() != 0 {
		t.Errorf("valid values: %v", d.Err())
	}
}
