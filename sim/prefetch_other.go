//go:build !amd64

package sim

// prefetch does nothing where lfsim has no assembly for it.
func prefetch(addr uintptr) {}

func prefetch2(a, b uintptr)    {}
func prefetch3(a, b, c uintptr) {}

func prefetchTarget(target, data uintptr) {}
