package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

var testLink = LinkSpec{Rate: 100 * Gbps, Delay: sim.Microsecond}

// facing is one documented port: node:pPort leads to Peer.
type facing struct {
	node string
	port int
	peer string
}

// checkShape checks names, counts, the documented ports, that every port
// and its peer agree, and that Check passes.
func checkShape(t *testing.T, topo *Topology, hosts, switches int, ports []facing) {
	t.Helper()
	if err := topo.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	var nh, ns int
	for id, n := range topo.Nodes {
		if got, ok := topo.Lookup(n.Name); !ok || got != NodeID(id) {
			t.Errorf("Lookup(%q) = %d, %v; want %d", n.Name, got, ok, id)
		}
		if n.Kind == Host {
			if want := fmt.Sprintf("h%d", nh); n.Name != want {
				t.Errorf("host %d is named %q, want %q", nh, n.Name, want)
			}
			if len(n.Ports) != 1 {
				t.Errorf("host %s has %d ports, want 1", n.Name, len(n.Ports))
			}
			if hs := topo.Hosts(); nh >= len(hs) || hs[nh] != NodeID(id) {
				t.Errorf("Hosts()[%d] is not %s", nh, n.Name)
			}
			nh++
		} else {
			if want := fmt.Sprintf("s%d", ns); n.Name != want {
				t.Errorf("switch %d is named %q, want %q", ns, n.Name, want)
			}
			ns++
		}
		for p, ref := range n.Ports {
			back := topo.Nodes[ref.Peer].Ports[ref.PeerPort]
			if back.Peer != NodeID(id) || back.PeerPort != p || back.Link != ref.Link {
				t.Errorf("%s does not match its peer's port %s", topo.PortName(NodeID(id), p), topo.PortName(ref.Peer, ref.PeerPort))
			}
			l := topo.Links[ref.Link]
			if !(l.A == NodeID(id) && l.APort == p) && !(l.B == NodeID(id) && l.BPort == p) {
				t.Errorf("%s: link %d does not end there", topo.PortName(NodeID(id), p), ref.Link)
			}
		}
	}
	if nh != hosts || ns != switches || len(topo.Hosts()) != hosts {
		t.Errorf("%d hosts and %d switches (Hosts() has %d); want %d and %d", nh, ns, len(topo.Hosts()), hosts, switches)
	}
	for _, f := range ports {
		n, ok := topo.Lookup(f.node)
		if !ok {
			t.Errorf("no node %s", f.node)
			continue
		}
		if f.port >= len(topo.Nodes[n].Ports) {
			t.Errorf("%s has no port p%d", f.node, f.port)
			continue
		}
		if got := topo.Nodes[topo.Nodes[n].Ports[f.port].Peer].Name; got != f.peer {
			t.Errorf("%s:p%d faces %s, want %s", f.node, f.port, got, f.peer)
		}
	}
}

func TestGenerators(t *testing.T) {
	for _, tc := range []struct {
		name            string
		build           func() (*Topology, error)
		hosts, switches int
		ports           []facing
	}{
		{
			name:  "star 9",
			build: func() (*Topology, error) { return Star(9, testLink) },
			hosts: 9, switches: 1,
			ports: []facing{{"s0", 0, "h0"}, {"s0", 8, "h8"}, {"h8", 0, "s0"}, {"h3", 0, "s0"}},
		},
		{
			name:  "dumbbell 2+3",
			build: func() (*Topology, error) { return Dumbbell(2, 3, testLink, testLink) },
			hosts: 5, switches: 2,
			ports: []facing{
				{"s0", 0, "h0"}, {"s0", 1, "h1"}, {"s0", 2, "s1"},
				{"s1", 0, "h2"}, {"s1", 1, "h3"}, {"s1", 2, "h4"}, {"s1", 3, "s0"},
			},
		},
		{
			name:  "leaf-spine 4x2x8",
			build: func() (*Topology, error) { return LeafSpine(4, 2, 8, testLink, testLink) },
			hosts: 32, switches: 6,
			ports: []facing{
				{"s0", 0, "h0"}, {"s0", 7, "h7"}, {"s0", 8, "s4"}, {"s0", 9, "s5"},
				{"s3", 0, "h24"}, {"s3", 9, "s5"},
				{"s4", 0, "s0"}, {"s4", 3, "s3"}, {"s5", 2, "s2"},
			},
		},
		{
			name:  "fat-tree k=4",
			build: func() (*Topology, error) { return FatTree(4, testLink) },
			hosts: 16, switches: 20,
			ports: []facing{
				{"s0", 0, "h0"}, {"s0", 1, "h1"}, {"s0", 2, "s8"}, {"s0", 3, "s9"},
				{"s1", 0, "h2"}, {"s7", 1, "h15"}, {"s7", 2, "s14"}, {"s7", 3, "s15"},
				{"s8", 0, "s0"}, {"s8", 1, "s1"}, {"s8", 2, "s16"}, {"s8", 3, "s17"},
				{"s9", 2, "s18"}, {"s9", 3, "s19"}, {"s10", 0, "s2"}, {"s15", 3, "s19"},
				{"s16", 0, "s8"}, {"s16", 1, "s10"}, {"s16", 3, "s14"}, {"s19", 2, "s13"},
			},
		},
		{
			name:  "fat-tree k=8",
			build: func() (*Topology, error) { return FatTree(8, testLink) },
			hosts: 128, switches: 80,
			ports: []facing{
				{"s0", 0, "h0"}, {"s0", 4, "s32"}, {"s0", 7, "s35"}, {"s31", 3, "h127"},
				{"s32", 0, "s0"}, {"s32", 4, "s64"}, {"s33", 4, "s68"}, {"s35", 7, "s79"},
				{"s64", 0, "s32"}, {"s64", 7, "s60"}, {"s79", 7, "s63"},
			},
		},
		{
			name:  "ring 4x2",
			build: func() (*Topology, error) { return Ring(4, 2, testLink) },
			hosts: 8, switches: 4,
			ports: []facing{
				{"s0", 0, "h0"}, {"s0", 1, "h1"}, {"s0", 2, "s1"}, {"s0", 3, "s3"},
				{"s1", 2, "s2"}, {"s1", 3, "s0"}, {"s3", 0, "h6"}, {"s3", 2, "s0"}, {"s3", 3, "s2"},
			},
		},
		{
			name:  "ring 3x1",
			build: func() (*Topology, error) { return Ring(3, 1, testLink) },
			hosts: 3, switches: 3,
			ports: []facing{{"s0", 1, "s1"}, {"s0", 2, "s2"}, {"s2", 1, "s0"}, {"s2", 2, "s1"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			checkShape(t, topo, tc.hosts, tc.switches, tc.ports)
		})
	}
}

// TestFatTreePorts checks every documented port of the k=4 and k=8
// fat-trees against the formulas in FatTree's comment.
func TestFatTreePorts(t *testing.T) {
	for _, k := range []int{2, 4, 8} {
		topo, err := FatTree(k, testLink)
		if err != nil {
			t.Fatal(err)
		}
		half := k / 2
		var want []facing
		for p := 0; p < k; p++ {
			for i := 0; i < half; i++ {
				e := p*half + i         // edge switch number
				a := k*k/2 + p*half + i // aggregation switch i of pod p
				for h := 0; h < half; h++ {
					want = append(want, facing{fmt.Sprintf("s%d", e), h, fmt.Sprintf("h%d", e*half+h)})
				}
				for j := 0; j < half; j++ {
					want = append(want, facing{fmt.Sprintf("s%d", e), half + j, fmt.Sprintf("s%d", k*k/2+p*half+j)})
					want = append(want, facing{fmt.Sprintf("s%d", a), j, fmt.Sprintf("s%d", p*half+j)})
				}
				for c := 0; c < half; c++ {
					core := k*k + i*half + c
					want = append(want, facing{fmt.Sprintf("s%d", a), half + c, fmt.Sprintf("s%d", core)})
					want = append(want, facing{fmt.Sprintf("s%d", core), p, fmt.Sprintf("s%d", a)})
				}
			}
		}
		checkShape(t, topo, k*k*k/4, k*k+k*k/4, want)
		for _, n := range topo.Nodes {
			if want := map[NodeKind]int{Host: 1, Switch: k}[n.Kind]; len(n.Ports) != want {
				t.Errorf("k=%d: %s has %d ports, want %d", k, n.Name, len(n.Ports), want)
			}
		}
	}
}

func TestGeneratorErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"star 1", func() error { _, err := Star(1, testLink); return err }()},
		{"dumbbell 0 left", func() error { _, err := Dumbbell(0, 2, testLink, testLink); return err }()},
		{"leaf-spine 0 spines", func() error { _, err := LeafSpine(2, 0, 2, testLink, testLink); return err }()},
		{"fat-tree odd k", func() error { _, err := FatTree(5, testLink); return err }()},
		{"fat-tree k=0", func() error { _, err := FatTree(0, testLink); return err }()},
		{"ring 2 switches", func() error { _, err := Ring(2, 1, testLink); return err }()},
		{"ring 0 hosts", func() error { _, err := Ring(3, 0, testLink); return err }()},
	} {
		if tc.err == nil {
			t.Errorf("%s: want an error", tc.name)
		}
	}
}

func TestCheckReports(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *Topology
		want  string // in the error
	}{
		{
			name: "unconnected",
			build: func() *Topology {
				topo := NewTopology()
				s0, _ := topo.AddNode("s0", Switch)
				s1, _ := topo.AddNode("s1", Switch)
				h0, _ := topo.AddNode("h0", Host)
				h1, _ := topo.AddNode("h1", Host)
				topo.Connect(s0, h0, testLink)
				topo.Connect(s1, h1, testLink)
				return topo
			},
			want: "not connected: s1, h1 cannot be reached from h0",
		},
		{
			name: "host with no links",
			build: func() *Topology {
				topo, _ := Star(3, testLink)
				topo.AddNode("lonely", Host)
				return topo
			},
			want: `host "lonely" has no links`,
		},
		{
			name: "unconnected port",
			build: func() *Topology {
				topo := NewTopology()
				s, _ := topo.AddNode("s0", Switch)
				h, _ := topo.AddNode("h0", Host)
				topo.connectAt(s, 1, h, 0, testLink)
				return topo
			},
			want: "port s0:p0 is not connected",
		},
		{
			name:  "no hosts",
			build: NewTopology,
			want:  "no hosts",
		},
		{
			name: "link with no rate",
			build: func() *Topology {
				topo := NewTopology()
				s, _ := topo.AddNode("s0", Switch)
				h, _ := topo.AddNode("h0", Host)
				topo.Connect(s, h, LinkSpec{})
				return topo
			},
			want: "has no rate",
		},
		{
			name: "host reached only through another host",
			build: func() *Topology {
				topo := NewTopology()
				s, _ := topo.AddNode("s0", Switch)
				h0, _ := topo.AddNode("h0", Host)
				h1, _ := topo.AddNode("h1", Host)
				h2, _ := topo.AddNode("h2", Host)
				topo.Connect(s, h0, testLink)
				topo.Connect(s, h1, testLink)
				topo.Connect(h1, h2, testLink)
				return topo
			},
			want: "linked directly",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build().Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check() = %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestAddNodeDuplicate(t *testing.T) {
	topo := NewTopology()
	if _, err := topo.AddNode("x", Host); err != nil {
		t.Fatal(err)
	}
	if _, err := topo.AddNode("x", Switch); err == nil {
		t.Error("a second node named x: want an error")
	}
}
