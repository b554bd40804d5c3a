package metamorphic

import "slices"

// Spec is a scenario as the generator makes it: the shape of its file
// with hosts by index, so that the relations can transform it (relabel
// its hosts, make its load steady, switch its observers off) and the
// shrinker reduce it. Render writes it as YAML. Keys that no relation
// touches are kept as key and value text (KV), in the order written.
type Spec struct {
	// Seed is the generator's seed, which made this scenario; the file's
	// seed: is the same number.
	Seed uint64
	// StopNs is stop.at in ns; When its when: conditions (flows-done,
	// deadlock).
	StopNs int64
	When   []string
	Topo   Topo
	// IB is switch.link_layer: infiniband.
	IB bool
	// Transport is hca.transport on Ethernet: rocev2 (written only when
	// Explicit), rocev1 or iwarp.
	Transport string
	// MTU is hca.mtu (the generator keeps UD sizes within it).
	MTU int
	// Switch, SwitchIB, SM, HCA, Observe and Expect are the keys of
	// switch:, switch.ib:, subnet_manager:, hca:, observe: and expect:.
	Switch   []KV
	SwitchIB []KV
	SM       []KV
	HCA      []KV
	Observe  []KV
	Expect   []KV
	// PcapHosts are observe.pcap's hosts, by index (ports and switches
	// are in Observe's pcap key, PcapPorts).
	PcapHosts []int
	PcapPorts []string
	// PcapPort2 are the hosts whose port 2 observe.pcap captures (hN/2:
	// a VPI host's port on its other fabric).
	PcapPort2 []int
	// SwitchBlocks are switches' own blocks (topology.switches[i].switch)
	// beside their link_layer, by switch index: an explicit topology's.
	SwitchBlocks []SwitchBlock
	// HostBlocks are hosts' own hca: blocks (topology.hosts[i].hca), by
	// host index: an explicit topology's.
	HostBlocks []HostBlock
	Traffic    []Item
	Faults     []Fault
}

// HostBlock is one host's own hca: keys.
type HostBlock struct {
	Host int
	KVs  []KV
}

// SwitchBlock is one switch's own keys.
type SwitchBlock struct {
	Switch int
	KVs    []KV
}

// KV is one key and its value as YAML text (a scalar, or a flow mapping
// or sequence).
type KV struct{ K, V string }

// Topo is the topology: a generated kind, or an explicit one.
type Topo struct {
	Kind string // star, dumbbell, leaf-spine, fat-tree, ring, explicit, rail-optimized
	// Hosts (star), Left and Right (dumbbell), Leaves, Spines and
	// HostsPerLeaf (leaf-spine), K (fat-tree), Switches and
	// HostsPerSwitch (ring, explicit).
	Hosts, Left, Right, Leaves, Spines, HostsPerLeaf, K, Switches, HostsPerSwitch int
	// Rail-optimized (issue 48): Servers of GPUs GPUs each, Rails rail
	// switches a scalable unit of PerUnit servers (0: the default, 32),
	// and Spines; NVLink is its nvlink: ("" for the default). The model
	// names its hosts hN and switches sN (rails unit by unit, then the
	// spines), as every other kind; Render writes them as the
	// generator names them (sS/gG, railR or suU.railR, spineJ).
	Servers, GPUs, Rails, PerUnit int
	NVLink                        string
	// ServerGPUs are an explicit topology's GPU servers (its servers:),
	// each its hosts in GPU order; ServerNVLink each one's own nvlink:
	// ("" for the default).
	ServerGPUs   [][]int
	ServerNVLink []string
	// Rate and DelayNs are the link profile; Rate2 and Delay2Ns a
	// dumbbell's bottleneck or a leaf-spine's fabric link ("" for none).
	Rate     string
	DelayNs  int64
	Rate2    string
	Delay2Ns int64
	// Routing is topology.routing (Ethernet; "" for the default).
	Routing string
	// Explicit: SwitchLinks are the links between switches, by switch
	// index; DualPort the hosts linked twice, SecondTo the switch of each
	// one's second link (its port 2): on InfiniBand the next switch (a
	// dual-port HCA), on a mixed network a switch of the other fabric (a
	// VPI adapter) or of the same InfiniBand fabric.
	SwitchLinks [][2]int
	DualPort    []int
	SecondTo    []int
	// IBSwitch, on an Ethernet network (a mixed one, VPI), says which
	// switches give their own link_layer: infiniband; SayEthernet has the
	// others write link_layer: ethernet too. Nil: one link layer.
	IBSwitch    []bool
	SayEthernet bool
	// Extenders are pairs of InfiniBand range extenders, each put into
	// one link between switches (explicit, InfiniBand).
	Extenders []Extender
	// AsExplicit writes a star as kind: explicit with the same nodes in
	// the same order and the same ports (the two must run alike).
	AsExplicit bool
	// DualStar (with AsExplicit) gives the star a second switch, s1, on
	// the other link layer, and every host a second link to it (its port
	// 2, in host order: s1's port pI faces hI/2): a star of VPI hosts.
	DualStar bool
}

// Extender is a pair of range extenders, x(2i) and x(2i+1), put into
// switch link Link (an index of SwitchLinks): its switches a and b are
// linked as a—x(2i)—x(2i+1)—b, the long haul between the extenders of
// LongNs one way. Buffer is each one's range_extender.buffer; Own the
// other keys of its block (latency, forwarding).
type Extender struct {
	Link   int
	LongNs int64
	Buffer [2]string
	Own    [2][]KV
}

// Item is one traffic: item. Hosts are indices; -1 is none.
type Item struct {
	Kind string
	// From and To: flow, perftest and pingpong's from and to; rping's
	// client and server; rdma_client's host and server; rdma_server's
	// and mckey's host or sender (From); poisson's and incast's to (To).
	From, To int
	// Hosts: incast's from, permutation's, all_to_all's, ring_allreduce's,
	// poisson's and asyncwatch's hosts, mckey's receivers; All writes all.
	Hosts []int
	All   bool
	// Opts are the item's other keys, in order.
	Opts []KV
	// After is a collective's after: (earlier traffic items, by index).
	// A collective's and nccl_tests' root: is To.
	After []int
}

// Fault is one faults: entry. A link is two nodes: a host by index
// (Switch "") or a switch by name.
type Fault struct {
	AtNs   int64
	Action string
	Link   [2]Node
	Host   int // pfc-storm, slow-receiver, rx-hang; missing-entry's dst
	// Port2 names the host's port 2 (hN/2) for a fault of its NIC.
	Port2  bool
	Switch string
	Opts   []KV
}

// Node is a host (by index) or a switch (by name) at a link's end.
type Node struct {
	Host   int
	Switch string
	// Port2 names the host's port 2 (hN/2): a dual-port InfiniBand
	// HCA's second link is named by it.
	Port2 bool
}

// Clone returns a deep copy.
func (s *Spec) Clone() *Spec {
	c := *s
	c.When = slices.Clone(s.When)
	c.Topo.SwitchLinks = slices.Clone(s.Topo.SwitchLinks)
	c.Topo.DualPort = slices.Clone(s.Topo.DualPort)
	c.Topo.SecondTo = slices.Clone(s.Topo.SecondTo)
	c.Topo.IBSwitch = slices.Clone(s.Topo.IBSwitch)
	c.Topo.ServerGPUs = slices.Clone(s.Topo.ServerGPUs)
	for i, sv := range c.Topo.ServerGPUs {
		c.Topo.ServerGPUs[i] = slices.Clone(sv)
	}
	c.Topo.ServerNVLink = slices.Clone(s.Topo.ServerNVLink)
	c.Topo.Extenders = slices.Clone(s.Topo.Extenders)
	for i, x := range c.Topo.Extenders {
		c.Topo.Extenders[i].Own = [2][]KV{slices.Clone(x.Own[0]), slices.Clone(x.Own[1])}
	}
	c.PcapPort2 = slices.Clone(s.PcapPort2)
	c.SwitchBlocks = slices.Clone(s.SwitchBlocks)
	for i, b := range c.SwitchBlocks {
		c.SwitchBlocks[i].KVs = slices.Clone(b.KVs)
	}
	c.HostBlocks = slices.Clone(s.HostBlocks)
	for i, b := range c.HostBlocks {
		c.HostBlocks[i].KVs = slices.Clone(b.KVs)
	}
	c.Switch, c.SwitchIB, c.SM, c.HCA = slices.Clone(s.Switch), slices.Clone(s.SwitchIB), slices.Clone(s.SM), slices.Clone(s.HCA)
	c.Observe, c.Expect = slices.Clone(s.Observe), slices.Clone(s.Expect)
	c.PcapHosts, c.PcapPorts = slices.Clone(s.PcapHosts), slices.Clone(s.PcapPorts)
	c.Traffic = make([]Item, len(s.Traffic))
	for i, it := range s.Traffic {
		it.Hosts = slices.Clone(it.Hosts)
		it.Opts = slices.Clone(it.Opts)
		it.After = slices.Clone(it.After)
		c.Traffic[i] = it
	}
	c.Faults = make([]Fault, len(s.Faults))
	for i, f := range s.Faults {
		f.Opts = slices.Clone(f.Opts)
		c.Faults[i] = f
	}
	return &c
}

// Get returns the value of key k in kvs, and whether it is there.
func Get(kvs []KV, k string) (string, bool) {
	for _, kv := range kvs {
		if kv.K == k {
			return kv.V, true
		}
	}
	return "", false
}

// Set gives key k the value v, in place or at the end.
func Set(kvs []KV, k, v string) []KV {
	for i := range kvs {
		if kvs[i].K == k {
			kvs[i].V = v
			return kvs
		}
	}
	return append(kvs, KV{k, v})
}

// Del removes key k.
func Del(kvs []KV, k string) []KV {
	return slices.DeleteFunc(kvs, func(kv KV) bool { return kv.K == k })
}

// NumHosts is how many hosts the topology has.
func (t *Topo) NumHosts() int {
	switch t.Kind {
	case "star":
		return t.Hosts
	case "dumbbell":
		return t.Left + t.Right
	case "leaf-spine":
		return t.Leaves * t.HostsPerLeaf
	case "fat-tree":
		return t.K * t.K * t.K / 4
	case "rail-optimized":
		return t.Servers * t.GPUs
	}
	return t.Switches * t.HostsPerSwitch // ring, explicit
}

// NumSwitches is how many switches it has.
func (t *Topo) NumSwitches() int {
	switch t.Kind {
	case "star":
		if t.DualStar {
			return 2
		}
		return 1
	case "dumbbell":
		return 2
	case "leaf-spine":
		return t.Leaves + t.Spines
	case "fat-tree":
		return t.K*t.K + t.K*t.K/4
	case "rail-optimized":
		return t.units()*t.Rails + t.Spines
	}
	return t.Switches
}

// HostSwitch is the switch host h is linked to (its first link).
func (t *Topo) HostSwitch(h int) int {
	switch t.Kind {
	case "star":
		return 0
	case "dumbbell":
		if h < t.Left {
			return 0
		}
		return 1
	case "leaf-spine":
		return h / t.HostsPerLeaf
	case "fat-tree":
		return h / (t.K / 2)
	case "rail-optimized":
		// GPU g of a server is on rail g / (GPUs / Rails) of its unit.
		return h/t.GPUs/t.perUnit()*t.Rails + h%t.GPUs/(t.GPUs/t.Rails)
	}
	return h / t.HostsPerSwitch
}

// SwitchPairs are the links between switches, by switch index.
func (t *Topo) SwitchPairs() [][2]int {
	var out [][2]int
	switch t.Kind {
	case "dumbbell":
		out = append(out, [2]int{0, 1})
	case "leaf-spine":
		for l := range t.Leaves {
			for s := range t.Spines {
				out = append(out, [2]int{l, t.Leaves + s})
			}
		}
	case "fat-tree":
		k, half := t.K, t.K/2
		for e := range k * half { // edge e of pod e/half to each aggregation of its pod
			for j := range half {
				out = append(out, [2]int{e, k*half + (e/half)*half + j})
			}
		}
		for a := range k * half { // aggregation j of a pod to cores j*half..
			for c := range half {
				out = append(out, [2]int{k*half + a, k*k + (a%half)*half + c})
			}
		}
	case "ring":
		for i := range t.Switches {
			out = append(out, [2]int{i, (i + 1) % t.Switches})
		}
	case "rail-optimized":
		for r := range t.units() * t.Rails { // every rail switch to every spine
			for j := range t.Spines {
				out = append(out, [2]int{r, t.units()*t.Rails + j})
			}
		}
	case "explicit":
		out = slices.Clone(t.SwitchLinks)
	}
	return out
}

// maxPorts is the most ports a switch of the topology has.
func (t *Topo) maxPorts() int {
	switch t.Kind {
	case "star":
		return t.Hosts
	case "dumbbell":
		return max(t.Left, t.Right) + 1
	case "leaf-spine":
		return max(t.HostsPerLeaf+t.Spines, t.Leaves)
	case "fat-tree":
		return t.K
	case "rail-optimized":
		return max(t.perUnit()*t.GPUs/t.Rails+t.Spines, t.units()*t.Rails)
	}
	return t.HostsPerSwitch + len(t.DualPort) + 2 // ring, explicit
}

// perUnit is a rail-optimized fabric's servers a scalable unit (its
// servers_per_rail_switch, 32 by default), at most its servers.
func (t *Topo) perUnit() int {
	if t.PerUnit == 0 {
		return min(32, t.Servers)
	}
	return min(t.PerUnit, t.Servers)
}

// units is how many scalable units a rail-optimized fabric has.
func (t *Topo) units() int { return (t.Servers + t.perUnit() - 1) / t.perUnit() }

// HasServers says whether the topology has GPU servers.
func (t *Topo) HasServers() bool { return t.Kind == "rail-optimized" || len(t.ServerGPUs) > 0 }

// ServerOf is host h's server and GPU, or -1 when it is in none.
func (t *Topo) ServerOf(h int) (int, int) {
	if t.Kind == "rail-optimized" {
		return h / t.GPUs, h % t.GPUs
	}
	for sv, gpus := range t.ServerGPUs {
		if g := slices.Index(gpus, h); g >= 0 {
			return sv, g
		}
	}
	return -1, 0
}
