// Package cacheline checks, in tests, that the fields a hot path touches
// lie in the cache lines meant for them (docs/PERFORMANCE.md: in a large
// run every line a packet-hop touches is a miss).
package cacheline

import "testing"

// Size is the cache line of the machines lfsim runs on, bytes.
const Size = 64

// InLines fails t for each field of type typ whose byte offset (the
// offset of its last byte, where the whole field matters) is outside
// lines first to last, counted from 0.
func InLines(t testing.TB, typ string, first, last int, offsets map[string]uintptr) {
	t.Helper()
	lo, hi := uintptr(first*Size), uintptr((last+1)*Size)
	for name, off := range offsets {
		if off < lo || off >= hi {
			t.Errorf("%s.%s at byte %d, outside lines %d to %d", typ, name, off, first, last)
		}
	}
}
