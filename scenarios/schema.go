package scenarios

import (
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	swtch "github.com/lfsim/lfsim/switch"
)

// The schema of a scenario file (SCENARIO.md), as tagged structs that the
// decoder in decode.go reads. Only this file knows the key names.

// fileS is the whole file.
type fileS struct {
	meta
	Name        strV       `yaml:"name"`
	Description strV       `yaml:"description"`
	Seed        u64V       `yaml:"seed"`
	Stop        stopS      `yaml:"stop"`
	Topology    topologyV  `yaml:"topology" required:""`
	Switch      switchS    `yaml:"switch"`
	HCA         hcaS       `yaml:"hca"`
	Traffic     []trafficV `yaml:"traffic"`
	Faults      []faultS   `yaml:"faults"`
	Observe     observeS   `yaml:"observe"`
	Expect      expectS    `yaml:"expect"`
}

type stopS struct {
	meta
	At   timeV `yaml:"at"`
	When whenV `yaml:"when" enum:"flows-done|deadlock"`
}

// whenV is one stop condition or a list of them.
type whenV struct {
	Items []strV
	Pos   Pos
}

func (w *whenV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	w.Pos = d.pos(n)
	if n.Kind == yaml.SequenceNode {
		d.decodeInto(n, &w.Items, c)
		return
	}
	var s strV
	s.decodeNode(d, n, c)
	if s.Set {
		w.Items = []strV{s}
	}
}

// ---- topology

// topologyV reads kind: first and then the keys of that kind.
type topologyV struct {
	Kind  strV
	Pos   Pos // the topology key
	Spec  any // *starS, *dumbbellS, ... (nil when kind is missing or wrong)
	Route *topoRouting
}

var topologyKinds = []string{"star", "dumbbell", "leaf-spine", "fat-tree", "ring", "explicit"}

func (t *topologyV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	t.Pos = c.key
	if n.Kind != yaml.MappingNode {
		d.errorf(d.pos(n), c.path, "expected a mapping (key: value, ...), found %s", describe(n))
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
			d.errorf(c.key, c.path, "missing key kind (one of %s)", strings.Join(topologyKinds, ", "))
		}
		return
	}
	var spec interface{ routing() *topoRouting }
	switch t.Kind.V {
	case "star":
		spec = &starS{}
	case "dumbbell":
		spec = &dumbbellS{}
	case "leaf-spine":
		spec = &leafSpineS{}
	case "fat-tree":
		spec = &fatTreeS{}
	case "ring":
		spec = &ringS{}
	case "explicit":
		spec = &explicitS{}
	}
	if spec != nil {
		t.Route = spec.routing()
	}
	t.Spec = spec
	c.section = "for kind " + t.Kind.V
	d.decodeInto(n, spec, c)
}

func hasKey(d *decoder, n *yaml.Node, c ctx, key string) bool {
	for _, p := range d.pairs(n, c) {
		if p.key.Value == key {
			return true
		}
	}
	return false
}

// linkS is a link profile; missing fields come from the enclosing default
// (100Gbps and 1us at the outermost).
type linkS struct {
	meta
	Rate  rateV `yaml:"rate"`
	Delay timeV `yaml:"delay"`
}

// topoRouting holds the keys every kind shares after its own.
type topoRouting struct {
	Routing strV    `yaml:"routing" enum:"ecmp|shortest|updown"`
	Routes  routesV `yaml:"routes"`
}

// routing returns the shared keys of a kind's spec (each embeds them).
func (r *topoRouting) routing() *topoRouting { return r }

type starS struct {
	meta
	Kind  strV  `yaml:"kind"`
	Hosts intV  `yaml:"hosts" required:"" min:"2"`
	Link  linkS `yaml:"link"`
	topoRouting
}

type dumbbellS struct {
	meta
	Kind       strV  `yaml:"kind"`
	Left       intV  `yaml:"left" required:"" min:"1"`
	Right      intV  `yaml:"right" required:"" min:"1"`
	Link       linkS `yaml:"link"`
	Bottleneck linkS `yaml:"bottleneck"`
	topoRouting
}

type leafSpineS struct {
	meta
	Kind         strV  `yaml:"kind"`
	Leaves       intV  `yaml:"leaves" required:"" min:"1"`
	Spines       intV  `yaml:"spines" required:"" min:"1"`
	HostsPerLeaf intV  `yaml:"hosts_per_leaf" required:"" min:"1"`
	Link         linkS `yaml:"link"`
	HostLink     linkS `yaml:"host_link"`
	FabricLink   linkS `yaml:"fabric_link"`
	topoRouting
}

type fatTreeS struct {
	meta
	Kind strV  `yaml:"kind"`
	K    intV  `yaml:"k" required:"" min:"2"`
	Link linkS `yaml:"link"`
	topoRouting
}

type ringS struct {
	meta
	Kind           strV  `yaml:"kind"`
	Switches       intV  `yaml:"switches" required:"" min:"3"`
	HostsPerSwitch intV  `yaml:"hosts_per_switch" min:"1"`
	Link           linkS `yaml:"link"`
	topoRouting
}

type explicitS struct {
	meta
	Kind     strV          `yaml:"kind"`
	Hosts    []hostDeclV   `yaml:"hosts" required:""`
	Switches []switchDeclV `yaml:"switches"`
	Link     linkS         `yaml:"link"`
	Links    []linkItemV   `yaml:"links" required:""`
	topoRouting
}

// hostDeclS is a host with its own HCA settings.
type hostDeclS struct {
	meta
	Name strV `yaml:"name" required:""`
	HCA  hcaS `yaml:"hca"`
}

// hostDeclV is "a" or {name: a, hca: {...}}.
type hostDeclV struct {
	hostDeclS
	Pos  Pos
	Path string
}

func (h *hostDeclV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	h.Pos, h.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &h.hostDeclS, &h.Name, "a host name or {name: ..., hca: {...}}")
}

// nodeDecl decodes a node's declaration: a mapping into decl, or a bare
// name into name (what: the expected forms, for the error).
func (d *decoder) nodeDecl(n *yaml.Node, c ctx, decl any, name *strV, what string) {
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
	Name   strV    `yaml:"name" required:""`
	Switch switchS `yaml:"switch"`
}

// switchDeclV is "s1" or {name: s1, switch: {...}}.
type switchDeclV struct {
	switchDeclS
	Pos  Pos
	Path string
}

func (s *switchDeclV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	s.Pos, s.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &s.switchDeclS, &s.Name, "a switch name or {name: ..., switch: {...}}")
}

type linkItemS struct {
	meta
	A     strV  `yaml:"a" required:""`
	B     strV  `yaml:"b" required:""`
	Rate  rateV `yaml:"rate"`
	Delay timeV `yaml:"delay"`
}

// linkItemV is [a, b] or {a: x, b: y, rate: ..., delay: ...}.
type linkItemV struct {
	linkItemS
	Pos  Pos
	Path string
	OK   bool
}

func (l *linkItemV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	l.Pos, l.Path = d.pos(n), c.path
	c.tag = ""
	switch n.Kind {
	case yaml.MappingNode:
		c.key = l.Pos
		d.decodeInto(n, &l.linkItemS, c)
	case yaml.SequenceNode:
		if len(n.Content) != 2 {
			d.errorf(l.Pos, c.path, "a link is [a, b] or {a: x, b: y, rate: ..., delay: ...}; this list has %d items", len(n.Content))
			return
		}
		d.decodeInto(n.Content[0], &l.A, c.index(0, d.pos(n.Content[0])))
		d.decodeInto(n.Content[1], &l.B, c.index(1, d.pos(n.Content[1])))
	default:
		d.errorf(l.Pos, c.path, "expected a link, [a, b] or {a: x, b: y, rate: ..., delay: ...}, found %s", describe(n))
		return
	}
	l.OK = l.A.Set && l.B.Set
}

// routeV is one pinned next hop: at switch At, traffic for host Dst goes
// to neighbour Via.
type routeV struct {
	At, Dst, Via strV
	Path         string
}

// routesV is {switch: {host: next-hop, ...}, ...}.
type routesV struct {
	Items []routeV
	Pos   Pos // the routes key
	Set   bool
}

func (r *routesV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	r.Pos, r.Set = c.key, true
	if isNull(n) {
		return
	}
	mapping := func(n *yaml.Node, c ctx, what string) []pair {
		if n.Kind != yaml.MappingNode {
			d.errorf(d.pos(n), c.path, "expected a mapping of %s, found %s", what, describe(n))
			return nil
		}
		ps := d.pairs(n, c)
		seen := map[string]Pos{}
		out := ps[:0:0]
		for _, p := range ps {
			if first, dup := seen[p.key.Value]; dup {
				if !p.merged {
					d.errorf(d.pos(p.key), c.path, "key %s is given twice (first at %s)", show(p.key.Value), firstAt(first, d.pos(p.key)))
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
		at := strV{V: sw.key.Value, Pos: d.pos(sw.key), Set: true}
		v := d.resolve(sw.val)
		if v == nil || !d.spend(v) {
			continue
		}
		for _, dst := range mapping(v, sc, "destination hosts to next hops") {
			dc := sc.child(dst.key.Value, d.pos(dst.key), "")
			var via strV
			d.decodeInto(dst.val, &via, dc)
			if via.Set {
				r.Items = append(r.Items, routeV{At: at, Dst: strV{V: dst.key.Value, Pos: d.pos(dst.key), Set: true}, Via: via, Path: dc.path})
			}
		}
	}
}

// ---- profiles

type switchS struct {
	meta
	Buffer     sizeV      `yaml:"buffer" min:"1"`
	Latency    timeV      `yaml:"latency"`
	Forwarding strV       `yaml:"forwarding" enum:"store-and-forward|cut-through"`
	Reserved   sizeV      `yaml:"reserved"`
	IngressTh  thresholdV `yaml:"ingress_threshold"`
	EgressTh   thresholdV `yaml:"egress_threshold"`
	PFC        pfcS       `yaml:"pfc"`
	ECN        ecnV       `yaml:"ecn"`
	Scheduler  schedulerV `yaml:"scheduler"`
	ECMPSeed   u64V       `yaml:"ecmp_seed"`
	// ECMPPerSwitch mixes each switch's name into its seed (swtch.Profile).
	ECMPPerSwitch boolV `yaml:"ecmp_per_switch"`
	LinkLayer     strV  `yaml:"link_layer" enum:"ethernet|infiniband" todoval:"infiniband" use:"use link_layer: ethernet"`
	// EgressFIFO is one FIFO per egress port and priority (swtch.Profile).
	EgressFIFO boolV `yaml:"egress_fifo"`
	// FloodLossless and Tagger are the deadlock cures (swtch.Profile).
	FloodLossless boolV `yaml:"flood_lossless"`
	Tagger        boolV `yaml:"tagger"`
}

type pfcS struct {
	meta
	Priorities []intV    `yaml:"priorities" min:"0" max:"7"`
	XOFF       xoffV     `yaml:"xoff"`
	XON        xonV      `yaml:"xon"`
	Headroom   autoSizeV `yaml:"headroom"`
	Response   autoTimeV `yaml:"response"`
	Watchdog   watchdogS `yaml:"watchdog"`
}

type watchdogS struct {
	meta
	Detect  timeV `yaml:"detect" min:"1ps"`
	Restore timeV `yaml:"restore" min:"1ps"`
	Action  strV  `yaml:"action" enum:"drop|forward"`
}

// xoffV is bytes, or {alpha: a} for a dynamic threshold.
type xoffV struct {
	Bytes sizeV
	Dyn   struct {
		meta
		Alpha numV `yaml:"alpha" required:"" min:"0"`
	}
}

func (x *xoffV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Dyn, c)
		if x.Dyn.Alpha.Set && x.Dyn.Alpha.V <= 0 {
			d.errorf(x.Dyn.Alpha.Pos, c.path+".alpha", "alpha must be above 0, not %v", x.Dyn.Alpha.V)
		}
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

// xonV is bytes, or {offset: bytes} below xoff.
type xonV struct {
	Bytes sizeV
	Rel   struct {
		meta
		Offset sizeV `yaml:"offset" required:"" min:"1"`
	}
}

func (x *xonV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Rel, c)
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

// autoSizeV is auto or a size.
type autoSizeV struct {
	Auto bool
	Size sizeV
}

func (a *autoSizeV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if d.autoOr(n, c, &a.Size, "a size such as 64KiB") {
		a.Auto = true
	}
}

// autoOr decodes auto, reporting true, or else a value into v (what: an
// example of it, for the error).
func (d *decoder) autoOr(n *yaml.Node, c ctx, v nodeDecoder, what string) bool {
	if keyword(n, "auto") {
		return true
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.errorf(d.pos(n), c.path, "expected auto or %s, found %s%s", what, describe(n), d.dym(n.Value, []string{"auto"}))
		return false
	}
	v.decodeNode(d, n, c)
	return false
}

// autoTimeV is auto or a time.
type autoTimeV struct {
	Auto bool
	Time timeV
}

func (a *autoTimeV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if d.autoOr(n, c, &a.Time, "a time such as 3us") {
		a.Auto = true
	}
}

type ecnS struct {
	meta
	Kmin sizeV `yaml:"kmin"`
	Kmax sizeV `yaml:"kmax"`
	Pmax fracV `yaml:"pmax"`
	Mark strV  `yaml:"mark" enum:"dequeue|enqueue"`
}

// ecnV is off, or the marking parameters.
type ecnV struct {
	Off bool
	ecnS
}

func (e *ecnV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if keyword(n, "off") || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Value == "false") {
		e.Off = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(d.pos(n), c.path, "expected off or {kmin: ..., kmax: ..., pmax: ...}, found %s%s", describe(n), d.dym(n.Value, []string{"off"}))
		return
	}
	d.decodeInto(n, &e.ecnS, c)
	if e.Kmin.Set && e.Kmax.Set && e.Kmin.V > e.Kmax.V {
		d.errorf(e.Kmin.Pos, c.path+".kmin", "kmin %s is above kmax %s", e.Kmin.V, e.Kmax.V)
	}
}

// schedulerV is strict or {dwrr: {priority: weight}}.
type schedulerV struct {
	Strict bool
	DWRR   map[int64]int64
}

func (s *schedulerV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if keyword(n, "strict") {
		s.Strict = true
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(d.pos(n), c.path, "expected strict or {dwrr: {priority: weight, ...}}, found %s%s", describe(n), d.dym(n.Value, []string{"strict"}))
		return
	}
	var sch struct {
		meta
		DWRR dwrrV `yaml:"dwrr" required:""`
	}
	d.decodeInto(n, &sch, c)
	s.DWRR = sch.DWRR.W
}

// thresholdV is a static threshold in bytes, or {alpha: a} for a dynamic
// one (alpha × free shared buffer).
type thresholdV struct {
	Bytes sizeV
	Dyn   struct {
		meta
		Alpha numV `yaml:"alpha" required:""`
	}
}

func (x *thresholdV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, &x.Dyn, c)
		if x.Dyn.Alpha.Set && x.Dyn.Alpha.V <= 0 {
			d.errorf(x.Dyn.Alpha.Pos, c.path+".alpha", "alpha must be above 0, not %v", x.Dyn.Alpha.V)
		}
		return
	}
	x.Bytes.decodeNode(d, n, ctx{path: c.path, key: c.key})
}

func (x *thresholdV) set() bool { return x.Bytes.Set || x.Dyn.Alpha.Set }

func (x *thresholdV) threshold() swtch.Threshold {
	if x.Dyn.Alpha.Set {
		return swtch.Threshold{Alpha: x.Dyn.Alpha.V}
	}
	return swtch.Threshold{Bytes: x.Bytes.V}
}

// dwrrV is {priority: weight, ...}.
type dwrrV struct{ W map[int64]int64 }

func (w *dwrrV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if n.Kind != yaml.MappingNode {
		d.errorf(d.pos(n), c.path, "expected a mapping of priority: weight, found %s", describe(n))
		return
	}
	w.W = map[int64]int64{}
	for _, p := range d.pairs(n, c) {
		var prio, weight intV
		d.decodeInto(p.key, &prio, ctx{path: c.path, key: d.pos(p.key), tag: `min:"0" max:"7"`})
		d.decodeInto(p.val, &weight, ctx{path: c.path + "." + show(p.key.Value), key: d.pos(p.key), tag: `min:"1"`})
		if prio.Set && weight.Set {
			if _, dup := w.W[prio.V]; dup {
				d.errorf(prio.Pos, c.path, "priority %d is given twice", prio.V)
			}
			w.W[prio.V] = weight.V
		}
	}
}

type hcaS struct {
	meta
	MTU         intV         `yaml:"mtu" oneof:"256|512|1024|2048|4096"`
	Priority    intV         `yaml:"priority" min:"0" max:"7"`
	Retransmit  strV         `yaml:"retransmit" enum:"go-back-0|go-back-n|selective"`
	AckTimeout  intV         `yaml:"ack_timeout" min:"0" max:"31"`
	RetryCount  intV         `yaml:"retry_count" min:"0" max:"7"`
	RNRRetry    intV         `yaml:"rnr_retry" min:"0" max:"7"`
	MaxRdAtomic intV         `yaml:"max_rd_atomic" min:"1" max:"255"`
	AckEvery    intV         `yaml:"ack_every" min:"1" max:"65536"`
	RxRate      rxRateV      `yaml:"rx_rate"`
	PFCWatchdog nicWatchdogS `yaml:"pfc_watchdog"`
	// NIC timing and selective repeat's timeouts (hca.Profile).
	DoorbellLatency timeV   `yaml:"doorbell_latency"`
	WQEFetchLatency timeV   `yaml:"wqe_fetch_latency"`
	DMALatency      timeV   `yaml:"dma_latency"`
	TxPktLatency    timeV   `yaml:"tx_pkt_latency"`
	RxPktLatency    timeV   `yaml:"rx_pkt_latency"`
	MaxInline       sizeV   `yaml:"max_inline" max:"1KiB"`
	RTOLow          timeV   `yaml:"rto_low" min:"1ns"`
	RTOHigh         timeV   `yaml:"rto_high" min:"1ns"`
	CC              strV    `yaml:"cc" enum:"dcqcn|hpcc|timely|none"`
	DCQCN           dcqcnS  `yaml:"dcqcn"`
	HPCC            hpccS   `yaml:"hpcc"`
	TIMELY          timelyS `yaml:"timely"`
}

// nicWatchdogS is hca.pfc_watchdog: the NIC's PFC storm prevention.
type nicWatchdogS struct {
	meta
	After timeV `yaml:"after" min:"1ps"`
}

// hpccS is hca.hpcc: HPCC's parameters.
type hpccS struct {
	meta
	Eta      fracV `yaml:"eta"`
	MaxStage intV  `yaml:"max_stage" min:"0" max:"100"`
	WAI      sizeV `yaml:"w_ai"`
}

// timelyS is hca.timely: TIMELY's parameters.
type timelyS struct {
	meta
	TLow     timeV `yaml:"t_low"`
	THigh    timeV `yaml:"t_high"`
	Beta     fracV `yaml:"beta"`
	Alpha    fracV `yaml:"alpha"`
	Delta    rateV `yaml:"delta"`
	MinRTT   timeV `yaml:"min_rtt"`
	HAIAfter intV  `yaml:"hai_after" min:"1" max:"1000"`
	MinRate  rateV `yaml:"min_rate"`
}

// rxRateV is line, or a rate (a slow receiver, not modelled yet).
type rxRateV struct {
	Line bool
	Rate rateV
}

func (r *rxRateV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	if keyword(n, "line") {
		r.Line = true
		return
	}
	if n.Kind == yaml.ScalarNode && !strings.ContainsAny(n.Value, "0123456789") {
		d.errorf(d.pos(n), c.path, "expected line or a rate such as 40Gbps, found %s%s", describe(n), d.dym(n.Value, []string{"line"}))
		return
	}
	r.Rate.decodeNode(d, n, c)
}

// dcqcnS takes NVIDIA's parameter names (mlxconfig / sysfs), so values
// can be pasted.
type dcqcnS struct {
	meta
	Variant                  strV  `yaml:"variant" enum:"paper|nvidia"`
	RpgAIRate                rateV `yaml:"rpg_ai_rate"`
	RpgHAIRate               rateV `yaml:"rpg_hai_rate"`
	RpgTimeReset             timeV `yaml:"rpg_time_reset"`
	RpgByteReset             sizeV `yaml:"rpg_byte_reset"`
	RpgThreshold             intV  `yaml:"rpg_threshold" min:"1"`
	RpgMaxRate               rateV `yaml:"rpg_max_rate"`
	RpgMinRate               rateV `yaml:"rpg_min_rate"`
	RpgGd                    intV  `yaml:"rpg_gd" min:"0" todo:"rpg_gd (rate decrease granularity) is" use:"remove rpg_gd"`
	RpgMinDecFac             intV  `yaml:"rpg_min_dec_fac" min:"0" max:"100"`
	RateToSetOnFirstCNP      rateV `yaml:"rate_to_set_on_first_cnp"`
	DceTCPG                  numV  `yaml:"dce_tcp_g" min:"0"`
	DceTCPRTT                timeV `yaml:"dce_tcp_rtt"`
	InitialAlphaValue        intV  `yaml:"initial_alpha_value" min:"0"`
	RateReduceMonitorPeriod  timeV `yaml:"rate_reduce_monitor_period"`
	MinTimeBetweenCNPs       timeV `yaml:"min_time_between_cnps"`
	ClampTgtRate             boolV `yaml:"clamp_tgt_rate"`
	ClampTgtRateAfterTimeInc boolV `yaml:"clamp_tgt_rate_after_time_inc"`
	CNPDSCP                  intV  `yaml:"cnp_dscp" min:"0" max:"63" todo:"a separate CNP class is" use:"remove cnp_dscp (CNPs travel in the data's priority)"`
	CNP802pPrio              intV  `yaml:"cnp_802p_prio" min:"0" max:"7" todo:"a separate CNP priority is" use:"remove cnp_802p_prio (CNPs travel in the data's priority)"`
}

// ---- traffic

// genCommon is what every generator takes, after its own keys.
type genCommon struct {
	QP       strV  `yaml:"qp" enum:"rc|uc|ud"`
	Op       strV  `yaml:"op" enum:"write|read|send|write_imm|atomic"`
	Priority intV  `yaml:"priority" min:"0" max:"7"`
	Start    timeV `yaml:"start"`
}

type flowS struct {
	meta
	From strV  `yaml:"from" required:""`
	To   strV  `yaml:"to" required:""`
	Size sizeV `yaml:"size" required:"" min:"1"`
	genCommon
}

type incastS struct {
	meta
	To   strV      `yaml:"to" required:""`
	From nameListV `yaml:"from" required:""`
	Size sizeV     `yaml:"size" required:"" min:"1"`
	genCommon
}

type permutationS struct {
	meta
	Hosts nameListV `yaml:"hosts"`
	Size  sizeV     `yaml:"size" required:"" min:"1"`
	genCommon
}

type allToAllS struct {
	meta
	Hosts nameListV `yaml:"hosts"`
	Size  sizeV     `yaml:"size" required:"" min:"1"`
	genCommon
}

type ringAllreduceS struct {
	meta
	Hosts nameListV `yaml:"hosts"`
	Size  sizeV     `yaml:"size" required:"" min:"1"`
	genCommon
}

type poissonS struct {
	meta
	Hosts nameListV `yaml:"hosts"`
	To    strV      `yaml:"to"`
	Load  fracV     `yaml:"load" required:""`
	Sizes sizesV    `yaml:"sizes" required:""`
	Until timeV     `yaml:"until"`
	genCommon
}

// sizesV is poisson's sizes: a built-in distribution's name (SizeDists),
// a fixed size (1000, 4KiB), or the path of a CDF file (relative to the
// scenario's folder).
type sizesV struct {
	Name  string // a built-in name or a path
	Fixed sizeV
	Pos   Pos
	Set   bool
}

func (s *sizesV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
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

// perftestS is one perftest tool run; iterations are at least perftest's
// MIN_ITER (5) and at most 10^7 (lfsim keeps two timestamps per
// iteration); qps at most perftest's MAX_QP_NUM (16384).
type perftestS struct {
	meta
	Test       strV  `yaml:"test" required:"" enum:"write_bw|write_lat|read_bw|read_lat|send_bw|send_lat|atomic_bw|atomic_lat"`
	From       strV  `yaml:"from" required:""`
	To         strV  `yaml:"to" required:""`
	Size       sizeV `yaml:"size" min:"1" max:"8MiB"`
	Iterations intV  `yaml:"iterations" min:"5" max:"10000000"`
	QPs        intV  `yaml:"qps" min:"1" max:"16384"`
	TxDepth    intV  `yaml:"tx_depth" min:"1" max:"15000"`
	CQMod      intV  `yaml:"cq_mod" min:"1" max:"1024"`
	RxDepth    intV  `yaml:"rx_depth" min:"1" max:"16384"`
	genCommon
}

type pingpongS struct {
	meta
	From       strV  `yaml:"from" required:""`
	To         strV  `yaml:"to" required:""`
	Size       sizeV `yaml:"size" min:"1" max:"1GiB"`
	Iterations intV  `yaml:"iterations" min:"1" max:"10000000"`
	RxDepth    intV  `yaml:"rx_depth" min:"2" max:"16384"`
	genCommon
}

// generators lists the traffic generators; the modelled ones first.
var generators = []struct {
	name    string
	modeled bool
	new     func() any
}{
	{"flow", true, func() any { return &flowS{} }},
	{"incast", true, func() any { return &incastS{} }},
	{"permutation", true, func() any { return &permutationS{} }},
	{"all_to_all", true, func() any { return &allToAllS{} }},
	{"perftest", true, func() any { return &perftestS{} }},
	{"pingpong", true, func() any { return &pingpongS{} }},
	{"ring_allreduce", true, func() any { return &ringAllreduceS{} }},
	{"poisson", true, func() any { return &poissonS{} }},
}

// trafficV is one item of traffic:, a mapping with one key, the
// generator.
type trafficV struct {
	Kind string
	Pos  Pos // the item
	Path string
	Gen  any // *flowS, *incastS, ...
}

func (t *trafficV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	t.Pos, t.Path = d.pos(n), c.path
	var names []string
	for _, g := range generators {
		names = append(names, g.name)
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(t.Pos, c.path, "expected a generator such as {flow: {from: h0, to: h1, size: 1MiB}}, found %s", describe(n))
		return
	}
	ps := d.pairs(n, c)
	if len(ps) == 0 {
		d.errorf(t.Pos, c.path, "expected a generator (one of %s)", strings.Join(names, ", "))
		return
	}
	k := ps[0].key
	for _, g := range generators {
		if g.name != k.Value {
			continue
		}
		if len(ps) > 1 {
			d.errorf(d.pos(ps[1].key), c.path, "one generator per item, found %s and %s (start each with \"- \")", show(k.Value), show(ps[1].key.Value))
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
		d.errorf(d.pos(k), c.path, "unknown generator %s%s; an item is one generator with its settings, e.g. - flow: {from: h0, to: h1, size: 1MiB}; generators are %s", show(k.Value), d.dym(k.Value, names), strings.Join(names, ", "))
		return
	}
	d.errorf(d.pos(k), c.path, "unknown generator %s%s; expected one of %s", show(k.Value), d.dym(k.Value, names), strings.Join(names, ", "))
}

// nameListV is all, or a list of names.
type nameListV struct {
	All   bool
	Names []strV
	Pos   Pos
	Set   bool
}

func (l *nameListV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	l.Pos = d.pos(n)
	if keyword(n, "all") {
		l.All, l.Set = true, true
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(l.Pos, c.path, "expected all or a list of hosts such as [h0, h1], found %s", describe(n))
		return
	}
	c.tag = ""
	d.decodeInto(n, &l.Names, c)
	l.Set = true
}

// ---- faults

type faultS struct {
	meta
	At          timeV  `yaml:"at" required:""`
	Link        []strV `yaml:"link"`
	Host        strV   `yaml:"host"`
	Switch      strV   `yaml:"switch"`
	Dst         strV   `yaml:"dst"`
	Action      strV   `yaml:"action" required:"" enum:"down|up|pfc-storm|slow-receiver|rx-hang|missing-entry|loss"`
	Priority    intV   `yaml:"priority" min:"0" max:"7"`
	Until       timeV  `yaml:"until"`
	Rate        strV   `yaml:"rate"`
	Convergence timeV  `yaml:"convergence"`
}

// ---- observe and expect

type observeS struct {
	meta
	Interval timeV     `yaml:"interval" min:"1ps"`
	Links    selV      `yaml:"links"`
	Queues   selV      `yaml:"queues"`
	Flows    flowSelV  `yaml:"flows"`
	Pcap     []strV    `yaml:"pcap"`
	Deadlock deadlockS `yaml:"deadlock"`
}

type deadlockS struct {
	meta
	After timeV `yaml:"after" min:"1ps"`
}

// allNone is what a selection of all, none, or a list says besides the
// list.
type allNone struct {
	All, None bool
	Set       bool
}

// decode decodes all or none into the flags, or a list into list (what:
// an example of it, for the error).
func (s *allNone) decode(d *decoder, n *yaml.Node, c ctx, list any, what string) {
	switch {
	case keyword(n, "all"):
		s.All, s.Set = true, true
	case keyword(n, "none"):
		s.None, s.Set = true, true
	case n.Kind == yaml.SequenceNode:
		d.decodeInto(n, list, c)
		s.Set = true
	default:
		d.errorf(d.pos(n), c.path, "expected all, none or %s, found %s", what, describe(n))
	}
}

// selV is all, none, or a list of ports and nodes.
type selV struct {
	allNone
	Items []strV
}

func (s *selV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	s.decode(d, n, c, &s.Items, "a list of ports such as [s0:p8, s0->h3]")
}

// flowSelV is all, none, or a list of flow ids.
type flowSelV struct {
	allNone
	IDs []intV
}

func (s *flowSelV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	c.tag = `min:"0"` // of each id
	s.decode(d, n, c, &s.IDs, "a list of flow ids such as [0, 3]")
}

type expectS struct {
	meta
	Drops            intV         `yaml:"drops" min:"0"`
	Deadlock         boolV        `yaml:"deadlock"`
	Storm            boolV        `yaml:"storm"`
	MinPauseFraction pauseChecksV `yaml:"min_pause_fraction"`
	FlowsCompleted   allOrIntV    `yaml:"flows_completed"`
	MinFairness      fracV        `yaml:"min_fairness"`
	MaxPauseFraction pauseChecksV `yaml:"max_pause_fraction"`
	// Min/MaxMeanSlowdown bound summary.json's fct.mean_slowdown.
	MinMeanSlowdown numV `yaml:"min_mean_slowdown" min:"1"`
	MaxMeanSlowdown numV `yaml:"max_mean_slowdown" min:"1"`
}

// allOrIntV is all or a whole number.
type allOrIntV struct {
	All bool
	N   intV
	Pos Pos
}

func (a *allOrIntV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
	a.Pos = d.pos(n)
	if keyword(n, "all") {
		a.All = true
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		d.errorf(a.Pos, c.path, "expected all or a number, found %s%s", describe(n), d.dym(n.Value, []string{"all"}))
		return
	}
	c.tag = `min:"0"`
	a.N.decodeNode(d, n, c)
}

type pauseCheckS struct {
	meta
	Port  strV  `yaml:"port" required:""`
	Value fracV `yaml:"value" required:""`
}

// pauseChecksV is one {port, value} or a list of them.
type pauseChecksV struct {
	Items []pauseCheckS
	One   bool // given as one mapping, not a list
}

func (p *pauseChecksV) decodeNode(d *decoder, n *yaml.Node, c ctx) {
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

// sortedKeys returns a map's keys in order (for deterministic output).
func sortedKeys[V any](m map[int64]V) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}
