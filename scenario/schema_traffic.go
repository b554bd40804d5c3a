package scenario

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The schema of traffic: (see schema.go): the generators and the
// programs, each one key of a traffic item.

// ---- traffic

// GenCommon is what every generator takes, after its own keys.
type GenCommon struct {
	QP       StrV `yaml:"qp" enum:"rc|uc|ud"`
	Op       StrV `yaml:"op" enum:"write|read|send|write_imm|atomic"`
	Priority IntV `yaml:"priority" min:"0" max:"7"`
	// SL is the InfiniBand service level (LRH); its VL is the port's
	// SL-to-VL table's.
	SL    IntV  `yaml:"sl" min:"0" max:"15"`
	Start TimeV `yaml:"start"`
	// Connect is how a generator's QPs are connected: instant (default:
	// out of band, in no time, at the start) or cm (rdma_cm's exchange
	// on the wire, from the start; SIDR for UD). Every flow generator,
	// rping and perftest (as -R) take it; pingpong has no rdma_cm mode.
	Connect StrV `yaml:"connect" enum:"instant|cm"`
}

type FlowS struct {
	meta
	From StrV  `yaml:"from" required:""`
	To   StrV  `yaml:"to" required:""`
	Size SizeV `yaml:"size" required:"" min:"1"`
	// Messages posts the flow as that many work requests, back to back
	// on its QP, over consecutive parts of the responder's region, their
	// sizes differing by one byte at most (at most one per byte, none
	// over max_msg_sz).
	Messages IntV `yaml:"messages" min:"1" max:"65536"`
	// PostList posts the flow's work requests in chains of that many,
	// each chain with one ibv_post_send and so one doorbell (perftest's
	// --post_list).
	PostList IntV `yaml:"post_list" min:"1" max:"65536"`
	// RemoteMR is how the responder registers the region the flow's
	// WRITEs, READs or atomics name (hca.RegMR), and the key they carry.
	RemoteMR RemoteMRS `yaml:"remote_mr"`
	// RecvAt is when the responder's application posts the RECVs the
	// flow's SENDs need; default the flow's start.
	RecvAt TimeV `yaml:"recv_at"`
	// Count makes that many such flows, each on its own QP pair (a
	// thousand connections from one host: count: 1000, connect: cm).
	Count IntV `yaml:"count" min:"1" max:"1000000"`
	// Port is the source host's port the flow leaves (a host's first
	// link is port 1, its second port 2); it goes to the destination's
	// port on the same fabric. Default 1. Port 2 is a VPI host's port on
	// its other fabric (resolve/vpi.go).
	Port IntV `yaml:"port" min:"1" max:"2"`
	// DSCP is the IP DSCP of the flow's packets, over hca.dscp.
	DSCP IntV `yaml:"dscp" min:"0" max:"63"`
	GenCommon
}

// RemoteMRS is flow.remote_mr: the responder's memory region as
// ibv_reg_mr registers it, for a lab on memory protection.
type RemoteMRS struct {
	meta
	// Access lists ibv_access_flags by their verbs names; default all.
	Access []StrV `yaml:"access" enum:"local_write|remote_write|remote_read|remote_atomic"`
	// Length is the region's size; default the flow's size.
	Length SizeV `yaml:"length" min:"1"`
	// RKey: valid (default), or invalid: the requests carry a key no
	// region has (mistyped, or of a region deregistered since).
	RKey StrV `yaml:"rkey" enum:"valid|invalid"`
	// PD: own (default: the responder QP's), or other: the region is in
	// another protection domain of the same host.
	PD StrV `yaml:"pd" enum:"own|other"`
}

type IncastS struct {
	meta
	To   StrV      `yaml:"to" required:""`
	From NameListV `yaml:"from" required:""`
	Size SizeV     `yaml:"size" required:"" min:"1"`
	GenCommon
}

type PermutationS struct {
	meta
	Hosts NameListV `yaml:"hosts"`
	Size  SizeV     `yaml:"size" required:"" min:"1"`
	GenCommon
}

type AllToAllS struct {
	meta
	Hosts NameListV `yaml:"hosts"`
	Size  SizeV     `yaml:"size" required:"" min:"1"`
	GenCommon
}

type RingAllreduceS struct {
	meta
	Hosts NameListV `yaml:"hosts"`
	Size  SizeV     `yaml:"size" required:"" min:"1"`
	GenCommon
}

type PoissonS struct {
	meta
	Hosts NameListV `yaml:"hosts"`
	To    StrV      `yaml:"to"`
	Load  fracV     `yaml:"load" required:""`
	Sizes SizesV    `yaml:"sizes" required:""`
	Until TimeV     `yaml:"until"`
	GenCommon
}

// SizesV is poisson's sizes: a built-in distribution's name (SizeDists),
// a fixed size (1000, 4KiB), or the path of a CDF file (relative to the
// scenario's folder).
type SizesV struct {
	Name  string // a built-in name or a path
	Fixed SizeV
	Pos   Pos
	Set   bool
}

func (s *SizesV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "websearch, hadoop, a CDF file or a size") {
		return
	}
	s.Pos = d.pos(n)
	if v := n.Value; v != "" && v[0] >= '0' && v[0] <= '9' && !strings.ContainsAny(v, "/\\") && !strings.HasSuffix(v, ".txt") {
		c.tag = `min:"1"`
		s.Fixed.decodeNode(d, n, c)
		s.Set = s.Fixed.Set
		return
	}
	s.Name, s.Set = n.Value, true
}

// PerftestS is one perftest tool run; iterations are at least perftest's
// MIN_ITER (5) and at most 10^7 (lfsim keeps two timestamps per
// iteration); qps at most perftest's MAX_QP_NUM (16384).
type PerftestS struct {
	meta
	Test       StrV  `yaml:"test" required:"" enum:"write_bw|write_lat|read_bw|read_lat|send_bw|send_lat|atomic_bw|atomic_lat"`
	From       StrV  `yaml:"from" required:""`
	To         StrV  `yaml:"to" required:""`
	Size       SizeV `yaml:"size" min:"1" max:"8MiB"`
	Iterations IntV  `yaml:"iterations" min:"5" max:"10000000"`
	QPs        IntV  `yaml:"qps" min:"1" max:"16384"`
	TxDepth    IntV  `yaml:"tx_depth" min:"1" max:"15000"`
	CQMod      IntV  `yaml:"cq_mod" min:"1" max:"1024"`
	RxDepth    IntV  `yaml:"rx_depth" min:"1" max:"16384"`
	GenCommon
}

type PingpongS struct {
	meta
	From       StrV  `yaml:"from" required:""`
	To         StrV  `yaml:"to" required:""`
	Size       SizeV `yaml:"size" min:"1" max:"1GiB"`
	Iterations IntV  `yaml:"iterations" min:"1" max:"10000000"`
	RxDepth    IntV  `yaml:"rx_depth" min:"2" max:"16384"`
	GenCommon
}

// generators lists the traffic generators; the modelled ones first.
var generators = []struct {
	name    string
	modeled bool
	new     func() any
}{
	{"flow", true, func() any { return &FlowS{} }},
	{"incast", true, func() any { return &IncastS{} }},
	{"permutation", true, func() any { return &PermutationS{} }},
	{"all_to_all", true, func() any { return &AllToAllS{} }},
	{"perftest", true, func() any { return &PerftestS{} }},
	{"pingpong", true, func() any { return &PingpongS{} }},
	{"ring_allreduce", true, func() any { return &RingAllreduceS{} }},
	{"poisson", true, func() any { return &PoissonS{} }},
	{"asyncwatch", true, func() any { return &AsyncwatchS{} }},
	{"rping", true, func() any { return &RpingS{} }},
	{"rdma_server", true, func() any { return &RdmaServerS{} }},
	{"rdma_client", true, func() any { return &RdmaClientS{} }},
	{"mckey", true, func() any { return &MckeyS{} }},
	{"collective", true, func() any { return &CollectiveS{} }},
	{"nccl_tests", true, func() any { return &NCCLTestsS{} }},
	{"job", true, func() any { return &JobS{} }},
	{"trace", true, func() any { return &FlowTraceS{} }},
	{"chakra", true, func() any { return &ChakraS{} }},
}

// CommS are what a collective and nccl_tests share: the ranks (hosts, a
// GPU each) and how NCCL lays out and runs their connections.
type CommS struct {
	Hosts NameListV `yaml:"hosts"`
	// Algorithm is ring or tree (NCCL's), halving_doubling (MPI's and
	// Gloo's) or direct (all_to_all's); default ring (direct for
	// all_to_all).
	Algorithm StrV `yaml:"algorithm" enum:"ring|tree|halving_doubling|direct"`
	// Protocol forces one of NCCL's protocols (NCCL_PROTO); default:
	// chosen by size as NCCL's tuning does.
	Protocol StrV `yaml:"protocol" enum:"ll|ll128|simple"`
	// Channels is NCCL's channels (each its own ring or tree and its
	// connections); QPs is NCCL_IB_QPS_PER_CONNECTION.
	Channels IntV `yaml:"channels" min:"1" max:"64"`
	QPs      IntV `yaml:"qps" min:"1" max:"16"`
	// Chunk is the data a channel moves per step of a loop (NCCL's
	// chunk size); default NCCL's for the algorithm and protocol.
	Chunk SizeV `yaml:"chunk" min:"1" max:"64MiB"`
	// Root is broadcast's and reduce's root, a host of hosts: (default
	// the first).
	Root StrV `yaml:"root"`
	// RailAware lays rings on the rails of GPU servers (default true;
	// trees are on them always, and halving_doubling and direct lay no
	// ring: refused for them, and false for trees); PXN relays a ring's
	// or direct's steps between rails over the scale-up domain (default
	// true; refused for trees and halving_doubling).
	RailAware boolV `yaml:"rail_aware"`
	PXN       boolV `yaml:"pxn"`
	Start     TimeV `yaml:"start"`
	Priority  IntV  `yaml:"priority" min:"0" max:"7"`
}

// CollectiveS is one collective, as NCCL runs it, called iterations
// times on every rank, each call when the rank's previous one is done.
type CollectiveS struct {
	meta
	Op   StrV  `yaml:"op" required:"" enum:"all_reduce|reduce_scatter|all_gather|all_to_all|broadcast|reduce"`
	Size SizeV `yaml:"size" required:""`
	// Iterations is how many times it is called (default 1).
	Iterations IntV `yaml:"iterations" min:"1" max:"100000"`
	// After lists earlier collectives (their traffic: indices) whose
	// calls each rank finishes before it starts this one's.
	After []IntV `yaml:"after" min:"0"`
	CommS
}

// NCCLTestsS is one of nccl-tests' programs (all_reduce_perf, ...):
// op's perf test from minbytes to maxbytes (-b, -e), multiplied by
// stepfactor (-f) each time, iters timed calls (-n) after warmup_iters
// (-w), out of place then in place.
type NCCLTestsS struct {
	meta
	Op          StrV  `yaml:"op" required:"" enum:"all_reduce|reduce_scatter|all_gather|all_to_all|broadcast|reduce"`
	MinBytes    SizeV `yaml:"minbytes"`
	MaxBytes    SizeV `yaml:"maxbytes"`
	StepFactor  IntV  `yaml:"stepfactor" min:"1" max:"1024"`
	StepBytes   SizeV `yaml:"stepbytes" min:"1"`
	Iters       IntV  `yaml:"iters" min:"1" max:"100000"`
	WarmupIters IntV  `yaml:"warmup_iters" min:"0" max:"100000"`
	CommS
}

// ChakraS is a training job read from MLCommons Chakra execution traces
// (package chakra): the files trace.N.et, rank N's (ASTRA-sim's
// workload prefix), relative to the scenario's folder; rank N runs on
// ranks[N] (default the hosts in order). CommGroup is the
// communicator-group file, JSON as ASTRA-sim's
// --comm-group-configuration reads it ({"1": [0, 1]}), that the traces'
// pg_name attributes name; none by default (every collective over every
// rank). Iterations runs the trace that many times (default 1), each
// rank's next iteration when its last is done. Channels, QPs,
// RailAware and PXN are a collective's, for every communicator of the
// trace.
type ChakraS struct {
	meta
	// Name names the job in the outputs (default job<traffic index>, as
	// a job generator's).
	Name       StrV      `yaml:"name"`
	Trace      StrV      `yaml:"trace" required:""`
	Ranks      NameListV `yaml:"ranks"`
	CommGroup  StrV      `yaml:"comm_group"`
	Iterations IntV      `yaml:"iterations" min:"1" max:"100000"`
	Channels   IntV      `yaml:"channels" min:"1" max:"64"`
	QPs        IntV      `yaml:"qps" min:"1" max:"16"`
	RailAware  boolV     `yaml:"rail_aware"`
	PXN        boolV     `yaml:"pxn"`
	Start      TimeV     `yaml:"start"`
	Priority   IntV      `yaml:"priority" min:"0" max:"7"`
}

// MckeyS is librdmacm's mckey: a sender and receivers of a multicast
// group (-m group, default 239.1.1.1; -C count, default 10; -S size,
// default 100 bytes, at most the MTU); settle is the tool's pause
// between the join and the transfers (its sleep(3), which the tool has no
// option for: default 3s; 0 is no pause).
type MckeyS struct {
	meta
	Sender    StrV      `yaml:"sender" required:""`
	Receivers NameListV `yaml:"receivers" required:""`
	Group     StrV      `yaml:"group"`
	Count     IntV      `yaml:"count" min:"1" max:"1000000"`
	Size      SizeV     `yaml:"size" min:"1"`
	Settle    TimeV     `yaml:"settle"`
	Priority  IntV      `yaml:"priority" min:"0" max:"7"`
	Start     TimeV     `yaml:"start"`
}

// RdmaServerS is librdmacm's rdma_server on a host: it listens on port
// (-p, default 7471) from start and serves one rdma_client.
type RdmaServerS struct {
	meta
	Host  StrV  `yaml:"host" required:""`
	Port  IntV  `yaml:"port" min:"1" max:"65535"`
	Start TimeV `yaml:"start"`
}

// RdmaClientS is librdmacm's rdma_client on a host: from start it
// connects to server's port (-s, -p; default 7471) with rdma_cm, sends
// 16 bytes and waits for 16 back.
type RdmaClientS struct {
	meta
	Host   StrV  `yaml:"host" required:""`
	Server StrV  `yaml:"server" required:""`
	Port   IntV  `yaml:"port" min:"1" max:"65535"`
	Start  TimeV `yaml:"start"`
}

// RpingS is librdmacm's rping between a client and a server: -C count,
// -S size, -v (verbose, default on: the ping data is the output) and -V
// (validate, default on).
type RpingS struct {
	meta
	Client   StrV  `yaml:"client" required:""`
	Server   StrV  `yaml:"server" required:""`
	Count    IntV  `yaml:"count" required:"" min:"1" max:"1000000"`
	Size     SizeV `yaml:"size" max:"1GiB"`
	Verbose  boolV `yaml:"verbose"`
	Validate boolV `yaml:"validate"`
	GenCommon
}

// AsyncwatchS is ibv_asyncwatch on each of hosts: it prints every
// asynchronous event their HCAs raise.
type AsyncwatchS struct {
	meta
	Hosts NameListV `yaml:"hosts" required:""`
}

// TrafficV is one item of traffic:, a mapping with one key, the
// generator.
type TrafficV struct {
	Kind string
	Pos  Pos // the item
	Path string
	Gen  any // *flowS, *incastS, ...
}

func (t *TrafficV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	t.Pos, t.Path = d.pos(n), c.path
	var names []string
	for _, g := range generators {
		names = append(names, g.name)
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(t.Pos, c.path, "expected a generator such as {flow: {from: h0, to: h1, size: 1MiB}}, found %s", Describe(n))
		return
	}
	ps := d.pairs(n, c)
	if len(ps) == 0 {
		d.Errorf(t.Pos, c.path, "expected a generator (one of %s)", strings.Join(names, ", "))
		return
	}
	k := ps[0].key
	for _, g := range generators {
		if g.name != k.Value {
			continue
		}
		if len(ps) > 1 {
			d.Errorf(d.pos(ps[1].key), c.path, "one generator per item, found %s and %s (start each with \"- \")", Show(k.Value), Show(ps[1].key.Value))
			return
		}
		t.Kind = g.name
		gc := c.child(g.name, d.pos(k), "")
		t.Gen = g.new()
		d.decodeInto(ps[0].val, t.Gen, gc)
		if !g.modeled {
			gc.tag = `use:"use flow, incast, permutation, all_to_all, perftest or pingpong"`
			d.todo(gc, g.name+" is")
		}
		return
	}
	if len(ps) > 1 {
		d.Errorf(d.pos(k), c.path, "unknown generator %s%s; an item is one generator with its settings, e.g. - flow: {from: h0, to: h1, size: 1MiB}; generators are %s", Show(k.Value), d.Suggest(k.Value, names), strings.Join(names, ", "))
		return
	}
	d.Errorf(d.pos(k), c.path, "unknown generator %s%s; expected one of %s", Show(k.Value), d.Suggest(k.Value, names), strings.Join(names, ", "))
}

// NameListV is all, or a list of names.
type NameListV struct {
	All   bool
	Names []StrV
	Pos   Pos
	Set   bool
}

func (l *NameListV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	l.Pos = d.pos(n)
	if keyword(n, "all") {
		l.All, l.Set = true, true
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.Errorf(l.Pos, c.path, "expected all or a list of hosts such as [h0, h1], found %s", Describe(n))
		return
	}
	c.tag = ""
	d.decodeInto(n, &l.Names, c)
	l.Set = true
}
