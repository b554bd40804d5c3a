package fabric

// Ethernet framing, IEEE 802.3.
const (
	// PreambleIFGBytes is the preamble, start delimiter and minimum
	// inter-frame gap that every frame costs on the wire: 8 + 12 bytes.
	PreambleIFGBytes = 20
	// EthernetHeaderBytes is destination MAC, source MAC and EtherType.
	// (An 802.1Q tag carrying the priority adds 4; RoCEv2 deployments with
	// DSCP-based PFC send untagged frames, which is what we model.)
	EthernetHeaderBytes = 14
	// FCSBytes is the frame check sequence (CRC-32).
	FCSBytes = 4
	// MinFrameBytes is the minimum Ethernet frame, header to FCS.
	MinFrameBytes = 64
	// EtherTypeIPv4 and EtherTypeMACControl identify IPv4 and PFC frames.
	EtherTypeIPv4       = 0x0800
	EtherTypeMACControl = 0x8808
)

// frameOnWire returns the bytes a frame whose header-to-FCS length is
// frame occupies on the wire: padded to the minimum frame, plus preamble and
// inter-frame gap.
func frameOnWire(frame int) int {
	if frame < MinFrameBytes {
		frame = MinFrameBytes
	}
	return frame + PreambleIFGBytes
}
