package fabric

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSMRecordedTables: lfsim's engines fill every switch's table as
// OpenSM 3.3.23 did for the same fabric and LIDs on ibsim (its tables
// read back with ibroute, in testdata/opensm: cmd/lfsim's
// TestOpenSMTablesOnIBSim recorded them, with LFSIM_OPENSM_RECORD, and
// checks them against a live OpenSM where one is installed), entry by
// entry over (switch, host LID), for every engine on each fabric (updn on
// the ring with the root OpenSM is given: docs/RELIABILITY.md). Ports
// there are numbered from 1, lfsim's from 0.
func TestOpenSMRecordedTables(t *testing.T) {
	fat, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	fat6, err := FatTree(6, testLink)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := Ring(6, 2, testLink)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := LeafSpine(4, 2, 3, testLink, testLink)
	if err != nil {
		t.Fatal(err)
	}
	// The first leaf with a fourth host, as TestOpenSMTablesOnIBSim
	// builds it: minhop's order and ftree's dummy CAs.
	uneven, err := LeafSpine(4, 2, 3, testLink, testLink)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := uneven.AddNode("h12", Host)
	if err != nil {
		t.Fatal(err)
	}
	uneven.Connect(uneven.Nodes[uneven.Hosts()[0]].Ports[0].Peer, extra, testLink)
	all := []RoutingAlgo{RoutingMinHop, RoutingUpDn, RoutingFtree, RoutingLASH, RoutingDFSSSP}
	for _, c := range []struct {
		fabric string
		tp     *Topology
		algos  []RoutingAlgo
	}{
		{"fattree-k4", fat, all},
		{"fattree-k6", fat6, all},
		// updn on the ring: OpenSM finds no root of its own and gives up
		// (routing minhop); given lfsim's one root, s0 (-a), it routes as
		// lfsim does. ftree refuses the ring, and OpenSM routes minhop,
		// as lfsim's ftree does there.
		{"ring-6", ring, []RoutingAlgo{RoutingMinHop, RoutingUpDn + "-root-s0", RoutingFtree, RoutingLASH, RoutingDFSSSP}},
		{"leafspine-4x2", ls, all},
		{"leafspine-uneven", uneven, all},
		// LMC 1: each host's second LID too.
		{"fattree-k4", fat, []RoutingAlgo{RoutingMinHop + "-lmc1", RoutingUpDn + "-lmc1", RoutingLASH + "-lmc1", RoutingDFSSSP + "-lmc1"}},
	} {
		for _, algo := range c.algos {
			lmc := 0
			if strings.HasSuffix(string(algo), "-lmc1") {
				lmc = 1
			}
			lids := AssignLIDsLMC(c.tp, lmc)
			t.Run(c.fabric+"/"+string(algo), func(t *testing.T) {
				osm := readRecorded(t, filepath.Join("testdata", "opensm", c.fabric+"-"+string(algo)+".txt"))
				engine := strings.TrimSuffix(strings.TrimSuffix(string(algo), "-root-s0"), "-lmc1")
				r, _, err := ComputeRoutesLMC(c.tp, RoutingAlgo(engine), nil, lmc)
				if err != nil {
					t.Fatal(err)
				}
				entries, bad := 0, 0
				for id, n := range c.tp.Nodes {
					if n.Kind != Switch {
						continue
					}
					for _, h := range c.tp.Hosts() {
						for j := 0; j < 1<<lmc; j++ {
							port, _ := r.LFTPort(NodeID(id), h, j)
							if rp, _ := r.Row(NodeID(id)).LFTPort(h, j); rp != port {
								t.Errorf("%s to %s's LID %d: the switch's row forwards on port %d, the tables say %d", n.Name, c.tp.Nodes[h].Name, j, rp+1, port+1)
							}
							want, ok := osm[[2]uint16{lids.Of(NodeID(id)), lids.Of(h) + uint16(j)}]
							entries++
							if !ok || int(port)+1 != want {
								bad++
								if bad <= 5 {
									t.Errorf("%s to %s's LID %d: port %d, OpenSM's %d", n.Name, c.tp.Nodes[h].Name, j, port+1, want)
								}
							}
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d entries differ from OpenSM's", bad, entries)
				}
			})
		}
	}
}

// readRecorded reads a recorded table: "SWITCH-LID DESTINATION-LID PORT"
// lines after a comment.
func readRecorded(t *testing.T, file string) map[[2]uint16]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[[2]uint16]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Text()) > 0 && sc.Text()[0] == '#' {
			continue
		}
		var sw, dst uint16
		var port int
		if _, err := fmt.Sscan(sc.Text(), &sw, &dst, &port); err != nil {
			t.Fatalf("%s:%d: %v", file, line, err)
		}
		out[[2]uint16{sw, dst}] = port
	}
	return out
}
