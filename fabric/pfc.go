package fabric

import "github.com/lfsim/lfsim/sim"

// PFC frames (IEEE 802.1Qbb): a MAC control frame (EtherType 0x8808) with
// opcode 0x0101, a priority-enable vector and eight pause times in quanta.
const (
	// PFCOpcode is the MAC control opcode of priority-based flow control.
	PFCOpcode = 0x0101
	// PFCFrameBytes is a PFC frame, header to FCS: the 64-byte minimum.
	PFCFrameBytes = MinFrameBytes
	// PFCWireBytes is what a PFC frame takes on the wire.
	PFCWireBytes = PFCFrameBytes + PreambleIFGBytes
	// QuantumBits is one pause quantum: 512 bit times at the port's rate.
	QuantumBits = 512
	// MaxQuanta is the longest pause one frame asks for.
	MaxQuanta = 0xFFFF
)

// PauseDuration is how long quanta pause quanta last on a port of rate r.
func PauseDuration(quanta uint16, r Rate) sim.Time {
	return SerializationTime(int64(quanta)*QuantumBits/8, r)
}
