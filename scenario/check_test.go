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

// TestSizeValues: a size key takes TiB and TB (switch.buffer: 1TiB is
// 2^40 bytes), where 1TiB got "not a whole number of bytes"; one past
// what an int64 holds is too large, with the maximum, at its line and
// column.
func TestSizeValues(t *testing.T) {
	for _, c := range []struct {
		buffer string
		want   int64
		err    string
	}{
		{"1TiB", 1 << 40, ""},
		{"2TB", 2e12, ""},
		{"64MiB", 64 << 20, ""},
		{"9000000TiB", 0, `t.yaml:1:18: switch.buffer: size "9000000TiB" is too large; a size is at most 9223372036854775807 bytes`},
		{"1TiBs", 0, `t.yaml:1:18: switch.buffer: size "1TiBs" is not a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB = 1024-based; KB, MB, GB, TB = 1000-based)`},
	} {
		src := "switch: {buffer: " + c.buffer + "}\ntopology: {kind: star, hosts: 2}\ntraffic: [{flow: {from: h0, to: h1, size: 1KiB}}]\n"
		root, err := ParseYAML("t.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f, d := Decode("t.yaml", root, 1000)
		if c.err != "" {
			if err := d.Err(); err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("buffer %s: got %v, want %q", c.buffer, err, c.err)
			}
			continue
		}
		if err := d.Err(); err != nil || int64(f.Switch.Buffer.V) != c.want {
			t.Errorf("buffer %s: %d, %v; want %d", c.buffer, f.Switch.Buffer.V, err, c.want)
		}
	}
}
