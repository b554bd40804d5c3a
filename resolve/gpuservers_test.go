package resolve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestRailOptimizedStructure: a rail-optimized fabric (issue 48) puts
// NIC g of every server of a scalable unit on that unit's rail switch g
// (port: the server's place in its unit), links every rail switch to
// every spine (spine j on the port after the servers; spine port i
// faces the i-th rail switch), names GPUs sS/gG, rail switches rail0..
// (suU.railR with several units) and spines spine0.., and lists its
// servers, GPUs in GPU order, with their scale-up domain: NVLink 4's
// 3.6 Tb/s and 600 ns unless nvlink says otherwise (kind.DefaultNVLink).
func TestRailOptimizedStructure(t *testing.T) {
	for _, c := range []struct {
		name, keys                               string
		servers, gpus, rails, units, spines, per int // per: servers a unit
		nvlink                                   fabric.LinkSpec
	}{
		{"4x4", "servers: 4, gpus_per_server: 4, spines: 2", 4, 4, 4, 1, 2, 32,
			fabric.LinkSpec{Rate: 3600 * fabric.Gbps, Delay: 600 * sim.Nanosecond}},
		{"default GPUs, NVLink given", "servers: 2, spines: 3, nvlink: {rate: 7.2Tbps, delay: 1us}", 2, 8, 8, 1, 3, 32,
			fabric.LinkSpec{Rate: 7200 * fabric.Gbps, Delay: sim.Microsecond}},
		{"three units, the last short", "servers: 5, gpus_per_server: 2, servers_per_rail_switch: 2, spines: 2", 5, 2, 2, 3, 2, 2,
			fabric.LinkSpec{Rate: 3600 * fabric.Gbps, Delay: 600 * sim.Nanosecond}},
		{"two rails of four GPUs", "servers: 3, gpus_per_server: 8, rails: 2, spines: 1, nvlink: {delay: 250ns}", 3, 8, 2, 1, 1, 32,
			fabric.LinkSpec{Rate: 3600 * fabric.Gbps, Delay: 250 * sim.Nanosecond}},
	} {
		s, err := Parse("t.yaml", []byte("topology: {kind: rail-optimized, "+c.keys+"}\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tp := s.Topology
		leaves := c.units * c.rails
		if h, n, l := len(tp.Hosts()), len(tp.Nodes), len(tp.Links); h != c.servers*c.gpus || n != h+leaves+c.spines || l != h+leaves*c.spines {
			t.Errorf("%s: %d hosts, %d nodes, %d links; want %d, %d, %d", c.name, h, n, l,
				c.servers*c.gpus, c.servers*c.gpus+leaves+c.spines, c.servers*c.gpus+leaves*c.spines)
			continue
		}
		node := func(name string) fabric.NodeID {
			id, ok := tp.Lookup(name)
			if !ok {
				t.Fatalf("%s: no node %s", c.name, name)
			}
			return id
		}
		rail := func(u, r int) string {
			if c.units == 1 {
				return fmt.Sprintf("rail%d", r)
			}
			return fmt.Sprintf("su%d.rail%d", u, r)
		}
		per := c.gpus / c.rails
		if len(s.Servers) != c.servers {
			t.Fatalf("%s: %d servers, want %d", c.name, len(s.Servers), c.servers)
		}
		for sv := range c.servers {
			u := sv / c.per
			server := s.Servers[sv]
			if server.Name != fmt.Sprintf("s%d", sv) || len(server.GPUs) != c.gpus || server.ScaleUp != (ScaleUp{Rate: c.nvlink.Rate, Delay: c.nvlink.Delay}) {
				t.Errorf("%s: server %d is %s with %d GPUs and %+v", c.name, sv, server.Name, len(server.GPUs), server.ScaleUp)
			}
			for g := range c.gpus {
				h := node(fmt.Sprintf("s%d/g%d", sv, g))
				if server.GPUs[g] != h {
					t.Errorf("%s: server %d's GPU %d is %s", c.name, sv, g, tp.Nodes[server.GPUs[g]].Name)
				}
				if si, gi, ok := s.ServerOf(h); !ok || si != sv || gi != g {
					t.Errorf("%s: ServerOf(%s) = %d, %d, %v", c.name, tp.Nodes[h].Name, si, gi, ok)
				}
				ports := tp.Nodes[h].Ports
				leaf := node(rail(u, g/per))
				if wantPort := (sv-u*c.per)*per + g%per; len(ports) != 1 || ports[0].Peer != leaf || ports[0].PeerPort != wantPort {
					t.Errorf("%s: %s is on %v, want %s:p%d", c.name, tp.Nodes[h].Name, ports, rail(u, g/per), wantPort)
				}
			}
		}
		for i := range leaves {
			leaf := node(rail(i/c.rails, i%c.rails))
			ports := tp.Nodes[leaf].Ports
			down := min(c.per, c.servers-i/c.rails*c.per) * per
			if len(ports) != down+c.spines {
				t.Errorf("%s: %s has %d ports, want %d down and %d up", c.name, tp.Nodes[leaf].Name, len(ports), down, c.spines)
				continue
			}
			for j := range c.spines {
				if sp := node(fmt.Sprintf("spine%d", j)); ports[down+j].Peer != sp || ports[down+j].PeerPort != i {
					t.Errorf("%s: %s:p%d faces %s:p%d, want spine%d:p%d", c.name, tp.Nodes[leaf].Name, down+j,
						tp.Nodes[ports[down+j].Peer].Name, ports[down+j].PeerPort, j, i)
				}
			}
		}
		for j := range c.spines {
			if n := len(tp.Nodes[node(fmt.Sprintf("spine%d", j))].Ports); n != leaves {
				t.Errorf("%s: spine%d has %d ports, want one a rail switch, %d", c.name, j, n, leaves)
			}
		}
	}
}

// TestRailOptimizedPaths: between GPUs of different servers in one
// scalable unit, every path the routing tables allow from the same
// rail stays on that rail's switch (leaf, never a spine), and every path
// across rails, or between units, crosses a spine (leaf, spine, leaf),
// with ECMP on Ethernet and with the subnet manager's tables on
// InfiniBand.
func TestRailOptimizedPaths(t *testing.T) {
	for _, extra := range []string{"", "switch: {link_layer: infiniband}\n"} {
		s, err := Parse("t.yaml", []byte("topology: {kind: rail-optimized, servers: 6, gpus_per_server: 4, servers_per_rail_switch: 3, spines: 2}\n"+extra))
		if err != nil {
			t.Fatal(err)
		}
		tp := s.Topology
		// paths walks every path the tables allow from src's switch to
		// dst's host, returning the switch counts seen and whether any
		// path crossed a spine and any avoided one.
		paths := func(src, dst fabric.NodeID) (hops map[int]bool, spine, noSpine bool) {
			hops = map[int]bool{}
			var walk func(at fabric.NodeID, n int, viaSpine bool)
			walk = func(at fabric.NodeID, n int, viaSpine bool) {
				if at == dst {
					hops[n-1] = true // n counts the host too
					spine, noSpine = spine || viaSpine, noSpine || !viaSpine
					return
				}
				if n > 4 {
					t.Fatalf("a path from %s to %s is longer than 4 switches", tp.Nodes[src].Name, tp.Nodes[dst].Name)
				}
				viaSpine = viaSpine || strings.HasPrefix(tp.Nodes[at].Name, "spine")
				for _, p := range s.Routes.NextPorts(at, dst) {
					walk(tp.Nodes[at].Ports[p].Peer, n+1, viaSpine)
				}
			}
			walk(tp.Nodes[src].Ports[0].Peer, 1, false)
			return hops, spine, noSpine
		}
		pairs := 0
		for _, a := range tp.Hosts() {
			for _, b := range tp.Hosts() {
				sa, ga, _ := s.ServerOf(a)
				sb, gb, _ := s.ServerOf(b)
				if sa == sb {
					continue
				}
				pairs++
				hops, spine, noSpine := paths(a, b)
				local := ga == gb && sa/3 == sb/3 // same rail, same unit
				switch {
				case local && (spine || len(hops) != 1 || !hops[1]):
					t.Errorf("%s: %s to %s (same rail) takes %v switches, a spine %v", extra, tp.Nodes[a].Name, tp.Nodes[b].Name, hops, spine)
				case !local && (noSpine || len(hops) != 1 || !hops[3]):
					t.Errorf("%s: %s to %s (across rails or units) takes %v switches, one without a spine %v", extra, tp.Nodes[a].Name, tp.Nodes[b].Name, hops, noSpine)
				}
			}
		}
		if pairs != 24*20 {
			t.Errorf("%d pairs walked, want 24 x 20", pairs)
		}
	}
}

// TestRailOptimizedScale: issue 48's scale fabric, 128 servers of 8 GPUs
// at 400 Gb/s (1,024 hosts; 4 scalable units of 32, so 32 rail switches,
// and 32 spines), builds with its routing tables one entry per switch
// and host: 64 switches x 1,024 hosts, 109,808 bytes as measured, the
// same as a leaf-spine of 32 leaves of 32 hosts and 32 spines; no table
// grows with the hosts squared.
func TestRailOptimizedScale(t *testing.T) {
	s, err := Parse("t.yaml", []byte("topology: {kind: rail-optimized, servers: 128, spines: 32}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tp := s.Topology
	if h, n, l := len(tp.Hosts()), len(tp.Nodes), len(tp.Links); h != 1024 || n != 1024+64 || l != 1024+32*32 {
		t.Fatalf("%d hosts, %d nodes, %d links; want 1024, 1088, 2048", h, n, l)
	}
	if r := tp.Links[0].Rate; r != 400*fabric.Gbps {
		t.Errorf("a GPU's link runs at %v, want 400 Gb/s", r)
	}
	ls, err := Parse("t.yaml", []byte("topology: {kind: leaf-spine, leaves: 32, spines: 32, hosts_per_leaf: 32}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, same := s.Routes.Bytes(), ls.Routes.Bytes()
	if got > same*11/10 || got > 64*1024*16 {
		t.Errorf("the routing tables take %d bytes; a leaf-spine of as many switches and hosts takes %d, and 16 bytes a switch and host would be %d", got, same, 64*1024*16)
	}
	t.Logf("routing tables: %d bytes (leaf-spine of the same size: %d)", got, same)
}

// explicitGPUs is an explicit topology of four hosts on one switch, for
// its servers key.
const explicitGPUs = `topology:
  kind: explicit
  hosts: [a0, a1, b0, b1]
  switches: [sw]
  links: [[a0, sw], [a1, sw], [b0, sw], [b1, sw]]
`

// TestExplicitServers: an explicit topology declares its GPU servers
// under servers, each GPU a host it lists, in GPU order, with the
// scale-up domain's rate and delay over kind.DefaultNVLink's.
func TestExplicitServers(t *testing.T) {
	s, err := Parse("t.yaml", []byte(explicitGPUs+`  servers:
    - {name: a, gpus: [a1, a0]}
    - {name: b, gpus: [b0, b1], nvlink: {rate: 1.8Tbps}}
`))
	if err != nil {
		t.Fatal(err)
	}
	id := func(n string) fabric.NodeID { h, _ := s.Topology.Lookup(n); return h }
	want := []Server{
		{Name: "a", GPUs: []fabric.NodeID{id("a1"), id("a0")}, ScaleUp: ScaleUp{Rate: 3600 * fabric.Gbps, Delay: 600 * sim.Nanosecond}},
		{Name: "b", GPUs: []fabric.NodeID{id("b0"), id("b1")}, ScaleUp: ScaleUp{Rate: 1800 * fabric.Gbps, Delay: 600 * sim.Nanosecond}},
	}
	if fmt.Sprint(s.Servers) != fmt.Sprint(want) {
		t.Errorf("servers %v, want %v", s.Servers, want)
	}
	if sv, g, ok := s.ServerOf(id("a0")); !ok || sv != 0 || g != 1 {
		t.Errorf("ServerOf(a0) = %d, %d, %v; want server 0's GPU 1", sv, g, ok)
	}
	if _, _, ok := s.ServerOf(id("sw")); ok {
		t.Error("the switch is a server's GPU")
	}
	plain, err := Parse("t.yaml", []byte(explicitGPUs))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := plain.ServerOf(id("a0")); ok || plain.Servers != nil {
		t.Errorf("a topology without servers has %v", plain.Servers)
	}
}

// TestGPUServerErrors: what is wrong with a rail-optimized fabric's keys
// or an explicit topology's servers is an error at its line and column
// that says what is allowed.
func TestGPUServerErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"rails not dividing the GPUs", "topology: {kind: rail-optimized, servers: 4, gpus_per_server: 4, rails: 3, spines: 2}\n",
			"t.yaml:1:73: topology.rails: 3 rails for 4 GPUs a server: rails must divide gpus_per_server (each rail takes as many of a server's NICs)"},
		{"more rails than GPUs", "topology: {kind: rail-optimized, servers: 4, gpus_per_server: 4, rails: 8, spines: 2}\n",
			"t.yaml:1:73: topology.rails: 8 rails for 4 GPUs a server: rails must divide gpus_per_server (each rail takes as many of a server's NICs)"},
		{"no spines", "topology: {kind: rail-optimized, servers: 4}\n",
			"t.yaml:1:1: topology: missing key spines for kind rail-optimized"},
		{"no servers", "topology: {kind: rail-optimized, servers: 0, spines: 1}\n",
			"t.yaml:1:43: topology.servers: 0 is out of range; expected at least 1"},
		{"a key misspelt", "topology: {kind: rail-optimized, servers: 4, spines: 1, gpus: 4}\n",
			"t.yaml:1:57: topology: unknown key gpus for kind rail-optimized (did you mean gpus_per_server?); allowed keys are kind, servers, gpus_per_server, rails, spines, servers_per_rail_switch, link, host_link, fabric_link, nvlink, routing, routes"},
		{"NVLink's rate", "topology: {kind: rail-optimized, servers: 4, spines: 1, nvlink: {rate: fast}}\n",
			`t.yaml:1:72: topology.nvlink.rate: ` + rateErr("fast")},
		{"past the hosts' limit", "topology: {kind: rail-optimized, servers: 100000, spines: 1}\n",
			"t.yaml:1:43: topology: this topology would have 800000 hosts; at most 100000 are supported"},
		{"a GPU that is not there", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic: [{flow: {from: s0/g2, to: s1/g0, size: 1KiB}}]\n",
			"t.yaml:2:25: traffic[0].flow.from: unknown host s0/g2; hosts are s0/g0, s0/g1, s1/g0, s1/g1"},
		{"a host in two servers", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0, a1]}\n    - {name: b, gpus: [b0, a1]}\n",
			"t.yaml:8:28: topology.servers[1].gpus[1]: host a1 is in two servers, a and b (first at line 7); a GPU is in one server"},
		{"a host twice in a server", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0, a0]}\n",
			"t.yaml:7:28: topology.servers[0].gpus[1]: host a0 is twice in this server (first at column 24); a GPU is in one server"},
		{"an unknown host", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0, x1]}\n",
			"t.yaml:7:28: topology.servers[0].gpus[1]: unknown host x1; hosts are a0, a1, b0, b1"},
		{"a switch as a GPU", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0, sw]}\n",
			"t.yaml:7:28: topology.servers[0].gpus[1]: sw is a switch, not a host; hosts are a0, a1, b0, b1"},
		{"a server declared twice", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0]}\n    - {name: a, gpus: [a1]}\n",
			"t.yaml:8:14: topology.servers[1].name: server a is declared twice (first at line 7)"},
		{"a server named as a node", explicitGPUs + "  servers:\n    - {name: sw, gpus: [a0]}\n",
			"t.yaml:7:14: topology.servers[0].name: server sw has the name of switch sw; a server's name is none of the nodes'"},
		{"a server's name", explicitGPUs + "  servers:\n    - {name: a/b, gpus: [a0]}\n",
			`t.yaml:7:14: topology.servers[0].name: "a/b" is not a valid server name: '/' is not allowed; use letters, digits, '_', '-' and '.'`},
		{"a server without GPUs", explicitGPUs + "  servers:\n    - {name: a, gpus: []}\n",
			"t.yaml:7:17: topology.servers[0].gpus: server a has no GPUs; list its hosts, in GPU order"},
		{"a server without its GPUs key", explicitGPUs + "  servers:\n    - {name: a}\n",
			"t.yaml:7:7: topology.servers[0]: missing key gpus"},
		{"a server as a name", explicitGPUs + "  servers:\n    - a0\n",
			`t.yaml:7:7: topology.servers[0]: expected a server, {name: ..., gpus: [hosts...], nvlink: {rate, delay}}, found "a0"`},
		{"a server's key misspelt", explicitGPUs + "  servers:\n    - {name: a, gpus: [a0], nvlnk: {}}\n",
			"t.yaml:7:29: topology.servers[0]: unknown key nvlnk (did you mean nvlink?); allowed keys are name, gpus, nvlink"},
	} {
		_, err := Parse("t.yaml", []byte(c.src))
		if err == nil {
			t.Errorf("%s: loaded; want %s", c.name, c.want)
			continue
		}
		if got := strings.SplitN(err.Error(), "\n", 2)[0]; got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
