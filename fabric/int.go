package fabric

import "github.com/lfsim/lfsim/sim"

// In-band network telemetry as HPCC uses it (Li et al., SIGCOMM 2019):
// each switch egress a data packet leaves appends one record, and the
// receiver echoes the records in its ACK.
const (
	// MaxINTHops is how many records the header holds (HPCC's five).
	MaxINTHops = 5
	// INTHeaderBytes is what the INT header adds to a packet on the wire:
	// two bytes of hop count and five 8-byte records, present whatever the
	// number of hops so far (HPCC's implementation reserves it whole).
	INTHeaderBytes = 2 + 8*MaxINTHops
)

// INTHop is one switch egress's record.
type INTHop struct {
	QLen    int64    // bytes queued at the egress when the packet left
	TxBytes int64    // bytes the egress port had sent in all, this packet included
	TS      sim.Time // when the packet left
	Rate    Rate     // the egress link's rate
}

// INTStack is the telemetry a packet carries (Packet.INT).
type INTStack struct {
	N    uint8
	Hops [MaxINTHops]INTHop
}

// Push appends a record if the stack has room.
func (s *INTStack) Push(h INTHop) {
	if int(s.N) < MaxINTHops {
		s.Hops[s.N] = h
		s.N++
	}
}
