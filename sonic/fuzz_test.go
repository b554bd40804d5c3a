package sonic

import (
	"bytes"
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzRead: any bytes read without a panic; every finding at a line and
// column inside the file; settings only without errors, then the same on
// a second read and printed as YAML that parses. Seeds: the two-port file
// and testdata/fuzz/FuzzRead's (a port's minimal configuration, a broken
// one, tables of the wrong shapes).
func FuzzRead(f *testing.F) {
	if data, err := os.ReadFile("testdata/two-ports.json"); err == nil {
		f.Add(data, "")
		f.Add(data, "Ethernet4")
	}
	f.Fuzz(func(t *testing.T, data []byte, port string) {
		res := Read("f.json", data, port)
		lines := bytes.Count(data, []byte{'\n'}) + 1
		for _, d := range append(append([]Diag(nil), res.Errors...), res.Warnings...) {
			if d.Line < 1 || d.Line > lines || d.Col < 1 {
				t.Fatalf("%s: outside the file's %d lines", d.Format("f.json"), lines)
			}
		}
		if len(res.Errors) > 0 {
			if res.Switch != nil {
				t.Fatal("settings with errors")
			}
			return
		}
		text := Text(res)
		if again := Text(Read("f.json", data, port)); again != text {
			t.Fatalf("two reads differ:\n%s\n%s", text, again)
		}
		var v any
		if err := yaml.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("printed YAML does not parse: %v\n%s", err, text)
		}
	})
}
