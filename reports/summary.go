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

	Flows   FlowCounts   `json:"flows"`
	Bytes   ByteCounts   `json:"bytes"`
	Packets PacketCounts `json:"packets"`
	// Conservation is the check that every byte and packet is accounted
	// for (DESIGN.md rule 4), made at the end of every run.
	Conservation Conservation `json:"conservation"`
	PFC          PFCCounts    `json:"pfc"`
	ECN          ECNCounts    `json:"ecn"`
	Deadlock     Deadlock     `json:"deadlock"`
	FCT          FCT          `json:"fct"`
	// FCTBuckets are the completed flows' slowdowns by flow size: the
	// flows sorted by size and cut into 20 buckets of 5% of them each
	// (fewer with fewer than 20 flows), as the published RDMA
	// congestion-control evaluations plot them.
	FCTBuckets []FCTBucket `json:"fct_buckets"`
	Throughput Throughput  `json:"throughput"`
	// Uplinks is the load on the fabric's uplinks (omitted for a fabric
	// with none, such as one switch).
	Uplinks *Uplinks `json:"uplinks,omitempty"`
	// Queues is the largest switch egress queue sampled (omitted when no
	// queue held a byte at a sample).
	Queues *QueuePeak `json:"queues,omitempty"`
	// Classes are the per-class counters where a switch configures QoS
	// (switch.trust: dscp, scheduler.ets or prio2tc), named as ethtool -S
	// names them on a ConnectX; omitted otherwise.
	Classes []ClassCounters `json:"classes,omitempty"`
	// Connections is the flows' rdma_cm connection set-up (omitted when
	// no flow has connect: cm).
	Connections *Connections `json:"connections,omitempty"`
	// Collectives counts the collectives' calls (collectives.csv's
	// rows); omitted when the scenario runs none.
	Collectives *Collectives `json:"collectives,omitempty"`
	// Jobs are the training jobs (jobs.go), in traffic order; omitted
	// when the scenario runs none.
	Jobs []JobSummary `json:"jobs,omitempty"`
	// UEC is Ultra Ethernet's link layer's counters (trimming, link-level
	// retry); omitted when the scenario turns neither on.
	UEC *UECCounts `json:"uec,omitempty"`
	// Timeline is observe.timeline's iteration (timeline.csv): omitted
	// when the scenario asks for none.
	Timeline *IterationTimeline `json:"timeline,omitempty"`
	Expect   []CheckResult      `json:"expect"`
	// Warnings are the scenario's and the run's warnings (for example a
	// lossless configuration that dropped packets).
	Warnings []string `json:"warnings"`
	// StopReason says why the run ended: "time", "flows-done" or
	// "interrupted".
	StopReason string `json:"stop_reason"`
}

// Connections is how the flows with connect: cm were connected.
type Connections struct {
	// Requested is the flows that called rdma_connect; Established
	// those whose connection was made; Failed the others that ended
	// (rejected, or unreachable after the CM's retries).
	Requested   int `json:"requested"`
	Established int `json:"established"`
	Failed      int `json:"failed"`
	// SetupMeanNs and SetupMaxNs are over the established connections:
	// from the flow's start to ESTABLISHED at its source (flows.csv's
	// connect_ns). TotalNs is from the first start to the last
	// ESTABLISHED.
	SetupMeanNs int64 `json:"setup_mean_ns"`
	SetupMaxNs  int64 `json:"setup_max_ns"`
	TotalNs     int64 `json:"total_ns"`
	// MADs is the CM messages every host sent (REQ, REP, RTU, REJ, DREQ,
	// DREP), resends included; MADsResent those sent again after a
	// timeout.
	MADs       int64 `json:"mads"`
	MADsResent int64 `json:"mads_resent"`
}

// FlowCounts counts flows (messages).
type FlowCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	// WorkCompletions counts the work completions of the flows' work
	// requests at their requesters, by status as libibverbs names it
	// (success, rem_access_err, wr_flush_err, ...): a flow posted as
	// several messages has one per message.
	WorkCompletions map[string]int64 `json:"work_completions"`
}

// ByteCounts are the flows' payload bytes, which DESIGN.md's
// conservation rule balances: offered + copied = delivered + dropped +
// in_flight, each term counted on its own (Conservation says how).
type ByteCounts struct {
	// Offered is the size of every flow that has started.
	Offered int64 `json:"offered"`
	// Delivered is what the receivers accepted: in memory, in order, of
	// a message not abandoned (a UC message missing a packet is not
	// delivered, not even in part).
	Delivered int64 `json:"delivered"`
	// InFlight is what is still on its way: an RC flow's bytes not yet
	// delivered (its requester holds them until acknowledged); a UD or
	// UC flow's bytes not yet sent, and those found in packets on wires,
	// in switch queues and pipelines and in NIC receive buffers.
	InFlight int64 `json:"in_flight"`
	// Dropped is what will never be delivered: UD and UC bytes a link,
	// switch or NIC discarded (counted where it happened, by reason in
	// DropReasons), and the undelivered rest of a flow that failed (by
	// its completion status).
	Dropped     int64            `json:"dropped"`
	DropReasons map[string]int64 `json:"drop_reasons"`
	// Copied is the UD and UC payload of the extra copies switches made
	// flooding packets that had no forwarding entry (each copy is then
	// delivered, dropped or in flight like the original).
	Copied int64 `json:"copied"`
}

// PacketCounts count packets other than PFC frames: sent + flooded +
// replicated = delivered + dropped + in_flight (Conservation).
type PacketCounts struct {
	// Sent counts the packets hosts sent (data, ACKs, NAKs, CNPs,
	// retransmissions included); Flooded the extra copies switches made
	// of packets without a forwarding entry, Replicated those they made
	// of multicast packets (omitted when none).
	Sent       int64 `json:"sent"`
	Flooded    int64 `json:"flooded"`
	Replicated int64 `json:"replicated,omitempty"`
	// Delivered counts the packets that reached the host they were for
	// and its transport took (after the NIC's receive buffer and
	// pipeline).
	Delivered int64 `json:"delivered"`
	// Dropped counts the packets lost on the way, by reason: a switch's
	// (buffer, headroom, egress, no_route, link_down, watchdog), a
	// link's (loss, link_down), a NIC's (nic_buffer; misdelivered: a
	// flooded copy at a host it was not for).
	Dropped     int64            `json:"dropped"`
	DropReasons map[string]int64 `json:"drop_reasons"`
	// InFlight counts the packets the census at the end of the run found
	// on wires, in switch queues and pipelines, and in NIC receive
	// buffers and pipelines.
	InFlight      int64 `json:"in_flight"`
	Retransmitted int64 `json:"retransmitted"`
	// ToClosedQP counts packets that reached their host after the QP
	// they were for had been destroyed (a finished flow's late
	// duplicates, ACKs and CNPs), which its NIC discarded; they are in
	// Delivered, not in Dropped.
	ToClosedQP int64 `json:"to_closed_qp"`
}

// Conservation is the end-of-run check of DESIGN.md's rule 4. Each term
// of the byte and packet equations is counted where it happens (a host
// sending, a switch or link dropping, a NIC accepting), and what is
// still inside is found by a census: a walk of every wire, queue,
// pipeline and NIC buffer, which must also find every packet out of the
// packet pool. PFC frames balance on their own: made = received + cut +
// discarded (made at a port whose link was cut) + on the wire.
type Conservation struct {
	OK bool `json:"ok"`
	// Census is the packets the walk found (PFC frames and packets not
	// yet sent included); PoolLive is how many the pool has handed out
	// and not had back. They are equal when nothing is lost track of.
	Census   int64 `json:"census"`
	PoolLive int64 `json:"pool_live"`
	// PFCFrames balance PFC frames; FCPackets InfiniBand's flow-control
	// packets, the same way.
	PFCFrames PFCBalance `json:"pfc_frames"`
	FCPackets PFCBalance `json:"fc_packets"`
	// Errors says which equation failed and by how much (a flow's bytes
	// name the flow; at most 20 are listed).
	Errors []string `json:"errors"`
}

// PFCBalance is the PFC frames' equation: made = received + cut +
// discarded + in_flight.
type PFCBalance struct {
	Made      int64 `json:"made"`
	Received  int64 `json:"received"`
	Cut       int64 `json:"cut"`
	Discarded int64 `json:"discarded"`
	InFlight  int64 `json:"in_flight"`
}

// PFCCounts sum PFC activity over every port.
type PFCCounts struct {
	PauseFrames  int64 `json:"pause_frames"`
	ResumeFrames int64 `json:"resume_frames"`
	PausedNs     int64 `json:"paused_ns"`
	// CreditWaitNs, on a network with InfiniBand and Ethernet switches
	// (VPI) only, is the time the InfiniBand ports waited for credit,
	// summed over ports and VLs; PausedNs is then the Ethernet ports'
	// PFC pauses alone. On a network of one link layer it is absent and
	// PausedNs is that link layer's (on InfiniBand, the credit waits).
	CreditWaitNs  *int64 `json:"credit_wait_ns,omitempty"`
	StormDetected bool   `json:"storm_detected"`
	// StormCause says, for the console, why the storm drained nothing
	// (where the held traffic waited and why); not in summary.json, which
	// keeps its fields as they were.
	StormCause    string `json:"-"`
	WatchdogTrips int64  `json:"watchdog_trips"`
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
	// LinkLayer, on a network with InfiniBand and Ethernet switches only,
	// is the port's: infiniband (it waited for credit) or ethernet
	// (paused by PFC).
	LinkLayer string `json:"link_layer,omitempty"`
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

// QueuePeak says how deep the switches' egress queues ran: the largest
// the time series sampled (every observe.interval: a peak between
// samples is not seen), its queue (node:port:priority) and when; and the
// queue with the largest time-averaged depth over the run (exact, not
// sampled) and that average.
type QueuePeak struct {
	PeakBytes int64   `json:"peak_bytes"`
	PeakQueue string  `json:"peak_queue"`
	PeakAtNs  int64   `json:"peak_at_ns"`
	MeanBytes float64 `json:"mean_bytes"`
	MeanQueue string  `json:"mean_queue"`
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

// Uplinks is how evenly the fabric's uplinks carried the run's traffic:
// a switch's port toward a switch nearer the roots of the up*/down*
// order (in a fat tree, edge to aggregation and aggregation to core).
// Imbalance is the busiest uplink's bytes over the mean: 1 is perfectly
// even, and per-flow ECMP's collisions raise it (switch.load_balance).
type Uplinks struct {
	Count     int     `json:"count"`
	MeanBytes float64 `json:"mean_bytes"`
	MaxBytes  int64   `json:"max_bytes"`
	Imbalance float64 `json:"imbalance"`
}

// ClassCounters are one host's or switch port's per-class counters
// (Summary.Classes): rx_prioN_bytes, rx_prioN_pause, np_cnp_sent and
// rp_cnp_handled for a host, tx_prioN_bytes and tx_prioN_pause for a
// switch port. Only counters above zero are listed.
type ClassCounters struct {
	Node     string           `json:"node"`
	Port     string           `json:"port,omitempty"`
	Counters map[string]int64 `json:"counters"`
}

// UECCounts are Ultra Ethernet's link layer's counters: the packets the
// switches trimmed (switch.trim) and the payload bytes they lost, the
// trimmed packets that reached a NIC; the frames links lost and resent
// from their replay buffers (switch.llr), as NACKs (one a loss) and
// frames replayed (the lost one and those sent after it before the NACK
// came back).
type UECCounts struct {
	Trimmed         int64 `json:"trimmed"`
	TrimmedBytes    int64 `json:"trimmed_bytes"`
	TrimmedReceived int64 `json:"trimmed_received"`
	LLRNacks        int64 `json:"llr_nacks"`
	LLRReplayed     int64 `json:"llr_replayed"`
}
