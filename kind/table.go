package kind

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// gen counts the changes to the tables.
var gen atomic.Uint64

// Generation changes each time a table changes (a format caching what
// it derived from the tables compares it).
func Generation() uint64 { return gen.Load() }

// table is one table of kinds: rows of type R in registration order,
// each named by name (its Name field).
type table[R any] struct {
	mu   sync.RWMutex
	rows []R
	name func(R) string
}

// register adds r after the rows registered before it. A row whose name
// is taken, or that usable refuses, is a programming error: it panics
// with what (the kind of row) and the name. unregister takes it out
// again (for a test's toy).
func (t *table[R]) register(what string, r R, usable func(name string) bool) (unregister func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.name(r)
	if !usable(n) || slices.ContainsFunc(t.rows, func(x R) bool { return t.name(x) == n }) {
		panic(fmt.Sprintf("kind: %s %q registered twice or without a usable name", what, n))
	}
	t.rows = append(t.rows, r)
	gen.Add(1)
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.rows = slices.DeleteFunc(t.rows, func(x R) bool { return t.name(x) == n })
		gen.Add(1)
	}
}

// all is the table, in registration order.
func (t *table[R]) all() []R {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Clone(t.rows)
}

// lookup is the row named name.
func (t *table[R]) lookup(name string) (R, bool) {
	return t.find(func(r R) bool { return t.name(r) == name })
}

// find is the first row keep says, without copying the table (a lookup
// made per flow).
func (t *table[R]) find(keep func(R) bool) (R, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, r := range t.rows {
		if keep(r) {
			return r, true
		}
	}
	var zero R
	return zero, false
}
