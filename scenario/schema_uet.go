package scenario

// UETS is hca.uet: Ultra Ethernet Transport's own keys, with
// hca.transport: uet (resolve/uet.go).
type UETS struct {
	meta
	// AckPriority is the 802.1p priority of UET's ACKs and NACKs (SACKs
	// and trim NACKs too): 0..7, default 7, the trimmed headers' class,
	// which the strict scheduler serves ahead of data (resolve/uet.go).
	AckPriority IntV `yaml:"ack_priority" min:"0" max:"7"`
	// MinRTO runs uet-htsim's retransmission timeout in place of IRN's
	// rto_low and rto_high: min_rto after the send time of the oldest
	// packet outstanding; auto is uet-htsim's 15 us + 6 drains of the
	// largest switch queue (resolve/uet.go).
	MinRTO autoTimeV `yaml:"min_rto"`
	// CC is UET's congestion control, in hca.cc's place (either, not
	// both): one of the table's (kind.CCs) or none.
	CC StrV `yaml:"cc" kinds:"cc" enum:"none"`
	// ReceiverCredits runs UET's receiver credit-based congestion
	// control (RCCC, the first row of kind.ReceiverCCs:
	// congestion/rccc.go) beside the sender's: each receiving host
	// paces credit to its senders.
	ReceiverCredits boolV `yaml:"receiver_credits"`
	// Sleek runs SLEEK, the sender's loss rule on the out-of-order
	// count, where a QP has a congestion window (default true).
	Sleek boolV `yaml:"sleek"`
	// Spray is how the sender chooses each packet's entropy value,
	// which the switches' ECMP hashes (kind.Sprays).
	Spray StrV `yaml:"spray" kinds:"spray"`
	// Delivery is the PDS delivery mode of every QP: rud, reliable
	// unordered delivery (the default), or rod, reliable ordered
	// delivery on one path (resolve/uet.go).
	Delivery StrV `yaml:"delivery" enum:"rud|rod"`
}
