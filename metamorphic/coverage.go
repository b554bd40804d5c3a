package metamorphic

import (
	"fmt"
	"maps"
	"slices"
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
	return slices.Sorted(maps.Keys(set))
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
