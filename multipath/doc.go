// Package multipath holds the ways an Ultra Ethernet (UET) sender
// chooses each packet's entropy value (hca.uet.spray): the UDP source
// port the switches' ECMP hashes with the rest of the flow's key, so that
// the sender picks among the paths by the value it writes. Each is
// per-QP state the HCA drives (hca.EntropySource): the next request's
// value, what became of each request (its ACK echoes the value, with
// its ECN mark or its trim), and the QP's retransmission timeouts (on
// which REPS freezes). No goroutines, no wall clock; the
// random draws come from a stream the assembly gives (sim.Engine.Rand),
// so the same seed sprays the same way.
//
// The algorithms are the UEC's own simulator's, ultraethernet/uet-htsim
// (htsim/sim/uec_mp.cpp, buffer_reps.cpp): ecmp (one value a QP, the
// default), oblivious spraying (UecMpOblivious) and REPS, recycled
// entropy packet spraying (UecMpReps). Each registers its row in kind's
// table of sprays (register.go); this package imports only sim, fabric
// and kind of lfsim's, and the HCA knows it through the interface.
package multipath
