package metamorphic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Host is host i's name.
func Host(i int) string { return "h" + strconv.Itoa(i) }

// Switch is switch i's name.
func Switch(i int) string { return "s" + strconv.Itoa(i) }

// hostList writes hosts as a flow sequence.
func hostList(hs []int) string {
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = Host(h)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// flowMap writes keys as a YAML flow mapping.
func flowMap(kvs []KV) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.K + ": " + kv.V
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Ns writes a time in ns as a scenario writes it.
func Ns(ns int64) string {
	switch {
	case ns == 0:
		return "0"
	case ns%1000000 == 0:
		return strconv.FormatInt(ns/1000000, 10) + "ms"
	case ns%1000 == 0:
		return strconv.FormatInt(ns/1000, 10) + "us"
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

// Bytes writes a size as a scenario writes it.
func Bytes(b int64) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return strconv.FormatInt(b>>20, 10) + "MiB"
	case b >= 1<<10 && b%(1<<10) == 0:
		return strconv.FormatInt(b>>10, 10) + "KiB"
	}
	return strconv.FormatInt(b, 10)
}

// Render writes the scenario as a file, name its name: keys in the
// order of SCENARIO.md, sections in block style and their small parts
// in flow style, as people write them.
func (s *Spec) Render(name string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("name: %s\n", name)
	w("seed: %d\n", s.Seed)
	stop := []KV{{"at", Ns(s.StopNs)}}
	switch len(s.When) {
	case 1:
		stop = append(stop, KV{"when", s.When[0]})
	case 2:
		stop = append(stop, KV{"when", "[" + strings.Join(s.When, ", ") + "]"})
	}
	w("stop: %s\n", flowMap(stop))
	s.renderTopology(&b)
	sw := s.Switch
	if s.IB {
		sw = append([]KV{{"link_layer", "infiniband"}}, sw...)
	}
	if len(sw) > 0 || len(s.SwitchIB) > 0 {
		w("switch:\n")
		for _, kv := range sw {
			w("  %s: %s\n", kv.K, kv.V)
		}
		if len(s.SwitchIB) > 0 {
			w("  ib:\n")
			for _, kv := range s.SwitchIB {
				w("    %s: %s\n", kv.K, kv.V)
			}
		}
	}
	if len(s.SM) > 0 {
		w("subnet_manager: %s\n", flowMap(s.SM))
	}
	hca := s.HCA
	if s.MTU != 0 {
		hca = append([]KV{{"mtu", strconv.Itoa(s.MTU)}}, hca...)
	}
	if s.Transport != "" {
		hca = append([]KV{{"transport", s.Transport}}, hca...)
	}
	if len(hca) > 0 {
		w("hca:\n")
		for _, kv := range hca {
			w("  %s: %s\n", kv.K, kv.V)
		}
	}
	if len(s.Traffic) > 0 {
		w("traffic:\n")
		for _, it := range s.Traffic {
			kvs := append(it.hostKeys(), it.Opts...)
			if len(it.After) > 0 {
				kvs = append(kvs, KV{"after", afterList(it.After)})
			}
			w("  - %s: %s\n", it.Kind, flowMap(kvs))
		}
	}
	if len(s.Faults) > 0 {
		w("faults:\n")
		for _, f := range s.Faults {
			w("  - %s\n", flowMap(f.keys()))
		}
	}
	obs := s.Observe
	if len(s.PcapHosts)+len(s.PcapPorts)+len(s.PcapPort2) > 0 {
		var names []string
		for _, h := range s.PcapHosts {
			names = append(names, Host(h))
		}
		for _, h := range s.PcapPort2 {
			names = append(names, Host(h)+"/2")
		}
		names = append(names, s.PcapPorts...)
		obs = append(obs, KV{"pcap", "[" + strings.Join(names, ", ") + "]"})
	}
	if len(obs) > 0 {
		w("observe:\n")
		for _, kv := range obs {
			w("  %s: %s\n", kv.K, kv.V)
		}
	}
	if len(s.Expect) > 0 {
		w("expect:\n")
		for _, kv := range s.Expect {
			w("  %s: %s\n", kv.K, kv.V)
		}
	}
	if s.Topo.Kind == "rail-optimized" {
		return s.Topo.railNames(b.String())
	}
	return b.String()
}

// nodeRe is a host or a switch as the model names them (hN, sN).
var nodeRe = regexp.MustCompile(`\b[hs]\d+\b`)

// railNames writes a rail-optimized fabric's nodes as its generator
// names them: host hN is GPU N mod G of server N / G (sS/gG), switch sN
// a rail switch (railR, or suU.railR with more than one scalable unit)
// or, after them, a spine (spineJ).
func (t *Topo) railNames(text string) string {
	rails := t.units() * t.Rails
	return nodeRe.ReplaceAllStringFunc(text, func(name string) string {
		n, _ := strconv.Atoi(name[1:])
		switch {
		case name[0] == 'h':
			return fmt.Sprintf("s%d/g%d", n/t.GPUs, n%t.GPUs)
		case n >= rails:
			return fmt.Sprintf("spine%d", n-rails)
		case t.units() > 1:
			return fmt.Sprintf("su%d.rail%d", n/t.Rails, n%t.Rails)
		}
		return fmt.Sprintf("rail%d", n)
	})
}

func (s *Spec) renderTopology(b *strings.Builder) {
	t := &s.Topo
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	link := func(rate string, delay int64) string {
		return flowMap([]KV{{"rate", rate}, {"delay", Ns(delay)}})
	}
	w("topology:\n")
	if t.Kind == "star" && t.AsExplicit {
		// The same nodes and ports as kind: star makes (s0's port pI
		// faces hI), though in another order: an explicit topology
		// declares its hosts first, fabric.Star s0 first. A dual star's
		// s1 has port pI facing hI/2.
		w("  kind: explicit\n")
		s.renderSwitches(b)
		w("  hosts: %s\n", hostList(seq(t.Hosts)))
		w("  link: %s\n  links:\n", link(t.Rate, t.DelayNs))
		for h := range t.Hosts {
			w("    - [s0, %s]\n", Host(h))
		}
		if t.DualStar {
			for h := range t.Hosts {
				w("    - [s1, %s]\n", Host(h))
			}
		}
	} else {
		w("  kind: %s\n", t.Kind)
		switch t.Kind {
		case "star":
			w("  hosts: %d\n", t.Hosts)
		case "dumbbell":
			w("  left: %d\n  right: %d\n", t.Left, t.Right)
		case "leaf-spine":
			w("  leaves: %d\n  spines: %d\n  hosts_per_leaf: %d\n", t.Leaves, t.Spines, t.HostsPerLeaf)
		case "fat-tree":
			w("  k: %d\n", t.K)
		case "rail-optimized":
			w("  servers: %d\n  gpus_per_server: %d\n  spines: %d\n", t.Servers, t.GPUs, t.Spines)
			if t.Rails != t.GPUs {
				w("  rails: %d\n", t.Rails)
			}
			if t.PerUnit != 0 {
				w("  servers_per_rail_switch: %d\n", t.PerUnit)
			}
			if t.NVLink != "" {
				w("  nvlink: %s\n", t.NVLink)
			}
		case "ring":
			w("  switches: %d\n  hosts_per_switch: %d\n", t.Switches, t.HostsPerSwitch)
		case "explicit":
			w("  hosts: %s\n", s.hostDecls())
			s.renderSwitches(b)
		}
		switch t.Kind {
		case "leaf-spine", "rail-optimized":
			w("  host_link: %s\n", link(t.Rate, t.DelayNs))
			if t.Rate2 != "" {
				w("  fabric_link: %s\n", link(t.Rate2, t.Delay2Ns))
			}
		default:
			w("  link: %s\n", link(t.Rate, t.DelayNs))
		}
		if t.Kind == "dumbbell" && t.Rate2 != "" {
			w("  bottleneck: %s\n", link(t.Rate2, t.Delay2Ns))
		}
		if t.Kind == "explicit" && len(t.ServerGPUs) > 0 {
			w("  servers:\n")
			for i, gpus := range t.ServerGPUs {
				kvs := []KV{{"name", fmt.Sprintf("srv%d", i)}, {"gpus", hostList(gpus)}}
				if t.ServerNVLink[i] != "" {
					kvs = append(kvs, KV{"nvlink", t.ServerNVLink[i]})
				}
				w("    - %s\n", flowMap(kvs))
			}
		}
		if t.Kind == "explicit" {
			w("  links:\n")
			for h := range t.NumHosts() {
				w("    - [%s, %s]\n", Host(h), Switch(t.HostSwitch(h)))
			}
			for i, h := range t.DualPort {
				w("    - [%s, %s]\n", Host(h), Switch(t.SecondTo[i]))
			}
			for i, l := range t.SwitchLinks {
				ends := [][2]string{{Switch(l[0]), Switch(l[1])}}
				long := -1
				if k := t.extenderOn(i); k >= 0 {
					xa, xb := ExtenderName(2*k), ExtenderName(2*k+1)
					ends = [][2]string{{Switch(l[0]), xa}, {xa, xb}, {xb, Switch(l[1])}}
					long = 1
				}
				for j, e := range ends {
					switch {
					case j == long:
						kvs := []KV{{"a", e[0]}, {"b", e[1]}}
						if t.Rate2 != "" {
							kvs = append(kvs, KV{"rate", t.Rate2})
						}
						w("    - %s\n", flowMap(append(kvs, KV{"delay", Ns(t.Extenders[t.extenderOn(i)].LongNs)})))
					case t.Rate2 != "":
						w("    - {a: %s, b: %s, rate: %s, delay: %s}\n", e[0], e[1], t.Rate2, Ns(t.Delay2Ns))
					default:
						w("    - [%s, %s]\n", e[0], e[1])
					}
				}
			}
		}
	}
	if t.Routing != "" {
		w("  routing: %s\n", t.Routing)
	}
}

// renderSwitches writes an explicit topology's switches: by name, or
// with their own blocks (a link layer, QoS keys, a range extender's).
func (s *Spec) renderSwitches(b *strings.Builder) {
	t := &s.Topo
	var decls []string
	own := false
	for i := range t.NumSwitches() {
		var kvs []KV
		if t.IBSwitch != nil && (t.IBSwitch[i] || t.SayEthernet) {
			kvs = append(kvs, KV{"link_layer", pick(t.IBSwitch[i], "infiniband", "ethernet")})
		}
		for _, sb := range s.SwitchBlocks {
			if sb.Switch == i {
				kvs = append(kvs, sb.KVs...)
			}
		}
		decls = append(decls, switchDecl(Switch(i), kvs))
		own = own || len(kvs) > 0
	}
	for k, x := range t.Extenders {
		for j := range 2 {
			kvs := append([]KV{{"range_extender", flowMap([]KV{{"buffer", x.Buffer[j]}})}}, x.Own[j]...)
			decls = append(decls, switchDecl(ExtenderName(2*k+j), kvs))
			own = true
		}
	}
	if !own {
		fmt.Fprintf(b, "  switches: [%s]\n", strings.Join(decls, ", "))
		return
	}
	b.WriteString("  switches:\n")
	for _, d := range decls {
		fmt.Fprintf(b, "    - %s\n", d)
	}
}

// hostDecls are an explicit topology's hosts, as a flow sequence: by
// name, or {name, hca} with a host's own block.
func (s *Spec) hostDecls() string {
	names := make([]string, s.Topo.NumHosts())
	for h := range names {
		names[h] = Host(h)
		for _, hb := range s.HostBlocks {
			if hb.Host == h {
				names[h] = flowMap([]KV{{"name", Host(h)}, {"hca", flowMap(hb.KVs)}})
			}
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// switchDecl is a switch's declaration: its name, or {name, switch}.
func switchDecl(name string, kvs []KV) string {
	if len(kvs) == 0 {
		return name
	}
	return flowMap([]KV{{"name", name}, {"switch", flowMap(kvs)}})
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// hostKeys are an item's keys that name hosts, first as people write
// them.
func (it *Item) hostKeys() []KV {
	list := func() string {
		if it.All {
			return "all"
		}
		return hostList(it.Hosts)
	}
	switch it.Kind {
	case "flow", "perftest", "pingpong":
		return []KV{{"from", Host(it.From)}, {"to", Host(it.To)}}
	case "incast":
		return []KV{{"to", Host(it.To)}, {"from", list()}}
	case "permutation", "all_to_all", "ring_allreduce", "asyncwatch":
		return []KV{{"hosts", list()}}
	case "poisson":
		kvs := []KV{{"hosts", list()}}
		if it.To >= 0 {
			kvs = append(kvs, KV{"to", Host(it.To)})
		}
		return kvs
	case "rping":
		return []KV{{"client", Host(it.From)}, {"server", Host(it.To)}}
	case "rdma_server":
		return []KV{{"host", Host(it.From)}}
	case "rdma_client":
		return []KV{{"host", Host(it.From)}, {"server", Host(it.To)}}
	case "mckey":
		return []KV{{"sender", Host(it.From)}, {"receivers", list()}}
	case "collective", "nccl_tests":
		kvs := []KV{{"hosts", list()}}
		if it.To >= 0 {
			kvs = append(kvs, KV{"root", Host(it.To)})
		}
		return kvs
	}
	panic("metamorphic: no such traffic kind " + it.Kind)
}

// keys are a fault's keys as written.
func (f *Fault) keys() []KV {
	kvs := []KV{{"at", Ns(f.AtNs)}}
	switch f.Action {
	case "loss", "down", "up":
		kvs = append(kvs, KV{"link", "[" + f.Link[0].Name() + ", " + f.Link[1].Name() + "]"})
	case "missing-entry":
		kvs = append(kvs, KV{"switch", f.Switch}, KV{"dst", Host(f.Host)})
	default:
		kvs = append(kvs, KV{"host", Host(f.Host) + pick(f.Port2, "/2", "")})
	}
	kvs = append(kvs, KV{"action", f.Action})
	return append(kvs, f.Opts...)
}

// Name is the node's name.
func (n Node) Name() string {
	if n.Switch != "" {
		return n.Switch
	}
	return Host(n.Host) + pick(n.Port2, "/2", "")
}
