package assembly

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// streamCases are poisson scenarios whose finished flows a streaming run
// lets go: RC flows of every operation, sprayed (flows.csv's order
// columns) and resent, flows that fail (retry_exc_err: a link down and
// one retry), rdma_cm flows (connect_ns), and UC and UD flows, which
// stay, among them.
var streamCases = []struct{ name, src string }{
	{"spray read, write, send, go-back-n", `topology: {kind: fat-tree, k: 4, link: {rate: 100G, delay: 500ns}}
stop: {at: 120us}
switch: {load_balance: spray}
hca: {retransmit: go-back-n}
traffic:
  - poisson: {hosts: all, load: 0.5, sizes: alistorage2019, op: write}
  - poisson: {hosts: [h0, h5, h10], load: 0.2, sizes: alistorage2019, op: read}
  - poisson: {hosts: [h3, h12], load: 0.2, sizes: 4096, op: send}
`},
	{"faults, uc and ud", `topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
hca: {cc: dcqcn, retry_count: 1, ack_timeout: 3}
stop: {at: 600us}
traffic:
  - poisson: {load: 30%, sizes: 20000, until: 400us}
  - poisson: {hosts: [h1, h6], load: 5%, sizes: 4096, qp: ud, op: send, until: 400us}
  - poisson: {hosts: [h2, h7], load: 10%, sizes: 20000, qp: uc, until: 400us}
faults:
  - {action: loss, link: [s0, s2], rate: 0.02, at: 50us, until: 200us}
  - {action: down, link: [s1, s3], at: 100us, until: 300us}
`},
	// A connection takes 7 ms and more (cm.DefaultProfile's QP
	// commands, one at a time on a host): 19 flows, done by 12.1 ms.
	{"rdma_cm", `topology: {kind: fat-tree, k: 4}
stop: {at: 14ms}
traffic:
  - poisson: {hosts: [h0, h5, h10], load: 2%, sizes: 2000, connect: cm, until: 60us}
`},
}

// streamed runs s with its finished flows going to a spool that writes
// a run of the file every 16 records, and returns its files and the
// spool's record count.
func streamed(t *testing.T, s *resolve.Scenario, workers int) (map[string][]byte, int, *Network) {
	t.Helper()
	var spool *reports.FlowSpool
	files, n := runScenarioFilesWith(t, s, workers, func(n *Network) {
		var err error
		if spool, err = reports.NewFlowSpool(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		spool.Batch = 16
		n.StreamFlows(spool)
	})
	defer spool.Close()
	return files, spool.Len(), n
}

// TestStreamedFlowsMatchHeld: a run that lets its finished flows go to a
// spool (StreamFlows, as lfsim run does) writes the same bytes as one
// that holds every flow to the end, at 1 and 2 workers: flows.csv
// merged back in id order, and the summary's counts, bytes and FCT
// figures (which take every completed flow in id order). The HPCC
// paper's fabric to 2 ms lets go of about 1,200 flows; the spool must
// have taken some in each case, or the case tests nothing.
func TestStreamedFlowsMatchHeld(t *testing.T) {
	type tc struct {
		name string
		load func() *resolve.Scenario
	}
	var cases []tc
	for _, c := range streamCases {
		cases = append(cases, tc{c.name, func() *resolve.Scenario {
			s, err := resolve.Parse("stream.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}})
	}
	if !testing.Short() {
		cases = append(cases, tc{"hpcc-320 to 2 ms", func() *resolve.Scenario {
			s, err := resolve.Load(filepath.Join("..", "scenarios", "bench", "hpcc-320.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			s.Stop.At = 2 * sim.Millisecond
			return s
		}})
	}
	for _, c := range cases {
		want, held := runScenarioFiles(t, c.load(), 1)
		for _, workers := range []int{1, 2} {
			got, spooled, n := streamed(t, c.load(), workers)
			what := fmt.Sprintf("%s, %d workers, streamed", c.name, workers)
			sameFiles(t, what, got, want)
			kept := 0
			for _, fr := range n.Flows {
				if !fr.retired {
					kept++
				}
			}
			if spooled == 0 || kept+spooled != len(held.Flows) || n.flowCount() != len(held.Flows) || len(n.Flows) >= len(held.Flows) {
				t.Errorf("%s: %d flows spooled and %d kept of %d; %d of %d left", what, spooled, kept, len(held.Flows), len(n.Flows), n.flowCount())
			}
			t.Logf("%s: %d of %d flows spooled, %d held at the end", what, spooled, len(held.Flows), len(n.Flows))
		}
	}
}
