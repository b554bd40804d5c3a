package scenario

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The schema of a scenario file (SCENARIO.md), as tagged structs that the
// decoder in decode.go reads: here the whole file and the profiles of the
// switches and HCAs; topology:, traffic: and faults:, observe: and
// expect: in schema_topology.go, schema_traffic.go and
// schema_observe.go. Only these files know the key names, but for those
// the tables of kinds give (kinds.go: the congestion controls).

// File is the whole file.
type File struct {
	meta
	Name        StrV      `yaml:"name"`
	Description StrV      `yaml:"description"`
	Seed        u64V      `yaml:"seed"`
	Stop        stopS     `yaml:"stop"`
	Topology    TopologyV `yaml:"topology" required:""`
	Switch      SwitchS   `yaml:"switch"`
	// SubnetManager is InfiniBand's subnet manager.
	SubnetManager SubnetManagerS `yaml:"subnet_manager"`
	HCA           HCAS           `yaml:"hca"`
	Traffic       []TrafficV     `yaml:"traffic"`
	Faults        []FaultS       `yaml:"faults"`
	Observe       observeS       `yaml:"observe"`
	Expect        ExpectS        `yaml:"expect"`
}

type stopS struct {
	meta
	At   TimeV `yaml:"at"`
	When whenV `yaml:"when" enum:"flows-done|deadlock"`
}

// whenV is one stop condition or a list of them.
type whenV struct {
	Items []StrV
	Pos   Pos
}

func (w *whenV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	w.Pos = d.pos(n)
	if n.Kind == yaml.SequenceNode {
		d.decodeInto(n, &w.Items, c)
		return
	}
	var s StrV
	s.decodeNode(d, n, c)
	if s.Set {
		w.Items = []StrV{s}
	}
}

// ---- profiles

type SwitchS struct {
	meta
	Buffer     BufferV    `yaml:"buffer" min:"1"`
	Latency    TimeV      `yaml:"latency"`
	Forwarding StrV       `yaml:"forwarding" enum:"store-and-forward|cut-through"`
	Reserved   SizeV      `yaml:"reserved"`
	IngressTh  ThresholdV `yaml:"ingress_threshold"`
	EgressTh   ThresholdV `yaml:"egress_threshold"`
	PFC        pfcS       `yaml:"pfc" layer:"merge"`
	ECN        ecnV       `yaml:"ecn" layer:"merge"`
	Scheduler  SchedulerV `yaml:"scheduler"`
	ECMPSeed   u64V       `yaml:"ecmp_seed"`
	// ECMPPerSwitch mixes each switch's name into its seed (swtch.Profile).
	ECMPPerSwitch boolV `yaml:"ecmp_per_switch"`
	// LinkLayer is the whole network's link: ethernet (RoCEv2, PFC) or
	// infiniband (credits per VL); IB its InfiniBand parameters.
	LinkLayer StrV `yaml:"link_layer" enum:"ethernet|infiniband"`
	IB        IBS  `yaml:"ib"`
	// LoadBalance is how a switch chooses among equal-cost ports;
	// FlowletTimeout, Spray and AdaptiveBias tune its modes
	// (swtch.Profile).
	LoadBalance    StrV  `yaml:"load_balance" kinds:"load-balance"`
	FlowletTimeout TimeV `yaml:"flowlet_timeout" min:"1ns"`
	Spray          StrV  `yaml:"spray" enum:"round-robin|random|entropy"`
	AdaptiveBias   SizeV `yaml:"adaptive_bias"`
	// EgressFIFO is one FIFO per egress port and priority (swtch.Profile).
	EgressFIFO boolV `yaml:"egress_fifo"`
	// FloodLossless and Tagger are the deadlock cures (swtch.Profile).
	FloodLossless boolV `yaml:"flood_lossless"`
	Tagger        boolV `yaml:"tagger"`
	// RangeExtender makes an explicit topology's switch an InfiniBand
	// range extender (resolve/rangeextender.go).
	RangeExtender RangeExtenderS `yaml:"range_extender"`
	// Trust is what a switch classifies an arriving packet by: pcp (its
	// 802.1p priority, the default) or dscp (its IP DSCP, through
	// DSCP2Prio, unlisted DSCPs to dscp >> 3); Prio2TC maps priorities
	// to the scheduler's traffic classes (swtch.Profile, switch/qos.go).
	Trust     StrV     `yaml:"trust" enum:"pcp|dscp"`
	DSCP2Prio ClassMap `yaml:"dscp2prio" keymax:"63"`
	Prio2TC   ClassMap `yaml:"prio2tc" keymax:"7"`
	// Sonic is a SONiC switch's config_db.json, whose QoS and buffer
	// tables give the keys this block does not (layer.go).
	Sonic SonicV `yaml:"sonic" layer:"source"`
	// Trim, CBFC and LLR are Ultra Ethernet's link layer (schema_uec.go):
	// a switch cuts a packet it would drop to its header and sends it on
	// at high priority; credit-based flow control per traffic class and
	// link-level retry on every Ethernet link (the network's, top-level
	// block only).
	Trim boolV `yaml:"trim"`
	CBFC CBFCV `yaml:"cbfc"`
	LLR  boolV `yaml:"llr"`
}

// RangeExtenderS is switch.range_extender: the switch is a two-port
// InfiniBand range extender, an ordinary credit link partner on its local
// port and, on its long-haul port to another extender, a deep receive
// buffer its own flow control grants whole.
type RangeExtenderS struct {
	meta
	// Buffer is the long-haul port's receive buffer, bytes, split evenly
	// among the data VLs.
	Buffer SizeV `yaml:"buffer" required:"" min:"128KiB" max:"1GiB"`
}

// ClassMap is switch.dscp2prio or switch.prio2tc: {from: to, ...}, from
// 0..keymax (the field's tag), to 0..7, each from once.
type ClassMap struct {
	Pos Pos
	// Keys in the file's order, To[i] the value of Keys[i]; KeyPos and
	// ToPos where each was written.
	Keys, To      []int64
	KeyPos, ToPos []Pos
}

func (m *ClassMap) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	m.Pos = d.pos(n)
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping such as {26: 3, 48: 6}, found %s", Describe(n))
		return
	}
	keyTag := reflect.StructTag(`min:"0" max:"` + c.tag.Get("keymax") + `"`)
	seen := map[int64]bool{}
	for _, p := range d.pairs(n, c) {
		var from, to IntV
		d.decodeInto(p.key, &from, ctx{path: c.path, key: d.pos(p.key), tag: keyTag})
		d.decodeInto(p.val, &to, ctx{path: c.path + "." + Show(p.key.Value), key: d.pos(p.key), tag: `min:"0" max:"7"`})
		if !from.Set || !to.Set {
			continue
		}
		if seen[from.V] {
			d.Errorf(from.Pos, c.path, "%d is given twice", from.V)
			continue
		}
		seen[from.V] = true
		m.Keys, m.To = append(m.Keys, from.V), append(m.To, to.V)
		m.KeyPos, m.ToPos = append(m.KeyPos, from.Pos), append(m.ToPos, to.Pos)
	}
}

// IBS is switch.ib: InfiniBand's links and switches (SCENARIO.md,
// "Fabrics, transports and programs").
type IBS struct {
	meta
	// VLBuffer is the receive buffer per input port and data VL; its
	// credits are its 64-byte blocks.
	VLBuffer SizeV `yaml:"vl_buffer" min:"64" max:"128KiB"`
	// DataVLs is how many data VLs the links have: 1, 2, 4 or 8.
	DataVLs IntV `yaml:"data_vls" oneof:"1|2|4|8"`
	// SL2VL is the VL of each SL 0..15, at every port that has no table
	// of its own.
	SL2VL []IntV `yaml:"sl2vl" min:"0" max:"14"`
	// SL2VLPorts gives switch ports tables of their own.
	SL2VLPorts []PortSL2VLS `yaml:"sl2vl_ports"`
	// HOQLifetime is off, or how long a packet may wait at the head of
	// an output VL before the switch discards it.
	HOQLifetime offTimeV `yaml:"hoq_lifetime"`
	VLArb       VLArbS   `yaml:"vlarb"`
	FECN        FECNS    `yaml:"fecn"`
}

// SubnetManagerS is subnet_manager: the InfiniBand subnet manager's
// routing engine (OpenSM's names), its LMC, and how long after a link
// changes state it installs new forwarding tables.
type SubnetManagerS struct {
	meta
	Routing    StrV  `yaml:"routing" enum:"minhop|updn|ftree|dfsssp|lash"`
	LMC        IntV  `yaml:"lmc" min:"0" max:"7"`
	SweepDelay TimeV `yaml:"sweep_delay"`
	// Host is where OpenSM runs, its SA answering path queries
	// (rdma_cm's route resolution); default the first host.
	Host StrV `yaml:"host"`
}

// FECNS is switch.ib.fecn: InfiniBand congestion control at switches
// (IBTA vol. 1, annex A10): an output VL whose queue is above Threshold
// marks FECN on packets, one in MarkingRate+1 on average.
type FECNS struct {
	meta
	Threshold   SizeV `yaml:"threshold" required:"" min:"1"`
	MarkingRate IntV  `yaml:"marking_rate" min:"0" max:"65535"`
}

// PortSL2VLS is one entry of switch.ib.sl2vl_ports: the SL-to-VL table
// of a switch's output port, for the packets from one input port (in) or
// from all.
type PortSL2VLS struct {
	meta
	Port  StrV   `yaml:"port" required:""`
	In    StrV   `yaml:"in"`
	SL2VL []IntV `yaml:"sl2vl" required:"" min:"0" max:"14"`
}

// VLArbS is switch.ib.vlarb or hca.vlarb: the VL arbitration tables
// (IBTA vol. 1, 7.6.9), entries of a VL and a weight in 64-byte units.
type VLArbS struct {
	meta
	High      []VLArbEntry `yaml:"high"`
	Low       []VLArbEntry `yaml:"low"`
	HighLimit IntV         `yaml:"high_limit" min:"0" max:"255"`
}

// VLArbEntry is one entry of a VL arbitration table.
type VLArbEntry struct {
	meta
	VL     IntV `yaml:"vl" required:"" min:"0" max:"14"`
	Weight IntV `yaml:"weight" required:"" min:"0" max:"255"`
}

type pfcS struct {
	meta
	Priorities []IntV    `yaml:"priorities" min:"0" max:"7"`
	XOFF       xoffV     `yaml:"xoff"`
	XON        xonV      `yaml:"xon"`
	Headroom   autoSizeV `yaml:"headroom"`
	Response   autoTimeV `yaml:"response"`
	Watchdog   WatchdogS `yaml:"watchdog" layer:"merge"`
}

type WatchdogS struct {
	meta
	Detect  TimeV `yaml:"detect" min:"1ps"`
	Restore TimeV `yaml:"restore" min:"1ps"`
	Action  StrV  `yaml:"action" enum:"drop|forward"`
}

// xoffV is bytes, or {alpha: a} for a dynamic threshold.
type xoffV struct {
	Bytes SizeV
	Dyn   struct {
		meta
		Alpha numV `yaml:"alpha" required:"" min:"0"`
	}
}

func (x *xoffV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Dyn, c)
		if x.Dyn.Alpha.Set && x.Dyn.Alpha.V <= 0 {
			d.Errorf(x.Dyn.Alpha.Pos, c.path+".alpha", "alpha must be above 0, not %v", x.Dyn.Alpha.V)
		}
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

// xonV is bytes, or {offset: bytes} below xoff.
type xonV struct {
	Bytes SizeV
	Rel   struct {
		meta
		Offset SizeV `yaml:"offset" required:"" min:"1"`
	}
}

func (x *xonV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Rel, c)
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

// autoSizeV is auto or a size.
type autoSizeV struct {
	Auto bool
	Size SizeV
	Pos  Pos // where it was given, when it was
}

// Given reports whether the key was given (auto or a size).
func (a *autoSizeV) Given() bool { return a.Auto || a.Size.Set }

func (a *autoSizeV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	a.Pos = d.pos(n)
	if d.autoOr(n, c, &a.Size, "a size such as 64KiB") {
		a.Auto = true
	}
}

// autoOr decodes auto, reporting true, or else a value into v (what: an
// example of it, for the error).
func (d *Decoder) autoOr(n *yaml.Node, c ctx, v nodeDecoder, what string) bool {
	if keyword(n, "auto") {
		return true
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.Errorf(d.pos(n), c.path, "expected auto or %s, found %s%s", what, Describe(n), d.Suggest(n.Value, []string{"auto"}))
		return false
	}
	v.decodeNode(d, n, c)
	return false
}

// offTimeV is off or a time above 0.
type offTimeV struct {
	Off  bool
	Time TimeV
}

func (o *offTimeV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "off") || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Value == "false") {
		o.Off = true
		return
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.Errorf(d.pos(n), c.path, "expected off or a time such as 1ms, found %s%s", Describe(n), d.Suggest(n.Value, []string{"off"}))
		return
	}
	o.Time.decodeNode(d, n, c)
	if o.Time.Set && o.Time.V <= 0 {
		d.Errorf(o.Time.Pos, c.path, "expected off or a time above 0, not %s", o.Time.V)
	}
}

// autoTimeV is auto or a time.
type autoTimeV struct {
	Auto bool
	Time TimeV
}

func (a *autoTimeV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if d.autoOr(n, c, &a.Time, "a time such as 3us") {
		a.Auto = true
	}
}

type ecnS struct {
	meta
	Kmin SizeV `yaml:"kmin"`
	Kmax SizeV `yaml:"kmax"`
	Pmax fracV `yaml:"pmax"`
	Mark StrV  `yaml:"mark" enum:"dequeue|enqueue"`
	// Priorities are the priorities whose egress queues mark (default
	// all), as a SONiC switch's QUEUE table gives WRED profiles to some.
	Priorities []IntV `yaml:"priorities" min:"0" max:"7"`
}

// ecnV is off, or the marking parameters.
type ecnV struct {
	Off bool
	ecnS
}

func (e *ecnV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "off") || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Value == "false") {
		e.Off = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected off or {kmin: ..., kmax: ..., pmax: ...}, found %s%s", Describe(n), d.Suggest(n.Value, []string{"off"}))
		return
	}
	d.decodeInto(n, &e.ecnS, c)
	if e.Kmin.Set && e.Kmax.Set && e.Kmin.V > e.Kmax.V {
		d.Errorf(e.Kmin.Pos, c.path+".kmin", "kmin %s is above kmax %s", e.Kmin.V, e.Kmax.V)
	}
}

// SchedulerV is strict, {dwrr: {priority: weight}}, or ETS as IEEE
// 802.1Qaz defines it: {ets: {traffic class: percent}, strict: [traffic
// classes]}, the shares summing to 100.
type SchedulerV struct {
	Strict bool
	DWRR   map[int64]int64
	// ETS is each ETS traffic class's share, percent; StrictTCs the
	// classes strict names (a class in neither is strict too, as without
	// the key); ETSPos where ets was written.
	ETS       map[int64]int64
	StrictTCs []IntV
	ETSPos    Pos
}

func (s *SchedulerV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "strict") {
		s.Strict = true
		return
	}
	const want = "strict, {dwrr: {priority: weight, ...}} or {ets: {traffic class: percent, ...}, strict: [traffic class, ...]}"
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected %s, found %s%s", want, Describe(n), d.Suggest(n.Value, []string{"strict"}))
		return
	}
	var sch struct {
		meta
		DWRR   dwrrV  `yaml:"dwrr"`
		ETS    dwrrV  `yaml:"ets"`
		Strict []IntV `yaml:"strict" min:"0" max:"7"`
	}
	d.decodeInto(n, &sch, c)
	s.DWRR, s.ETS, s.StrictTCs = sch.DWRR.W, sch.ETS.W, sch.Strict
	switch {
	case sch.Has("dwrr") && sch.Has("ets"):
		d.Errorf(sch.KeyPos("ets"), c.path+".ets", "dwrr and ets are two schedulers; give one")
		return
	case !sch.Has("dwrr") && !sch.Has("ets"):
		d.Errorf(d.pos(n), c.path, "expected %s", want)
		return
	case sch.Has("ets"):
		s.ETSPos = sch.KeyPos("ets")
		sum := int64(0)
		for _, pct := range s.ETS {
			sum += pct
		}
		if len(s.ETS) > 0 && sum != 100 {
			d.Errorf(s.ETSPos, c.path+".ets", "the ETS shares sum to %d%%, not 100%% (IEEE 802.1Qaz: each ETS traffic class's share of what the strict classes leave, in percent)", sum)
		}
	}
	ets := s.ETS
	if ets == nil {
		ets = s.DWRR
	}
	for _, tc := range s.StrictTCs {
		if _, both := ets[tc.V]; both && tc.Set {
			names := make([]string, 0, len(ets))
			for k := range ets {
				names = append(names, fmt.Sprint(k))
			}
			sort.Strings(names)
			d.Errorf(tc.Pos, c.path+".strict", "traffic class %d is both strict and weighted (%s); a class is one or the other", tc.V, strings.Join(names, ", "))
		}
	}
}

// BufferV is switch.buffer: the whole buffer, bytes, or {shared: bytes}:
// the shared pool alone, as a SONiC switch's BUFFER_POOL sizes it (the
// whole is then the pool with the reserved minimums and the headroom).
type BufferV struct {
	SizeV
	Pool struct {
		meta
		Shared SizeV `yaml:"shared" required:"" min:"1"`
	}
}

func (b *BufferV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &b.Pool, c)
		return
	}
	b.SizeV.decodeNode(d, n, c)
}

// Given reports whether the key was given (in either form).
func (b *BufferV) Given() bool { return b.Set || b.Pool.Shared.Set }

// ThresholdV is a static threshold in bytes, or {alpha: a} for a dynamic
// one (alpha × free shared buffer).
type ThresholdV struct {
	Bytes SizeV
	Dyn   struct {
		meta
		Alpha numV `yaml:"alpha" required:""`
	}
}

func (x *ThresholdV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Dyn, c)
		if x.Dyn.Alpha.Set && x.Dyn.Alpha.V <= 0 {
			d.Errorf(x.Dyn.Alpha.Pos, c.path+".alpha", "alpha must be above 0, not %v", x.Dyn.Alpha.V)
		}
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

func (x *ThresholdV) Given() bool { return x.Bytes.Set || x.Dyn.Alpha.Set }

// dwrrV is {priority: weight, ...}.
type dwrrV struct{ W map[int64]int64 }

func (w *dwrrV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	what, wmax := "priority: weight", ""
	if strings.HasSuffix(c.path, ".ets") {
		what, wmax = "traffic class: percent", "100"
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping of %s, found %s", what, Describe(n))
		return
	}
	w.W = map[int64]int64{}
	for _, p := range d.pairs(n, c) {
		var prio, weight IntV
		d.decodeInto(p.key, &prio, ctx{path: c.path, key: d.pos(p.key), tag: `min:"0" max:"7"`})
		d.decodeInto(p.val, &weight, ctx{path: c.path + "." + Show(p.key.Value), key: d.pos(p.key), tag: reflect.StructTag(`min:"1" max:"` + wmax + `"`)})
		if prio.Set && weight.Set {
			if _, dup := w.W[prio.V]; dup {
				d.Errorf(prio.Pos, c.path, "%s %d is given twice", strings.SplitN(what, ":", 2)[0], prio.V)
			}
			w.W[prio.V] = weight.V
		}
	}
}

type HCAS struct {
	meta
	// Transport frames RDMA on Ethernet: rocev2 (IP and UDP) or rocev1
	// (EtherType 0x8915 and a GRH, layer 2 only).
	Transport StrV `yaml:"transport" kinds:"transport"`
	MTU       IntV `yaml:"mtu" oneof:"256|512|1024|2048|4096"`
	Priority  IntV `yaml:"priority" min:"0" max:"7"`
	// DSCP is the IP DSCP of the QPs' packets (hca.Profile.DSCP); default
	// 8 × the priority.
	DSCP       IntV `yaml:"dscp" min:"0" max:"63"`
	Retransmit StrV `yaml:"retransmit" enum:"go-back-0|go-back-n|selective"`
	// BDPCap caps an RC flow's bytes in flight (IRN's BDP-FC): auto,
	// the flow path's bandwidth-delay product, or a size.
	BDPCap autoSizeV `yaml:"bdp_cap"`
	// Placement and ReorderWindow: how the RC receiver takes packets
	// ahead of a gap (hca.Placement).
	Placement     StrV    `yaml:"placement" enum:"in-order|direct"`
	ReorderWindow IntV    `yaml:"reorder_window" min:"1" max:"511"`
	AckTimeout    IntV    `yaml:"ack_timeout" min:"0" max:"31"`
	RetryCount    IntV    `yaml:"retry_count" min:"0" max:"7"`
	RNRRetry      IntV    `yaml:"rnr_retry" min:"0" max:"7"`
	MinRNRTimer   IntV    `yaml:"min_rnr_timer" min:"0" max:"31"`
	MaxRdAtomic   IntV    `yaml:"max_rd_atomic" min:"1" max:"255"`
	AckEvery      IntV    `yaml:"ack_every" min:"1" max:"65536"`
	RxRate        rxRateV `yaml:"rx_rate"`
	// HostBandwidth is the adapter's host interface (PCIe), shared by
	// its ports: line (default, no limit) or a rate (hca.HostInterface).
	HostBandwidth rxRateV      `yaml:"host_bandwidth"`
	PFCWatchdog   nicWatchdogS `yaml:"pfc_watchdog"`
	// NIC timing and selective repeat's timeouts (hca.Profile).
	DoorbellLatency TimeV `yaml:"doorbell_latency"`
	DoorbellCost    TimeV `yaml:"doorbell_cost"`
	WQEFetchLatency TimeV `yaml:"wqe_fetch_latency"`
	DMALatency      TimeV `yaml:"dma_latency"`
	TxPktLatency    TimeV `yaml:"tx_pkt_latency"`
	RxPktLatency    TimeV `yaml:"rx_pkt_latency"`
	MaxInline       SizeV `yaml:"max_inline" max:"1KiB"`
	// GRH puts the global route header (40 B) on InfiniBand packets.
	GRH boolV `yaml:"grh"`
	// VLArb is the HCA port's VL arbitration tables (InfiniBand), as
	// switch.ib.vlarb gives the switches'.
	VLArb   VLArbS `yaml:"vlarb"`
	RTOLow  TimeV  `yaml:"rto_low" min:"1ns"`
	RTOHigh TimeV  `yaml:"rto_high" min:"1ns"`
	// CC is the congestion control, one of the table's (kind.CCs) or
	// none; Params are each control's parameters, under its name.
	CC     StrV        `yaml:"cc" kinds:"cc" enum:"none"`
	Params CCSectionsV `kinds:"cc-params"`
	// TCP is iWARP's TCP (hca.Profile.TCP).
	TCP TCPS `yaml:"tcp"`
	// UET is Ultra Ethernet Transport's keys (schema_uet.go).
	UET UETS `yaml:"uet"`
	// CM is the connection manager's timing (cm.Profile), for flows
	// with connect: cm.
	CM CMS `yaml:"cm"`
	// APM arms automatic path migration on RC QPs (InfiniBand, with
	// subnet_manager.lmc at least 1: the alternate path is the peer's
	// other LID of its pair).
	APM boolV `yaml:"apm"`
	// Overlay puts every frame in a VXLAN or Geneve tunnel (eRDMA's
	// VPC; schema_overlay.go).
	Overlay OverlayS `yaml:"overlay"`
}

// CMS is hca.cm: the connection manager's timing (cm.Profile).
type CMS struct {
	meta
	QPCommand     TimeV `yaml:"qp_command"`
	MADProcessing TimeV `yaml:"mad_processing"`
	RecvQueue     IntV  `yaml:"recv_queue" min:"1" max:"65536"`
}

// TCPS is hca.tcp: the NIC's TCP under hca.transport: iwarp.
type TCPS struct {
	meta
	CC         StrV  `yaml:"cc" kinds:"tcp-cc"`
	RTOMin     TimeV `yaml:"rto_min" min:"1us"`
	DelayedAck TimeV `yaml:"delayed_ack"`
	SACK       boolV `yaml:"sack"`
	Timestamps boolV `yaml:"timestamps"`
	RcvWin     SizeV `yaml:"rcv_win" min:"4KiB" max:"1GiB"`
	SndWin     SizeV `yaml:"snd_win" min:"4KiB" max:"1GiB"`
	MPACRC     boolV `yaml:"mpa_crc"`
	MPAMarkers boolV `yaml:"mpa_markers"`
}

// nicWatchdogS is hca.pfc_watchdog: the NIC's PFC storm prevention.
type nicWatchdogS struct {
	meta
	After TimeV `yaml:"after" min:"1ps"`
}

// rxRateV is line, or a rate (a slow receiver, not modelled yet).
type rxRateV struct {
	Line bool
	Rate RateV
}

func (r *rxRateV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "line") {
		r.Line = true
		return
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.Errorf(d.pos(n), c.path, "expected line or a rate such as 40Gbps, found %s%s", Describe(n), d.Suggest(n.Value, []string{"line"}))
		return
	}
	r.Rate.decodeNode(d, n, c)
}
