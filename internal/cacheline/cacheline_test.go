package cacheline

import "testing"

type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) { r.failed = append(r.failed, format) }

// TestInLines: bytes 64 to 127 are line 1; 63 and 128 are outside it.
func TestInLines(t *testing.T) {
	r := &recorder{TB: t}
	InLines(r, "T", 1, 1, map[string]uintptr{"a": 63, "b": 64, "c": 127, "d": 128})
	if len(r.failed) != 2 {
		t.Errorf("%d fields reported outside line 1, want 2 (bytes 63 and 128)", len(r.failed))
	}
}
