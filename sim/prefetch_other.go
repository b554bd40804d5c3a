//go:build !amd64

package sim

// prefetch does nothing where lfsim has no assembly for it.
func prefetch(addr uintptr) {}
