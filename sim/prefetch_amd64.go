package sim

// prefetch asks the CPU to bring the cache line at addr in (x86
// PREFETCHT0). It never faults and changes nothing but timing.
//
//go:noescape
func prefetch(addr uintptr)

// prefetch2 and prefetch3 ask for two or three lines in one call: a call
// into assembly costs about ten instructions around its one PREFETCHT0
// (the arguments go through the stack and the goroutine register is
// restored after it), and a hint asks for several lines at once. An
// address of 0 is harmless: a prefetch never faults.
//
//go:noescape
func prefetch2(a, b uintptr)

//go:noescape
func prefetch3(a, b, c uintptr)

// prefetchTarget asks for a lane event's target (three lines: a port's
// hot fields span them, fabric.Port) and its data, unless data is 0 (the
// event will not read it, LaneKind.Unread): in one call into assembly,
// where separate calls cost about ten instructions each.
//
//go:noescape
func prefetchTarget(target, data uintptr)
