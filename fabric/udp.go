package fabric

const (
	// UDPBytes is the UDP header (RFC 768).
	UDPBytes = 8
	// RoCEv2Port is the IANA-assigned UDP destination port of RoCEv2.
	RoCEv2Port = 4791
)

// RoCEv2SourcePort is the UDP source port a NIC uses for queue pair qpn.
// RoCEv2 leaves it to the implementation, as entropy for ECMP; NICs derive
// it from the QP number within the dynamic range 49152..65535 (RFC 6335),
// which is what this does.
func RoCEv2SourcePort(qpn uint32) uint16 {
	h := qpn * 2654435761 // Knuth's multiplicative hash spreads sequential QPNs
	return uint16(49152 + (h>>16)%16384)
}
