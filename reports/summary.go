// Package reports collects a run's results and writes them: summary.json
// and flows.csv as OUTPUTS.md defines them (field names are a contract),
// each file written whole under a temporary name and then renamed. Of
// lfsim's packages it may import sim and fabric (today only fabric): it
// knows no other model, no scenario and no observer; they hand it plain
// values.
package reports

// Summary is summary.json. Field names are the contract of OUTPUTS.md; new
// fields may be added, none renamed.
type Summary struct {
	Scenario    string  `json:"scenario"`
	Seed        uint64  `json:"seed"`
	Complete    bool    `json:"complete"`
	SimTimeNs   int64   `json:"sim_time_ns"`
	WallSeconds float64 `json:"wall_seconds"`
	Events      uint64  `json:"events"`
	PacketHops  int64   `json:"packet_hops"`

	Flows    FlowCounts   `json:"flows"`
	Bytes    ByteCounts   `json:"bytes"`
	Packets  PacketCounts `json:"packets"`
	PFC      PFCCounts    `json:"pfc"`
	ECN      ECNCounts    `json:"ecn"`
	Deadlock Deadlock     `json:"deadlock"`
	FCT      FCT          `json:"fct"`
	// FCTBuckets are the completed flows' slowdowns by flow size: the
	// flows sorted by size and cut into 20 buckets of 5% of them each
	// (fewer with fewer than 20 flows), as the published RDMA
	// congestion-control evaluations plot them.
	FCTBuckets []FCTBucket   `json:"fct_buckets"`
	Throughput Throughput    `json:"throughput"`
	Expect     []CheckResult `json:"expect"`
	// Warnings are the scenario's and the run's warnings (for example a
	// lossless configuration that dropped packets).
	Warnings []string `json:"warnings"`
	// StopReason says why the run ended: "time", "flows-done" or
	// "interrupted".
	StopReason string `json:"stop_reason"`
}

// FlowCounts counts flows (messages).
type FlowCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
}

// ByteCounts follow DESIGN.md's conservation rule: offered = delivered +
// in_flight + dropped, counting payload bytes.
type ByteCounts struct {
	Offered   int64 `json:"offered"`
	Delivered int64 `json:"delivered"`
	InFlight  int64 `json:"in_flight"`
	Dropped   int64 `json:"dropped"`
}

// PacketCounts count packets of every kind.
type PacketCounts struct {
	Sent          int64            `json:"sent"`
	Delivered     int64            `json:"delivered"`
	Dropped       int64            `json:"dropped"`
	Retransmitted int64            `json:"retransmitted"`
	DropReasons   map[string]int64 `json:"drop_reasons"`
	// ToClosedQP counts packets that reached their host after the QP
	// they were for had been destroyed (a finished flow's late
	// duplicates, ACKs and CNPs), which its NIC discarded; they are in
	// Delivered, not in Dropped.
	ToClosedQP int64 `json:"to_closed_qp"`
}

// PFCCounts sum PFC activity over every port.
type PFCCounts struct {
	PauseFrames   int64 `json:"pause_frames"`
	ResumeFrames  int64 `json:"resume_frames"`
	PausedNs      int64 `json:"paused_ns"`
	StormDetected bool  `json:"storm_detected"`
	WatchdogTrips int64 `json:"watchdog_trips"`
	// Spread lists the ports that were ever paused, in the order each was
	// first paused (congestion spreads from its origin outward), with the
	// port that paused it and the fraction of the run it spent paused (its
	// most paused priority); at most 64.
	Spread []PFCSpread `json:"spread"`
}

// PFCSpread is one port of pfc.spread.
type PFCSpread struct {
	Port           string  `json:"port"`
	By             string  `json:"paused_by"`
	FirstNs        int64   `json:"first_ns"`
	PausedFraction float64 `json:"paused_fraction"`
}

// ECNCounts count ECN marks and CNPs.
type ECNCounts struct {
	Marked int64 `json:"marked"`
	CNPs   int64 `json:"cnps"`
}

// Deadlock is what the deadlock detector found.
type Deadlock struct {
	Detected bool     `json:"detected"`
	AtNs     int64    `json:"at_ns"`
	Cycle    []string `json:"cycle"`
}

// FCT summarises flow completion times of completed flows.
type FCT struct {
	P50Ns        int64   `json:"p50_ns"`
	P99Ns        int64   `json:"p99_ns"`
	MeanSlowdown float64 `json:"mean_slowdown"`
	P99Slowdown  float64 `json:"p99_slowdown"`
}

// FCTBucket is one flow-size bucket: the flows whose sizes fall above the
// previous bucket's SizeMax, up to this one's.
type FCTBucket struct {
	SizeMax     int64   `json:"size_max"`
	Count       int     `json:"count"`
	P50Slowdown float64 `json:"p50_slowdown"`
	P99Slowdown float64 `json:"p99_slowdown"`
}

// Throughput summarises the flows' throughputs.
type Throughput struct {
	// Fairness is Jain's index of the completed flows' throughputs (bytes
	// over FCT): 1 when all are equal.
	Fairness float64 `json:"fairness"`
}

// CheckResult is the outcome of one expect: check.
type CheckResult struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}
