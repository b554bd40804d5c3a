package scenarios

import (
	"strings"
	"testing"
)

// TestReproduceFiles: a reproduction's scenario loads by name as
// reproduce/NAME/SCENARIO, as an example does; a wrong name says what
// there is.
func TestReproduceFiles(t *testing.T) {
	file, data, err := ExampleFile("reproduce/dctcp-queue/n2")
	if err != nil || file != "reproduce/dctcp-queue/n2.yaml" || !strings.Contains(string(data), "name: n2") {
		t.Errorf("reproduce/dctcp-queue/n2: %s, %v", file, err)
	}
	if _, err := ExampleSource("reproduce/dctcp-queue/n2.yaml"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct{ name, want string }{
		{"reproduce/dctcp-queu/n2", `reproduce/dctcp-queu/n2.yaml: no reproduction named dctcp-queu (did you mean dctcp-queue?); they are `},
		{"reproduce/dctcp-queue/n3", `reproduce/dctcp-queue/n3.yaml: reproduction dctcp-queue has no file n3.yaml; its files are n2.yaml, n32.yaml, n8.yaml, published.yaml, sweep.yaml`},
		{"reproduce/dctcp-queue", `reproduce/dctcp-queue: a reproduction's scenario is named reproduce/NAME/SCENARIO`},
	} {
		if _, err := ExampleSource(c.name); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}
