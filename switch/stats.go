package swtch

// DropReason says why a switch discarded a packet.
type DropReason uint8

// Drop reasons, as they appear in summary.json's drop_reasons.
const (
	DropBuffer   DropReason = iota // the shared buffer, or a lossy ingress threshold, was full
	DropHeadroom                   // a lossless queue overflowed its headroom: PFC is misconfigured
	DropEgress                     // a lossy egress queue was over its threshold
	DropNoRoute                    // no route to the destination
	DropLinkDown                   // the route leads to a cut link (before routes converge)
	DropWatchdog                   // the PFC watchdog discarded a stalled lossless queue
	DropHOQ                        // InfiniBand: a packet waited at the head of its output VL past the HOQ lifetime
	NumDropReasons
)

func (r DropReason) String() string {
	return [...]string{"buffer", "headroom", "egress", "no_route", "link_down", "watchdog", "hoq_lifetime"}[r]
}

// Stats are a switch's totals.
type Stats struct {
	Forwarded  int64
	PeakBuffer int64
	Marked     int64 // packets marked CE
	Drops      [NumDropReasons]int64
	DropBytes  int64 // payload bytes dropped
	// WatchdogTrips counts PFC watchdog trips; Flooded the extra copies
	// made by flooding lossless packets that had no forwarding entry.
	WatchdogTrips int64
	Flooded       int64
	// Replicated counts the extra copies of multicast packets (a packet
	// sent on n ports of its group's tree makes n-1).
	Replicated int64
	// Trimmed counts the packets cut to their header (Profile.Trim), and
	// TrimmedBytes the payload they lost.
	Trimmed, TrimmedBytes int64
}

// PortPrio are the counters of one port and priority. Tx and Marked count
// the port as egress; Drops and the pause counters as ingress (a drop is
// charged to the port and priority the packet came in on, and PAUSE frames
// go out on the ingress port toward the upstream). Switch.PortPrio brings
// the Tx counters and PeakIngress up to date from where the switch keeps
// them while it runs (beside the queue and the ingress account).
type PortPrio struct {
	TxPackets, TxBytes int64
	Marked             int64
	PeakIngress        int64 // most the port and priority held, bytes
	PeakHeadroom       int64 // most it held in headroom, bytes
	PauseSent          int64
	ResumeSent         int64
	Drops              [NumDropReasons]int64
}
