package scenario

import "testing"

func TestSuggest(t *testing.T) {
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"buffr", []string{"buffer", "latency"}, "buffer"},
		{"fat-tre", topologyKinds(), "fat-tree"},
		{"MTU", []string{"mtu"}, "mtu"},
		{"h88", []string{"h0", "h1", "h8"}, "h8"},
		{"h7", []string{"h0", "h1"}, ""}, // another host, not a typo
		{"s1", []string{"s0", "h1"}, ""}, // likewise
		{"x", []string{"a", "b"}, ""},    // too short to guess
		{"leaf", []string{"leaves"}, ""}, // two edits in a short word
		{"host", []string{"hosts_per_leaf", "hosts"}, "hosts"},
		{"incas", []string{"flow", "incast"}, "incast"},
	} {
		got, _ := Suggest(c.word, c.cands)
		if got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := ListNames([]string{"s0", "s1", "h0", "h1", "h2", "h3", "a", "b"}); got != "s0, s1, h0..h3, a, b" {
		t.Errorf("listNames: %s", got)
	}
}

func TestDiagnosticFormat(t *testing.T) {
	for _, c := range []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{"f.yaml", 3, 7, "bad"}, "f.yaml:3:7: bad"},
		{Diagnostic{"f.yaml", 3, 0, "bad"}, "f.yaml:3: bad"},
		{Diagnostic{"f.yaml", 0, 0, "bad"}, "f.yaml: bad"},
	} {
		if got := c.d.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	if got := (Errors{{"a", 1, 2, "x"}, {"a", 3, 4, "y"}}).Error(); got != "a:1:2: x\na:3:4: y" {
		t.Errorf("%q", got)
	}
}
