package sim

// prefetch asks the CPU to bring the cache line at addr in (x86
// PREFETCHT0). It never faults and changes nothing but timing.
//
//go:noescape
func prefetch(addr uintptr)
