package metamorphic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/kind"
)

// Features are what a scenario uses, by family: "family: value", for the
// coverage table.
func Features(s *Spec) []string {
	set := map[string]bool{}
	add := func(family, value string) { set[family+": "+value] = true }
	t := &s.Topo
	kind := t.Kind
	switch {
	case t.AsExplicit:
		kind = "star as explicit"
	case t.Kind == "fat-tree":
		kind = fmt.Sprintf("fat-tree k=%d", t.K)
	case t.Kind == "explicit" && len(t.DualPort) > 0:
		add("topology", "explicit with dual-port hosts")
	}
	add("topology", kind)
	if t.DelayNs == 0 {
		add("topology", "a link without delay (one worker)")
	}
	if s.IB {
		add("link layer", "infiniband")
		add("ib routing", or(get(s.SM, "routing"), "minhop (default)"))
		for _, k := range []string{"lmc", "sweep_delay", "host"} {
			if _, ok := Get(s.SM, k); ok {
				add("ib subnet manager", k)
			}
		}
		for _, kv := range s.SwitchIB {
			add("switch.ib", kv.K)
		}
		for _, k := range append([]string{"grh", "apm", "vlarb"}, ibParams()...) {
			if _, ok := Get(s.HCA, k); ok {
				add("hca (infiniband)", k)
			}
		}
	} else {
		add("link layer", "ethernet")
		add("transport", or(s.Transport, "rocev2"))
		add("routing (ethernet)", or(t.Routing, "ecmp (default)"))
	}
	if s.Transport == "iwarp" {
		// iWARP's rdma_cm (over iw_cm: TCP's handshake, MPA's exchange)
		// and its captures.
		for _, it := range s.Traffic {
			if get(it.Opts, "connect") == "cm" || it.Kind == "rdma_client" {
				add("iwarp", "rdma_cm ("+it.Kind+")")
			}
		}
		if len(s.PcapHosts)+len(s.PcapPorts) > 0 {
			add("iwarp", pick(get(s.HCA, "overlay") != "", "pcap under an overlay", "pcap"))
		}
		tcp := get(s.HCA, "tcp")
		cc := "newreno (default)"
		for _, c := range tcpCCs() {
			if strings.Contains(tcp, "cc: "+c) {
				cc = c
			}
		}
		add("congestion control", "iwarp tcp "+cc)
	} else {
		add("congestion control", or(get(s.HCA, "cc"), "none (default)"))
	}
	add("load balance", or(get(s.Switch, "load_balance"), "ecmp (default)"))
	if v := get(s.Switch, "spray"); v != "" {
		add("load balance", "spray "+v)
	}
	for _, kv := range s.Switch {
		switch kv.K {
		case "load_balance", "spray":
		case "pfc":
			add("switch", "pfc")
			if strings.Contains(kv.V, "watchdog") {
				add("switch", "pfc watchdog")
			}
			if strings.Contains(kv.V, "priorities: []") {
				add("switch", "pfc off (lossy)")
			}
		case "ecn":
			add("switch", "ecn "+pick(kv.V == "off" || kv.V == "false", "off", "given"))
		default:
			add("switch", kv.K)
		}
	}
	for _, kv := range s.HCA {
		if slices.Contains(ibParams(), kv.K) {
			continue // counted above
		}
		switch kv.K {
		case "cc", "grh", "apm", "vlarb":
		case "retransmit":
			add("hca", "retransmit "+kv.V)
		default:
			add("hca", kv.K)
		}
	}
	if s.MTU != 0 {
		add("hca", fmt.Sprintf("mtu %d", s.MTU))
	}
	for _, it := range s.Traffic {
		add("traffic", it.Kind)
		qp := or(get(it.Opts, "qp"), "rc")
		switch it.Kind {
		case "flow", "incast", "permutation", "all_to_all", "ring_allreduce", "poisson":
			add("qp", qp)
			add("op", or(get(it.Opts, "op"), "write"))
		case "perftest":
			add("perftest", get(it.Opts, "test")+" "+qp)
		case "pingpong":
			add("qp", qp+" (pingpong)")
		}
		if get(it.Opts, "connect") == "cm" {
			add("connect", "cm ("+it.Kind+")")
		}
		if it.Kind == "poisson" {
			sizes := get(it.Opts, "sizes")
			if _, ok := distMeans[sizes]; !ok {
				sizes = "a fixed size"
			}
			add("poisson sizes", sizes)
		}
		for _, k := range []string{"count", "messages", "post_list", "recv_at", "remote_mr", "start", "priority", "sl"} {
			if _, ok := Get(it.Opts, k); ok {
				add("traffic keys", k)
			}
		}
	}
	for _, f := range s.Faults {
		add("fault", f.Action)
	}
	for _, kv := range s.Observe {
		add("observe", kv.K)
	}
	if len(s.PcapHosts)+len(s.PcapPorts) > 0 {
		add("observe", "pcap")
	}
	for _, w := range s.When {
		add("stop", "when "+w)
	}
	if len(s.Expect) > 0 {
		add("expect", "given")
	}
	systems(s, add)
	collectiveFeatures(s, add)
	uecFeatures(s, add)
	return slices.Sorted(maps.Keys(set))
}

// collectiveFeatures adds the features of issue 48's traffic and
// topologies: collectives and nccl_tests, their keys, and GPU servers.
func collectiveFeatures(s *Spec, add func(family, value string)) {
	t := &s.Topo
	if t.Kind == "rail-optimized" {
		add("gpu servers", "rail-optimized")
		if t.Rails != t.GPUs {
			add("gpu servers", "rail-optimized, fewer rails than gpus")
		}
		if t.PerUnit != 0 {
			add("gpu servers", "rail-optimized, scalable units")
		}
	}
	if len(t.ServerGPUs) > 0 {
		add("gpu servers", "explicit servers:")
	}
	for _, it := range s.Traffic {
		if !collectiveKind(it.Kind) {
			continue
		}
		add(it.Kind, "op "+get(it.Opts, "op"))
		add(it.Kind, "algorithm "+or(get(it.Opts, "algorithm"), "(default)"))
		if p := get(it.Opts, "protocol"); p != "" {
			add(it.Kind, "protocol "+p)
		}
		for _, k := range []string{"channels", "qps", "chunk", "rail_aware", "pxn", "priority", "start", "iterations", "stepbytes", "warmup_iters"} {
			if _, ok := Get(it.Opts, k); ok {
				add(it.Kind, k)
			}
		}
		if it.To >= 0 {
			add(it.Kind, "root")
		}
		if len(it.After) > 0 {
			add(it.Kind, "after")
		}
		if t.HasServers() {
			add(it.Kind, "on gpu servers")
		}
		if s.IB {
			add(it.Kind, "on infiniband")
		}
	}
}

// systems adds the features of issue 47's systems: VPI (mixed networks),
// the overlay, range extenders and QoS as configured, and how they come
// together with each other.
func systems(s *Spec, add func(family, value string)) {
	t := &s.Topo
	var has []string // which systems, for their combinations
	if s.Mixed() {
		add("link layer", "mixed (vpi)")
		has = append(has, "vpi")
		add("vpi", pick(t.DualStar, "a star of vpi hosts", "explicit, switches of both link layers"))
		if t.SayEthernet {
			add("vpi", "link_layer: ethernet written")
		}
		for h := range t.NumHosts() {
			if _, two := t.SecondSwitch(h); two {
				add("vpi", pick(s.VPIHost(h), "a host on both fabrics", "a dual-port infiniband host beside them"))
			}
		}
		for _, kv := range s.SwitchIB {
			add("vpi", "switch.ib "+kv.K+" (the infiniband side)")
		}
		for _, it := range s.Traffic {
			switch {
			case it.Kind == "flow" && get(it.Opts, "port") == "2":
				add("vpi", "a flow from port 2")
			case it.Kind == "flow" && s.PortIB(it.From, 1):
				add("vpi", "a flow on the infiniband side")
			case it.Kind == "flow":
				add("vpi", "a flow on the ethernet side")
			case it.Kind != "asyncwatch":
				add("vpi", "traffic: "+it.Kind)
			}
		}
		for _, f := range s.Faults {
			if f.Port2 {
				add("vpi", "a fault at a host's port 2")
			}
		}
		ports := map[[2]int]bool{} // flows from a host's port; counted, never iterated
		for _, it := range s.Traffic {
			if it.Kind == "flow" {
				ports[[2]int{it.From, pick(get(it.Opts, "port") == "2", 2, 1)}] = true
			}
		}
		for h := range t.NumHosts() {
			if ports[[2]int{h, 1}] && ports[[2]int{h, 2}] {
				add("vpi", "flows from both ports of a host")
			}
		}
		if len(s.PcapPort2) > 0 {
			add("vpi", "pcap of a host's port 2")
		}
		if _, ok := Get(s.HCA, "cc"); ok {
			add("vpi", "hca.cc (the ethernet side)")
		}
	}
	for _, hb := range s.HostBlocks {
		for _, kv := range hb.KVs {
			add("a host's own hca", kv.K+pick(s.Mixed(), " on a mixed network", ""))
		}
	}
	if _, ok := Get(s.HCA, "host_bandwidth"); ok {
		add("host interface", pick(s.Mixed(), "host_bandwidth on a mixed network", "host_bandwidth on one link layer"))
	}
	if len(t.Extenders) > 0 {
		has = append(has, "range extenders")
		add("range extender", fmt.Sprintf("%d pair(s)", len(t.Extenders)))
		for _, x := range t.Extenders {
			add("range extender", "long haul "+Ns(x.LongNs))
			least := Bytes(int64(128<<10) * int64(or(atoi(get(s.SwitchIB, "data_vls")), 8)))
			for j := range 2 {
				if x.Buffer[j] == least {
					add("range extender", "buffer at its least (128 KiB a data VL)")
				}
				for _, kv := range x.Own[j] {
					add("range extender", "own "+kv.K)
				}
			}
		}
		for _, f := range s.Faults {
			if strings.HasPrefix(f.Link[0].Switch, "x") || strings.HasPrefix(f.Link[1].Switch, "x") {
				add("range extender", "a fault on an extender's link")
			}
		}
		if get(s.HCA, "cc") == "ibcc" {
			add("range extender", "with ib cc")
		}
	}
	if v, ok := Get(s.HCA, "overlay"); ok {
		has = append(has, "overlay")
		for _, e := range []string{"vxlan", "geneve"} {
			if strings.Contains(v, "encap: "+e) {
				add("overlay", e+" with "+or(s.Transport, "rocev2"))
			}
		}
		for _, k := range []string{"source_port", "options", "underlay_mtu"} {
			if strings.Contains(v, k+": ") {
				add("overlay", k)
			}
		}
		if strings.Contains(v, "underlay_mtu: 1500") {
			add("overlay", "underlay_mtu 1500 (a small MTU)")
		}
		if len(s.PcapHosts)+len(s.PcapPorts)+len(s.PcapPort2) > 0 {
			add("overlay", "pcap")
		}
	}
	for _, kv := range s.Switch {
		switch {
		case kv.K == "buffer" && strings.HasPrefix(kv.V, "{shared"):
			add("switch (sonic's keys)", "buffer: {shared}")
		case kv.K == "ecn" && strings.Contains(kv.V, "priorities:"):
			add("switch (sonic's keys)", "ecn.priorities")
		}
	}
	qos := false
	for _, kv := range s.Switch {
		switch {
		case kv.K == "trust":
			add("qos", "trust "+kv.V)
			qos = true
		case kv.K == "dscp2prio" || kv.K == "prio2tc":
			add("qos", kv.K)
			qos = true
		case kv.K == "scheduler" && strings.Contains(kv.V, "ets:"):
			add("qos", pick(strings.Contains(kv.V, "strict:"), "ets with strict classes", "ets"))
			qos = true
		}
	}
	if len(s.SwitchBlocks) > 0 {
		add("qos", "a switch's own block")
		qos = true
	}
	if _, ok := Get(s.HCA, "dscp"); ok {
		add("qos", "hca.dscp")
		qos = true
	}
	for _, it := range s.Traffic {
		if _, ok := Get(it.Opts, "dscp"); ok {
			add("qos", "a flow's dscp")
			qos = true
		}
	}
	for _, k := range []string{"cnp_dscp", "cnp_802p_prio", "rpg_gd", "rpg_min_dec_fac"} {
		if strings.Contains(get(s.HCA, "dcqcn"), k+": ") {
			add("qos", "hca.dcqcn."+k)
			qos = true
		}
	}
	if qos {
		has = append(has, "qos")
	}
	for i, a := range has {
		for _, b := range has[i+1:] {
			add("issue 47 together", a+" with "+b)
		}
	}
	if relabelReason(s) == "" {
		for _, x := range has {
			add("issue 47 relabelled", x)
		}
	}
	if len(has) > 0 && len(s.Faults) > 0 {
		add("issue 47 together", "with faults")
	}
}

// uecFeatures adds the features of issue 53's Ultra Ethernet: UET, its
// congestion control and spray, and the switches' cbfc, trim and llr,
// alone and with UET.
func uecFeatures(s *Spec, add func(family, value string)) {
	uet := s.Transport == "uet"
	if uet {
		cc := get(s.HCA, "cc")
		where := "hca.cc"
		if u := get(s.HCA, "uet"); strings.Contains(u, "cc: ") {
			cc, _, _ = strings.Cut(u[strings.Index(u, "cc: ")+len("cc: "):], ",")
			cc, where = strings.TrimSuffix(cc, "}"), "hca.uet.cc"
		}
		add("uet", "cc "+or(cc, "none (default)"))
		if cc != "" {
			add("uet", "cc given as "+where)
		}
		add("uet", "spray "+or(s.uetSpray(), "ecmp (default)"))
		if _, ok := Get(s.HCA, "nscc"); ok {
			add("uet", "hca.nscc keys")
		}
		if strings.Contains(get(s.HCA, "uet"), "receiver_credits: true") {
			add("uet", "receiver credits")
		}
		if s.has("collective") || s.has("nccl_tests") {
			add("uet", "collectives")
		}
		if len(s.Faults) > 0 {
			add("uet", "with faults")
		}
	} else if get(s.HCA, "cc") == "nscc" {
		add("uec", "nscc on "+or(s.Transport, "rocev2"))
	}
	for _, k := range []string{"cbfc", "trim", "llr"} {
		v, ok := Get(s.Switch, k)
		if !ok {
			continue
		}
		add("uec", k)
		if uet {
			add("uec", k+" with uet")
		}
		if k == "cbfc" && strings.HasPrefix(v, "{buffer") {
			add("uec", "cbfc buffer given")
		}
		if k == "llr" {
			for _, f := range s.Faults {
				if f.Action == "loss" {
					add("uec", "llr with a lossy link")
				}
			}
		}
	}
}

// atoi is strconv.Atoi's number, 0 when v is none.
func atoi(v string) int {
	n, _ := strconv.Atoi(v)
	return n
}

func get(kvs []KV, k string) string {
	v, _ := Get(kvs, k)
	return v
}

// or is v, or def when v is its zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Coverage counts the scenarios that used each feature.
type Coverage map[string]int

// Add counts s's features.
func (c Coverage) Add(s *Spec) {
	for _, f := range Features(s) {
		c[f]++
	}
}

// Table is the counts, family by family, as text.
func (c Coverage) Table() string {
	var b strings.Builder
	last := ""
	for _, f := range slices.Sorted(maps.Keys(c)) {
		family, value, _ := strings.Cut(f, ": ")
		if family != last {
			fmt.Fprintf(&b, "%s:\n", family)
			last = family
		}
		fmt.Fprintf(&b, "  %6d  %s\n", c[f], value)
	}
	return b.String()
}

// ibParams are the keys of hca: that hold an InfiniBand control's
// parameters (hca.<name>: the table's InfiniBand-only controls with
// parameters).
func ibParams() []string {
	return kind.Names(func(r kind.CC) bool { return r.InfiniBand && !r.Ethernet && len(r.Params) > 0 })
}
