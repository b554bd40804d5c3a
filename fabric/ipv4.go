package fabric

// IPv4Bytes is the IPv4 header without options (RFC 791).
const IPv4Bytes = 20

// ECN is the two-bit ECN field of the IP header (RFC 3168).
type ECN uint8

// ECN codepoints.
const (
	NotECT ECN = 0 // not ECN-capable
	ECT1   ECN = 1
	ECT0   ECN = 2 // RoCEv2 NICs send ECT(0)
	CE     ECN = 3 // congestion experienced
)

func (e ECN) String() string { return [...]string{"Not-ECT", "ECT(1)", "ECT(0)", "CE"}[e&3] }
