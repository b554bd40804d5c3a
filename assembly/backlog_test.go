package assembly

import (
	"fmt"
	"os"
	"testing"
)

// ibUDBacklog is issue 45's case: UD poisson SENDs of one MTU from every
// host of a k=6 fat tree on InfiniBand, at 90% of each link. Credits and
// the switches' input FIFOs carry about 37 Gb/s a host of this uniform
// traffic (18,241 SENDs delivered in 300 us over the 54 hosts), so the
// flows not yet sent, a UD QP each, grow with time: 1,067 at 30 us,
// 24,523 at 300 us.
const ibUDBacklog = `
seed: 1
stop: {at: %s}
topology: {kind: fat-tree, k: 6, link: {rate: EDR, delay: 200ns}}
switch: {link_layer: infiniband}
hca: {mtu: 4096}
traffic:
  - poisson: {hosts: all, load: 90%%, sizes: 4096, qp: ud, op: send}
`

// TestIBUDBacklogLinear: the work of a run with a backlog grows with the
// time simulated, not with its square. The events are linear by
// themselves (the fabric carries as much each microsecond); what grew was
// the transmit arbiters', which read every QP waiting for credit at each
// packet and at each credit that came back (hca.HCA.ArbiterReads; now
// they pass the parked ones by, hca/parking.go). Ten times the time
// simulated must cost at most 3 × 10 times the events and the QPs read.
// Without the parking the reads grew 405 times from 30 to 300 us (15 to
// 1,065 a packet sent); with it 5.0 times (4.1 to 3.6 a packet). The
// 300 us run takes some 2 s; with -short the relation is checked from 30
// to 120 us (4 times the time, at most 3 × 4: 53 times without the
// parking, 2.4 with it).
func TestIBUDBacklogLinear(t *testing.T) {
	long := "300us"
	if testing.Short() && os.Getenv("LFSIM_SLOW") == "" {
		long = "120us"
	}
	ratio := map[string]float64{"300us": 10, "120us": 4}[long]
	backlogLinear(t, "ibud.yaml", ibUDBacklog, "30us", long, ratio)
}

// ethDoorbellBacklog is the random-scenario test's Ethernet case: UC
// poisson WRITEs of 254 bytes from every host of a leaf-spine at 90% of
// 100 Gb/s, the posting thread paying 75 ns a doorbell
// (hca.doorbell_cost). A flow arrives every 22.6 ns a host, a doorbell
// every 75 ns, so the posts wait behind the doorbell and their QPs sit
// in the transmit ring until the WQE is ready (holdUntil), more of them
// each microsecond: at 50 us some 3,000 a host.
const ethDoorbellBacklog = `
seed: 1
stop: {at: %s}
topology: {kind: leaf-spine, leaves: 4, spines: 2, hosts_per_leaf: 8,
           host_link: {rate: 100Gbps, delay: 500ns}, fabric_link: {rate: 400Gbps, delay: 1us}}
hca: {doorbell_cost: 75ns}
traffic:
  - poisson: {hosts: all, load: 90%%, sizes: 254, qp: uc, op: write}
`

// TestEthHeldBacklogLinear: QPs held back by time (the doorbell and WQE
// fetch, or the rate limiter) leave the transmit arbiter's scan until
// their wake (hca/parking.go's hold), so the QPs read grow with the
// packets sent, not with the QPs waiting. Four times the time simulated
// (12.5 to 50 us) must cost at most 3 × 4 times the events and the QPs
// read. Without hold the reads grew 15 times (1,667 to 5,855 a packet
// sent); with it 4.0 times (5.8 to 5.4 a packet); events 4.8 times
// either way.
func TestEthHeldBacklogLinear(t *testing.T) {
	backlogLinear(t, "ethheld.yaml", ethDoorbellBacklog, "12500ns", "50us", 4)
}

// backlogLinear runs the scenario src (its stop a %s) to short and to
// long, ratio times as long, each balancing, and holds the events and
// the QPs the transmit arbiters read (hca.HCA.ArbiterReads) to at most 3
// × ratio times those of the short run.
func backlogLinear(t *testing.T, file, src, short, long string, ratio float64) {
	t.Helper()
	work := func(stop string) (events uint64, reads, sent int64) {
		n, r := runSource(t, file, fmt.Sprintf(src, stop))
		for _, h := range n.HCAs {
			if h != nil {
				reads += h.ArbiterReads
				sent += h.Stats.TxPackets
			}
		}
		if !r.Summary.Conservation.OK {
			t.Errorf("%s: conservation fails: %v", stop, r.Summary.Conservation.Errors)
		}
		return r.Summary.Events, reads, sent
	}
	e0, r0, s0 := work(short)
	e1, r1, s1 := work(long)
	t.Logf("%s: %d events, %d QPs read for %d packets; %s: %d events, %d QPs read for %d packets",
		short, e0, r0, s0, long, e1, r1, s1)
	if float64(e1) > 3*ratio*float64(e0) {
		t.Errorf("events grew %.1f times from %s to %s, more than 3 × %.0f", float64(e1)/float64(e0), short, long, ratio)
	}
	if float64(r1) > 3*ratio*float64(r0) {
		t.Errorf("QPs read by the transmit arbiters grew %.1f times from %s to %s (%.1f to %.1f a packet sent), more than 3 × %.0f",
			float64(r1)/float64(r0), short, long, float64(r0)/float64(s0), float64(r1)/float64(s1), ratio)
	}
}
