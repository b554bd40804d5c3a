package scenario

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// The schema of a scenario file (SCENARIO.md), as tagged structs that the
// decoder in decode.go reads. Only this file knows the key names, but for
// those the tables of kinds give (kinds.go: the congestion controls).

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

// ---- topology

// TopologyV reads kind: first and then the keys of that kind.
type TopologyV struct {
	Kind  StrV
	Pos   Pos // the topology key
	Spec  any // *starS, *dumbbellS, ... (nil when kind is missing or wrong)
	Route *topoRouting
}

var topologyKinds = []string{"star", "dumbbell", "leaf-spine", "fat-tree", "ring", "explicit"}

func (t *TopologyV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	t.Pos = c.key
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping (key: value, ...), found %s", Describe(n))
		return
	}
	for _, p := range d.pairs(n, c) {
		if p.key.Value == "kind" {
			kc := c.child("kind", d.pos(p.key), reflect.StructTag(`enum:"`+strings.Join(topologyKinds, "|")+`"`))
			d.decodeInto(p.val, &t.Kind, kc)
			break
		}
	}
	if !t.Kind.Set {
		if !hasKey(d, n, c, "kind") {
			d.Errorf(c.key, c.path, "missing key kind (one of %s)", strings.Join(topologyKinds, ", "))
		}
		return
	}
	var spec interface{ routing() *topoRouting }
	switch t.Kind.V {
	case "star":
		spec = &StarS{}
	case "dumbbell":
		spec = &DumbbellS{}
	case "leaf-spine":
		spec = &LeafSpineS{}
	case "fat-tree":
		spec = &FatTreeS{}
	case "ring":
		spec = &RingS{}
	case "explicit":
		spec = &ExplicitS{}
	}
	if spec != nil {
		t.Route = spec.routing()
	}
	t.Spec = spec
	c.section = "for kind " + t.Kind.V
	d.decodeInto(n, spec, c)
}

func hasKey(d *Decoder, n *yaml.Node, c ctx, key string) bool {
	for _, p := range d.pairs(n, c) {
		if p.key.Value == key {
			return true
		}
	}
	return false
}

// LinkS is a link profile; missing fields come from the enclosing default
// (100Gbps and 1us at the outermost).
type LinkS struct {
	meta
	Rate  RateV `yaml:"rate"`
	Delay TimeV `yaml:"delay"`
}

// topoRouting holds the keys every kind shares after its own.
type topoRouting struct {
	Routing StrV    `yaml:"routing" enum:"ecmp|shortest|updown"`
	Routes  routesV `yaml:"routes"`
}

// routing returns the shared keys of a kind's spec (each embeds them).
func (r *topoRouting) routing() *topoRouting { return r }

type StarS struct {
	meta
	Kind  StrV  `yaml:"kind"`
	Hosts IntV  `yaml:"hosts" required:"" min:"2"`
	Link  LinkS `yaml:"link"`
	topoRouting
}

type DumbbellS struct {
	meta
	Kind       StrV  `yaml:"kind"`
	Left       IntV  `yaml:"left" required:"" min:"1"`
	Right      IntV  `yaml:"right" required:"" min:"1"`
	Link       LinkS `yaml:"link"`
	Bottleneck LinkS `yaml:"bottleneck"`
	topoRouting
}

type LeafSpineS struct {
	meta
	Kind         StrV  `yaml:"kind"`
	Leaves       IntV  `yaml:"leaves" required:"" min:"1"`
	Spines       IntV  `yaml:"spines" required:"" min:"1"`
	HostsPerLeaf IntV  `yaml:"hosts_per_leaf" required:"" min:"1"`
	Link         LinkS `yaml:"link"`
	HostLink     LinkS `yaml:"host_link"`
	FabricLink   LinkS `yaml:"fabric_link"`
	topoRouting
}

type FatTreeS struct {
	meta
	Kind StrV  `yaml:"kind"`
	K    IntV  `yaml:"k" required:"" min:"2"`
	Link LinkS `yaml:"link"`
	topoRouting
}

type RingS struct {
	meta
	Kind           StrV  `yaml:"kind"`
	Switches       IntV  `yaml:"switches" required:"" min:"3"`
	HostsPerSwitch IntV  `yaml:"hosts_per_switch" min:"1"`
	Link           LinkS `yaml:"link"`
	topoRouting
}

type ExplicitS struct {
	meta
	Kind     StrV          `yaml:"kind"`
	Hosts    []hostDeclV   `yaml:"hosts" required:""`
	Switches []switchDeclV `yaml:"switches"`
	Link     LinkS         `yaml:"link"`
	Links    []LinkItemV   `yaml:"links" required:""`
	topoRouting
}

// hostDeclS is a host with its own HCA settings.
type hostDeclS struct {
	meta
	Name StrV `yaml:"name" required:""`
	HCA  HCAS `yaml:"hca"`
}

// hostDeclV is "a" or {name: a, hca: {...}}.
type hostDeclV struct {
	hostDeclS
	Pos  Pos
	Path string
}

func (h *hostDeclV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	h.Pos, h.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &h.hostDeclS, &h.Name, "a host name or {name: ..., hca: {...}}")
}

// nodeDecl decodes a node's declaration: a mapping into decl, or a bare
// name into name (what: the expected forms, for the error).
func (d *Decoder) nodeDecl(n *yaml.Node, c ctx, decl any, name *StrV, what string) {
	if n.Kind == yaml.MappingNode {
		c.key = d.pos(n)
		d.decodeInto(n, decl, c)
		return
	}
	c.tag = ""
	if d.scalar(n, c, what) {
		name.decodeNode(d, n, c)
	}
}

type switchDeclS struct {
	meta
	Name   StrV    `yaml:"name" required:""`
	Switch SwitchS `yaml:"switch"`
}

// switchDeclV is "s1" or {name: s1, switch: {...}}.
type switchDeclV struct {
	switchDeclS
	Pos  Pos
	Path string
}

func (s *switchDeclV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	s.Pos, s.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &s.switchDeclS, &s.Name, "a switch name or {name: ..., switch: {...}}")
}

type linkItemS struct {
	meta
	A     StrV  `yaml:"a" required:""`
	B     StrV  `yaml:"b" required:""`
	Rate  RateV `yaml:"rate"`
	Delay TimeV `yaml:"delay"`
}

// LinkItemV is [a, b] or {a: x, b: y, rate: ..., delay: ...}.
type LinkItemV struct {
	linkItemS
	Pos  Pos
	Path string
	OK   bool
}

func (l *LinkItemV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	l.Pos, l.Path = d.pos(n), c.path
	c.tag = ""
	switch n.Kind {
	case yaml.MappingNode:
		c.key = l.Pos
		d.decodeInto(n, &l.linkItemS, c)
	case yaml.SequenceNode:
		if len(n.Content) != 2 {
			d.Errorf(l.Pos, c.path, "a link is [a, b] or {a: x, b: y, rate: ..., delay: ...}; this list has %d items", len(n.Content))
			return
		}
		d.decodeInto(n.Content[0], &l.A, c.index(0, d.pos(n.Content[0])))
		d.decodeInto(n.Content[1], &l.B, c.index(1, d.pos(n.Content[1])))
	default:
		d.Errorf(l.Pos, c.path, "expected a link, [a, b] or {a: x, b: y, rate: ..., delay: ...}, found %s", Describe(n))
		return
	}
	l.OK = l.A.Set && l.B.Set
}

// routeV is one pinned next hop: at switch At, traffic for host Dst goes
// to neighbour Via.
type routeV struct {
	At, Dst, Via StrV
	Path         string
}

// routesV is {switch: {host: next-hop, ...}, ...}.
type routesV struct {
	Items []routeV
	Pos   Pos // the routes key
	Set   bool
}

func (r *routesV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	r.Pos, r.Set = c.key, true
	if isNull(n) {
		return
	}
	mapping := func(n *yaml.Node, c ctx, what string) []pair {
		if n.Kind != yaml.MappingNode {
			d.Errorf(d.pos(n), c.path, "expected a mapping of %s, found %s", what, Describe(n))
			return nil
		}
		ps := d.pairs(n, c)
		seen := map[string]Pos{}
		out := ps[:0:0]
		for _, p := range ps {
			if first, dup := seen[p.key.Value]; dup {
				if !p.merged {
					d.Errorf(d.pos(p.key), c.path, "key %s is given twice (first at %s)", Show(p.key.Value), FirstAt(first, d.pos(p.key)))
				}
				continue
			}
			seen[p.key.Value] = d.pos(p.key)
			out = append(out, p)
		}
		return out
	}
	for _, sw := range mapping(n, c, "switches to {destination host: next hop}") {
		sc := c.child(sw.key.Value, d.pos(sw.key), "")
		at := StrV{V: sw.key.Value, Pos: d.pos(sw.key), Set: true}
		v := d.resolve(sw.val)
		if v == nil || !d.spend(v) {
			continue
		}
		for _, dst := range mapping(v, sc, "destination hosts to next hops") {
			dc := sc.child(dst.key.Value, d.pos(dst.key), "")
			var via StrV
			d.decodeInto(dst.val, &via, dc)
			if via.Set {
				r.Items = append(r.Items, routeV{At: at, Dst: StrV{V: dst.key.Value, Pos: d.pos(dst.key), Set: true}, Via: via, Path: dc.path})
			}
		}
	}
}

// ---- profiles

type SwitchS struct {
	meta
	Buffer     SizeV      `yaml:"buffer" min:"1"`
	Latency    TimeV      `yaml:"latency"`
	Forwarding StrV       `yaml:"forwarding" enum:"store-and-forward|cut-through"`
	Reserved   SizeV      `yaml:"reserved"`
	IngressTh  ThresholdV `yaml:"ingress_threshold"`
	EgressTh   ThresholdV `yaml:"egress_threshold"`
	PFC        pfcS       `yaml:"pfc"`
	ECN        ecnV       `yaml:"ecn"`
	Scheduler  schedulerV `yaml:"scheduler"`
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
	LoadBalance    StrV  `yaml:"load_balance" enum:"ecmp|flowlet|adaptive|spray"`
	FlowletTimeout TimeV `yaml:"flowlet_timeout" min:"1ns"`
	Spray          StrV  `yaml:"spray" enum:"round-robin|random|entropy"`
	AdaptiveBias   SizeV `yaml:"adaptive_bias"`
	// EgressFIFO is one FIFO per egress port and priority (swtch.Profile).
	EgressFIFO boolV `yaml:"egress_fifo"`
	// FloodLossless and Tagger are the deadlock cures (swtch.Profile).
	FloodLossless boolV `yaml:"flood_lossless"`
	Tagger        boolV `yaml:"tagger"`
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
	Watchdog   WatchdogS `yaml:"watchdog"`
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

// schedulerV is strict or {dwrr: {priority: weight}}.
type schedulerV struct {
	Strict bool
	DWRR   map[int64]int64
}

func (s *schedulerV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "strict") {
		s.Strict = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected strict or {dwrr: {priority: weight, ...}}, found %s%s", Describe(n), d.Suggest(n.Value, []string{"strict"}))
		return
	}
	var sch struct {
		meta
		DWRR dwrrV `yaml:"dwrr" required:""`
	}
	d.decodeInto(n, &sch, c)
	s.DWRR = sch.DWRR.W
}

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
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping of priority: weight, found %s", Describe(n))
		return
	}
	w.W = map[int64]int64{}
	for _, p := range d.pairs(n, c) {
		var prio, weight IntV
		d.decodeInto(p.key, &prio, ctx{path: c.path, key: d.pos(p.key), tag: `min:"0" max:"7"`})
		d.decodeInto(p.val, &weight, ctx{path: c.path + "." + Show(p.key.Value), key: d.pos(p.key), tag: `min:"1"`})
		if prio.Set && weight.Set {
			if _, dup := w.W[prio.V]; dup {
				d.Errorf(prio.Pos, c.path, "priority %d is given twice", prio.V)
			}
			w.W[prio.V] = weight.V
		}
	}
}

type HCAS struct {
	meta
	// Transport frames RDMA on Ethernet: rocev2 (IP and UDP) or rocev1
	// (EtherType 0x8915 and a GRH, layer 2 only).
	Transport  StrV `yaml:"transport" enum:"rocev2|rocev1|iwarp"`
	MTU        IntV `yaml:"mtu" oneof:"256|512|1024|2048|4096"`
	Priority   IntV `yaml:"priority" min:"0" max:"7"`
	Retransmit StrV `yaml:"retransmit" enum:"go-back-0|go-back-n|selective"`
	// BDPCap caps an RC flow's bytes in flight (IRN's BDP-FC): auto,
	// the flow path's bandwidth-delay product, or a size.
	BDPCap autoSizeV `yaml:"bdp_cap"`
	// Placement and ReorderWindow: how the RC receiver takes packets
	// ahead of a gap (hca.Placement).
	Placement     StrV         `yaml:"placement" enum:"in-order|direct"`
	ReorderWindow IntV         `yaml:"reorder_window" min:"1" max:"511"`
	AckTimeout    IntV         `yaml:"ack_timeout" min:"0" max:"31"`
	RetryCount    IntV         `yaml:"retry_count" min:"0" max:"7"`
	RNRRetry      IntV         `yaml:"rnr_retry" min:"0" max:"7"`
	MinRNRTimer   IntV         `yaml:"min_rnr_timer" min:"0" max:"31"`
	MaxRdAtomic   IntV         `yaml:"max_rd_atomic" min:"1" max:"255"`
	AckEvery      IntV         `yaml:"ack_every" min:"1" max:"65536"`
	RxRate        rxRateV      `yaml:"rx_rate"`
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
	// CM is the connection manager's timing (cm.Profile), for flows
	// with connect: cm.
	CM CMS `yaml:"cm"`
	// APM arms automatic path migration on RC QPs (InfiniBand, with
	// subnet_manager.lmc at least 1: the alternate path is the peer's
	// other LID of its pair).
	APM boolV `yaml:"apm"`
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

// ---- faults

type FaultS struct {
	meta
	At          TimeV  `yaml:"at" required:""`
	Link        []StrV `yaml:"link"`
	Host        StrV   `yaml:"host"`
	Switch      StrV   `yaml:"switch"`
	Dst         StrV   `yaml:"dst"`
	Action      StrV   `yaml:"action" required:"" enum:"down|up|pfc-storm|slow-receiver|rx-hang|missing-entry|loss"`
	Priority    IntV   `yaml:"priority" min:"0" max:"7"`
	Until       TimeV  `yaml:"until"`
	Rate        StrV   `yaml:"rate"`
	Convergence TimeV  `yaml:"convergence"`
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
	// MaxFlowsCompleted is a ceiling on summary flows.completed, for a
	// lab whose lesson is that some flows do not complete.
	MaxFlowsCompleted IntV `yaml:"max_flows_completed" min:"0"`
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
