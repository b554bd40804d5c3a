package scenario

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// The schema of faults:, observe: and expect: (see schema.go).

// ---- faults

type FaultS struct {
	meta
	At          TimeV  `yaml:"at" required:""`
	Link        []StrV `yaml:"link"`
	Host        StrV   `yaml:"host"`
	Switch      StrV   `yaml:"switch"`
	Dst         StrV   `yaml:"dst"`
	Action      StrV   `yaml:"action" required:"" enum:"down|up|pfc-storm|slow-receiver|rx-hang|missing-entry|loss|slow-link"`
	Priority    IntV   `yaml:"priority" min:"0" max:"7"`
	Until       TimeV  `yaml:"until"`
	Rate        StrV   `yaml:"rate" number:"also"`
	Convergence TimeV  `yaml:"convergence"`
	From        StrV   `yaml:"from"`
}

// ---- observe and expect

type observeS struct {
	meta
	Interval TimeV     `yaml:"interval" min:"1ps"`
	Links    SelV      `yaml:"links"`
	Queues   SelV      `yaml:"queues"`
	Flows    flowSelV  `yaml:"flows"`
	Pcap     []StrV    `yaml:"pcap"`
	Snaplen  SnaplenV  `yaml:"snaplen"`
	Deadlock deadlockS `yaml:"deadlock"`
	Timeline timelineS `yaml:"timeline"`
}

// timelineS is observe.timeline: which iteration of which pingpong to
// follow stage by stage (timeline.csv).
type timelineS struct {
	meta
	Traffic   IntV `yaml:"traffic" min:"0"`
	Iteration IntV `yaml:"iteration" min:"1" max:"10000000"`
}

// SnaplenV is observe.snaplen: full, or how many bytes of each frame a
// pcap keeps (64 to 262144, tcpdump's largest).
type SnaplenV struct {
	Full  bool
	Bytes SizeV
	Set   bool
}

func (s *SnaplenV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "full") {
		s.Full, s.Set = true, true
		return
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.Errorf(d.pos(n), c.path, "expected full or a size such as 128, found %s%s", Describe(n), d.Suggest(n.Value, []string{"full"}))
		return
	}
	c.tag = `min:"64" max:"262144"`
	s.Bytes.decodeNode(d, n, c)
	s.Set = s.Bytes.Set
}

type deadlockS struct {
	meta
	After TimeV `yaml:"after" min:"1ps"`
}

// allNone is what a selection of all, none, or a list says besides the
// list.
type allNone struct {
	All, None bool
	Set       bool
}

// decode decodes all or none into the flags, or a list into list (what:
// an example of it, for the error).
func (s *allNone) decode(d *Decoder, n *yaml.Node, c ctx, list any, what string) {
	switch {
	case keyword(n, "all"):
		s.All, s.Set = true, true
	case keyword(n, "none"):
		s.None, s.Set = true, true
	case n.Kind == yaml.SequenceNode:
		d.decodeInto(n, list, c)
		s.Set = true
	default:
		d.Errorf(d.pos(n), c.path, "expected all, none or %s, found %s", what, Describe(n))
	}
}

// SelV is all, none, or a list of ports and nodes.
type SelV struct {
	allNone
	Items []StrV
}

func (s *SelV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	s.decode(d, n, c, &s.Items, "a list of ports such as [s0:p8, s0->h3]")
}

// flowSelV is all, none, or a list of flow ids.
type flowSelV struct {
	allNone
	IDs []IntV
}

func (s *flowSelV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	c.tag = `min:"0"` // of each id
	s.decode(d, n, c, &s.IDs, "a list of flow ids such as [0, 3]")
}

type ExpectS struct {
	meta
	Drops            IntV         `yaml:"drops" min:"0"`
	Deadlock         boolV        `yaml:"deadlock"`
	Storm            boolV        `yaml:"storm"`
	MinPauseFraction PauseChecksV `yaml:"min_pause_fraction"`
	FlowsCompleted   allOrIntV    `yaml:"flows_completed"`
	MinFairness      fracV        `yaml:"min_fairness"`
	MaxPauseFraction PauseChecksV `yaml:"max_pause_fraction"`
	// Min/MaxMeanSlowdown bound summary.json's fct.mean_slowdown.
	MinMeanSlowdown numV `yaml:"min_mean_slowdown" min:"1"`
	MaxMeanSlowdown numV `yaml:"max_mean_slowdown" min:"1"`
	// Min/MaxRetransmitted bound summary.json's packets.retransmitted;
	// Min/MaxUplinkImbalance its uplinks.imbalance.
	MinRetransmitted   IntV `yaml:"min_retransmitted" min:"0"`
	MaxRetransmitted   IntV `yaml:"max_retransmitted" min:"0"`
	MinUplinkImbalance numV `yaml:"min_uplink_imbalance" min:"1"`
	MaxUplinkImbalance numV `yaml:"max_uplink_imbalance" min:"1"`
	// MinFlowsCompleted and MaxFlowsCompleted are a floor and a ceiling
	// on summary flows.completed, for a lab whose lesson is that some
	// flows do not complete (flows_completed asks for exactly so many).
	MinFlowsCompleted IntV `yaml:"min_flows_completed" min:"0"`
	MaxFlowsCompleted IntV `yaml:"max_flows_completed" min:"0"`
	// CollectivesCompleted asks for exactly so many collective calls
	// completed (summary collectives.completed; all: every call);
	// MinBusbw is a floor on every completed call's busbw
	// (collectives.csv's busbw_gbps, summary collectives.busbw_gbps_min),
	// in Gb/s; MaxCollectiveTime a ceiling on the slowest completed
	// call's time (summary collectives.time_ns_max). Both fail while a
	// call is unfinished (its time and busbw are beyond any completed
	// one's).
	CollectivesCompleted allOrIntV `yaml:"collectives_completed"`
	MinBusbw             numV      `yaml:"min_busbw_gbps" min:"0"`
	MaxCollectiveTime    TimeV     `yaml:"max_collective_time"`
	// JobsCompleted: all asks every job to finish every iteration
	// (summary jobs' completed_iterations); MinIterationTime and
	// MaxIterationTime bound every job's iteration_ns_mean;
	// MinJobSlowdown and MaxJobSlowdown every job's slowdown beside the
	// others (with several jobs). Each fails while a job is unfinished.
	JobsCompleted    allOrIntV `yaml:"jobs_completed"`
	MinIterationTime TimeV     `yaml:"min_iteration_time"`
	MaxIterationTime TimeV     `yaml:"max_iteration_time"`
	MinJobSlowdown   numV      `yaml:"min_job_slowdown" min:"0"`
	MaxJobSlowdown   numV      `yaml:"max_job_slowdown" min:"0"`
	// WorkCompletions asks for exactly so many of the flows' work
	// completions with each status listed (summary flows.work_completions).
	WorkCompletions WCCountsV `yaml:"work_completions"`
	// Min/MaxPeakQueue bound summary queues.peak_bytes, the largest
	// switch egress queue sampled; Min/MaxMeanQueue queues.mean_bytes,
	// the largest time-averaged one.
	MinPeakQueue SizeV `yaml:"min_peak_queue"`
	MaxPeakQueue SizeV `yaml:"max_peak_queue"`
	MinMeanQueue SizeV `yaml:"min_mean_queue"`
	MaxMeanQueue SizeV `yaml:"max_mean_queue"`
	// Min/MaxSetupTime bound summary connections.total_ns, from the
	// first rdma_connect to the last ESTABLISHED; ConnectionsEstablished
	// and ConnectionsFailed ask for exactly so many rdma_cm connections
	// made and lost (connections.established, connections.failed).
	MinSetupTime           TimeV `yaml:"min_setup_time"`
	MaxSetupTime           TimeV `yaml:"max_setup_time"`
	ConnectionsEstablished IntV  `yaml:"connections_established" min:"0"`
	ConnectionsFailed      IntV  `yaml:"connections_failed" min:"0"`
	// Min/MaxUsecPerIter bound every pingpong's time per iteration (its
	// client's "usec/iter" line in perftest.txt).
	MinUsecPerIter numV `yaml:"min_usec_per_iter" min:"0"`
	MaxUsecPerIter numV `yaml:"max_usec_per_iter" min:"0"`
}

// WCStatuses are the work completion statuses as libibverbs names them
// (IBV_WC_SUCCESS is success), which hca.WCStatus prints.
var WCStatuses = []string{"success", "retry_exc_err", "wr_flush_err", "rem_access_err",
	"rnr_retry_exc_err", "rem_inv_req_err", "loc_len_err", "loc_prot_err", "loc_qp_op_err", "rem_op_err"}

// WCCountsV is a mapping of work completion status to a count.
type WCCountsV struct {
	Items []WCCount
	Pos   Pos
	Set   bool
}

// WCCount is one status of expect.work_completions and its count.
type WCCount struct {
	Status StrV
	N      IntV
}

func (w *WCCountsV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	w.Pos, w.Set = d.pos(n), true
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping of status: count (such as rem_access_err: 1), found %s", Describe(n))
		return
	}
	seen := map[string]bool{}
	for _, p := range d.pairs(n, c) {
		var it WCCount
		d.decodeInto(p.key, &it.Status, ctx{path: c.path, key: d.pos(p.key), tag: reflect.StructTag(`enum:"` + strings.Join(WCStatuses, "|") + `"`)})
		d.decodeInto(p.val, &it.N, ctx{path: c.path + "." + Show(p.key.Value), key: d.pos(p.key), tag: `min:"0"`})
		if !it.Status.Set || !it.N.Set {
			continue
		}
		if seen[it.Status.V] {
			d.Errorf(it.Status.Pos, c.path, "%s is given twice", it.Status.V)
			continue
		}
		seen[it.Status.V] = true
		w.Items = append(w.Items, it)
	}
}

// allOrIntV is all or a whole number.
type allOrIntV struct {
	All bool
	N   IntV
	Pos Pos
}

func (a *allOrIntV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	a.Pos = d.pos(n)
	if keyword(n, "all") {
		a.All = true
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		d.Errorf(a.Pos, c.path, "expected all or a number, found %s%s", Describe(n), d.Suggest(n.Value, []string{"all"}))
		return
	}
	c.tag = `min:"0"`
	a.N.decodeNode(d, n, c)
}

type pauseCheckS struct {
	meta
	Port  StrV  `yaml:"port" required:""`
	Value fracV `yaml:"value" required:""`
}

// PauseChecksV is one {port, value} or a list of them.
type PauseChecksV struct {
	Items []pauseCheckS
	One   bool // given as one mapping, not a list
}

func (p *PauseChecksV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.SequenceNode {
		d.decodeInto(n, &p.Items, c)
		return
	}
	var one pauseCheckS
	d.decodeInto(n, &one, c)
	if one.Set {
		p.Items, p.One = []pauseCheckS{one}, true
	}
}
