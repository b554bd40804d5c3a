package assembly

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// TestRailPartitions: a cut of a rail-optimized fabric keeps each GPU
// server's GPUs in one partition (the scale-up domain's transfers cross
// no link) and still deals the fabric evenly: scalable units whole where
// there are enough of them (only rail-to-spine links cut), else each
// server and each switch on its own. Without the servers' bond the
// GPUs go with their rail switches, each server spread over the
// partitions (tried: every case fails); with the bond but no regrouping
// a fabric of one unit is one group, dealt to one partition beside the
// spines (tried: the one-unit cases and 8 workers fail, imbalance
// 1.5 to 2.5).
func TestRailPartitions(t *testing.T) {
	for _, c := range []struct {
		name, src string
		workers   int
		// imbalance is the most the busiest partition may carry over the
		// mean; cut, when not 0, the links the cut must cross exactly.
		imbalance float64
		cut       int
	}{
		// One unit: four rail switches joined by the servers; 4 servers
		// (4 ports each), 4 rails (6), 2 spines (4): 48 ports.
		{"4x4, 2 workers", "servers: 4, gpus_per_server: 4, spines: 2", 2, 1.0, 0},
		{"4x4, 3 workers", "servers: 4, gpus_per_server: 4, spines: 2", 3, 1.15, 0},
		{"4x4, 8 workers", "servers: 4, gpus_per_server: 4, spines: 2", 8, 1.34, 0},
		// The scale: 128 servers of 8 GPUs, 4 units of 32: at 2
		// and 4 workers the units go whole and half or three quarters of
		// the 32 x 32 rail-to-spine links are cut; at 8, more partitions
		// than units, each server alone.
		{"128x8, 2 workers", "servers: 128, spines: 32", 2, 1.0, 512},
		{"128x8, 4 workers", "servers: 128, spines: 32", 4, 1.0, 768},
		{"128x8, 8 workers", "servers: 128, spines: 32", 8, 1.0, 0},
		// One rail switch a rail for all 128 servers: one unit.
		{"128x8 one unit, 2 workers", "servers: 128, spines: 32, servers_per_rail_switch: 128", 2, 1.0, 0},
	} {
		s, err := resolve.Parse("t.yaml", []byte("topology: {kind: rail-optimized, "+c.src+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		p := planPartitions(s.Topology, c.workers, serverGPUs(s))
		if p.parts != c.workers || p.imbalance() > c.imbalance+1e-9 || c.cut != 0 && p.cut != c.cut {
			t.Errorf("%s: %v; want %d partitions, imbalance at most %.2f, cut %d", c.name, p, c.workers, c.imbalance, c.cut)
		}
		for _, sv := range s.Servers {
			for _, h := range sv.GPUs {
				if p.part[h] != p.part[sv.GPUs[0]] {
					t.Errorf("%s: server %s is cut: %s in partition %d, %s in %d", c.name, sv.Name,
						s.Topology.Nodes[sv.GPUs[0]].Name, p.part[sv.GPUs[0]], s.Topology.Nodes[h].Name, p.part[h])
					break
				}
			}
		}
	}
}

// TestRailTopologyJSON: topology.json lists a fabric's GPU servers, each
// with its GPUs in GPU order and its scale-up domain's rate and delay;
// a topology without servers writes no servers key (its file unchanged).
func TestRailTopologyJSON(t *testing.T) {
	s, err := resolve.Parse("t.yaml", []byte("topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1, nvlink: {delay: 250ns}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := reportTopology(s.Topology, nil, s.Servers).Servers
	want := []reports.TopoServer{
		{Name: "s0", GPUs: []string{"s0/g0", "s0/g1"}, NVLinkGbps: 3600, NVLinkDelayNs: 250},
		{Name: "s1", GPUs: []string{"s1/g0", "s1/g1"}, NVLinkGbps: 3600, NVLinkDelayNs: 250},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers %+v, want %+v", got, want)
	}
	plain, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b := reports.TopologyJSON(reportTopology(plain.Topology, nil, plain.Servers)); strings.Contains(string(b), "servers") {
		t.Errorf("a star's topology.json names servers:\n%s", b)
	}
}
