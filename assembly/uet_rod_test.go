package assembly

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestUETRODResendsFromTheLoss: under UET's reliable ordered delivery
// (hca.uet.delivery: rod) one lost packet is resent with every packet
// sent after it until the target's NACK came back, where RUD resends it
// alone. A 1 MiB WRITE (256 packets of 4096 bytes, 4218 on the wire) over
// a 100 Gb/s star with 1 us links, cc: none, loses the one data packet
// that starts on h0's link in [20 us, 20.1 us). The ROD target drops
// what follows the gap and NACKs it once; the source goes back to the
// lost PSN when the NACK comes, a round trip after the lost packet
// started: three packet times (the lost one and the next on h0's link,
// the next on h1's), four link delays, two switch latencies (500 ns),
// two ACK serializations, h1's receive and transmit pipelines and h0's
// receive pipeline (200 ns each, hca.DefaultProfile): 6,627 ns, 19.6
// packet times, so 20 packets are sent twice (within one), and the flow
// ends those 20 packet times after the lossless run's (measured equal
// to the nanosecond: 100,335 ns against 93,586). RUD keeps what arrives
// past the gap and, with no congestion window (no SLEEK), resends the
// lost packet alone at its retransmission timeout: one packet resent,
// the flow ending after rto_high (320 us) and less than two round trips
// more (measured 419,675 ns). Byte-identical at 1 and 2 workers.
//
// ROD's source timer is the PDS's, hca.rto_low and rto_high, as RUD's,
// not hca.ack_timeout's (the IBA timer go-back-N has on RoCE, 67 ms by
// default): the last data packet, lost in [87.5 us, 87.6 us) on h0's
// link, has no packet after it for the target to find the gap by, so
// the source resends at its timeout from its oldest unacknowledged PSN,
// the last 4 packets (the receiver acknowledges every 4, hca.ack_every
// at MTU 4096), after rto_high as more than 3 (rto_low's packets) are
// unacknowledged: 320 us and less than two round trips more after the
// lossless end (measured 419,338 ns; with hca.ack_timeout's timer
// 67,208,202 ns, tried).
func TestUETRODResendsFromTheLoss(t *testing.T) {
	const src = `name: rod-one-loss
seed: 1
stop: {at: 50ms, when: [flows-done, deadlock]}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca:
  transport: uet
  cc: none
  uet: {delivery: %s}
%s
traffic:
  - flow: {from: h0, to: h1, size: 1MiB}
`
	const loss = "faults:\n  - {at: 20us, until: 20.1us, link: [h0, s0], action: loss, rate: 1}"
	run := func(mode, faults string) (fct, resent, dropped int64) {
		t.Helper()
		s := fmt.Sprintf(src, mode, faults)
		files, _ := runFiles(t, s, 1)
		files2, _ := runFiles(t, s, 2)
		for name, b := range files {
			if string(b) != string(files2[name]) {
				t.Errorf("%s: %s differs at 1 and 2 workers", mode, name)
			}
		}
		var sum reports.Summary
		if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
			t.Fatal(err)
		}
		_, _, flows := mustRun(t, mustParse(t, s))
		if len(flows) != 1 || flows[0].Status != "success" {
			t.Fatalf("%s: flows %+v", mode, flows)
		}
		return flows[0].FCTNs, flows[0].Retransmits, sum.Packets.Dropped
	}
	pkt := fabric.SerializationTime(int64(fabric.UETWire(fabric.OpWriteMiddle, 4096)), 100*fabric.Gbps)
	ack := fabric.SerializationTime(int64(fabric.UETWire(fabric.OpAcknowledge, 0)), 100*fabric.Gbps)
	hp, sp := hca.DefaultProfile(), swtch.DefaultProfile()
	rtt := 3*pkt + 4*sim.Microsecond + 2*sp.Latency + 2*ack + 2*hp.RxPktLatency + hp.TxPktLatency
	want := math.Ceil(float64(rtt) / float64(pkt))
	ns := func(d sim.Time) float64 { return float64(d) / float64(sim.Nanosecond) }
	for _, mode := range []string{"rod", "rud"} {
		base, _, _ := run(mode, "")
		fct, resent, dropped := run(mode, loss)
		t.Logf("%s: %d ns (%d ns without the loss), %d packets resent, %d dropped; round trip %.0f ns, %.0f packets", mode, fct, base, resent, dropped, ns(rtt), want)
		if dropped != 1 {
			t.Fatalf("%s: the fault dropped %d packets, want 1", mode, dropped)
		}
		switch mode {
		case "rod":
			if math.Abs(float64(resent)-want) > 1 {
				t.Errorf("rod: %d packets resent, want %.0f within one (from the lost one to the NACK's return)", resent, want)
			}
			if d := float64(fct-base) - float64(resent)*ns(pkt); math.Abs(d) > 2 {
				t.Errorf("rod: the loss cost %d ns, want %d resent packet times (%.0f ns) within 2 ns", fct-base, resent, float64(resent)*ns(pkt))
			}
		case "rud":
			if resent != 1 {
				t.Errorf("rud: %d packets resent, want the lost one alone", resent)
			}
			if late := float64(fct-base) - ns(hp.RTOHigh); late < 0 || late > 2*ns(rtt) {
				t.Errorf("rud: the loss cost %d ns, want rto_high (%s) and less than two round trips more", fct-base, hp.RTOHigh)
			}
		}
	}
	base, _, _ := run("rod", "")
	fct, resent, dropped := run("rod", "faults:\n  - {at: 87.5us, until: 87.6us, link: [h0, s0], action: loss, rate: 1}")
	t.Logf("rod, the last packet lost: %d ns, %d packets resent, %d dropped", fct, resent, dropped)
	if late := float64(fct-base) - ns(hp.RTOHigh); dropped != 1 || resent != 4 || late < 0 || late > 2*ns(rtt) {
		t.Errorf("rod, the last packet lost: %d dropped, %d resent, the loss cost %d ns; want 1, 4, and rto_high (%s) and less than two round trips more", dropped, resent, fct-base, hp.RTOHigh)
	}
}

// TestUETRODErrors: ROD keeps a QP on one path and resends from the gap:
// spraying, selective retransmission and direct placement are refused at
// their keys, a switch that spreads a QP's packets itself is warned of;
// ROD's defaults are go-back-N and in-order placement, RUD's unchanged.
func TestUETRODErrors(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2}\n"
	const flow = "traffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n"
	for _, c := range []struct{ src, want string }{
		{head + "hca: {transport: uet, uet: {delivery: rod, spray: reps}}\n", "t.yaml:2:51: hca.uet.spray: hca.uet.delivery: rod keeps a QP's packets on one path, one entropy value, since ROD takes any reordering for a loss: spray: ecmp, or delivery: rud to spray"},
		{head + "hca: {transport: uet, retransmit: selective, uet: {delivery: rod}}\n", "t.yaml:2:35: hca.retransmit: hca.uet.delivery: rod drops what arrives past a gap and resends from it: retransmit: go-back-n (its default), not selective"},
		{head + "hca: {transport: uet, placement: direct, uet: {delivery: rod}}\n", "t.yaml:2:34: hca.placement: hca.uet.delivery: rod takes packets in PSN order only: placement: in-order (its default), not direct"},
		{head + "hca: {transport: uet, uet: {delivery: rod, min_rto: auto}}\n", "t.yaml:2:44: hca.uet.min_rto: min_rto is uet-htsim's timer for delivery: rud; under delivery: rod the timer is hca.rto_low and rto_high"},
		{head + "hca: {transport: uet, uet: {delivery: rdo}}\n", "t.yaml:2:39: hca.uet.delivery: unknown value rdo; expected one of rud, rod"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(c.src+flow))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s got  %v\nwant %s", c.src, err, c.want)
		}
	}
	for _, c := range []struct {
		hca        string
		retransmit hca.Retransmit
		placement  hca.Placement
	}{
		{"{transport: uet, uet: {delivery: rod}}", hca.GoBackN, hca.InOrder},
		{"{transport: uet, retransmit: go-back-n, placement: in-order, uet: {delivery: rod}}", hca.GoBackN, hca.InOrder},
		{"{transport: uet, uet: {delivery: rud}}", hca.Selective, hca.Direct},
		{"{transport: uet}", hca.Selective, hca.Direct},
	} {
		s, err := resolve.Parse("t.yaml", []byte(head+"hca: "+c.hca+"\n"+flow))
		if err != nil {
			t.Fatalf("%s: %v", c.hca, err)
		}
		if p := s.HCAProfile(0); p.Retransmit != c.retransmit || p.Placement != c.placement || len(s.Warnings) != 0 {
			t.Errorf("%s: retransmit %s, placement %s, warnings %v; want %s, %s", c.hca, p.Retransmit, p.Placement, s.Warnings, c.retransmit, c.placement)
		}
	}
	s, err := resolve.Parse("t.yaml", []byte(head+"switch: {load_balance: spray}\nhca: {transport: uet, uet: {delivery: rod}}\n"+flow))
	want := "hca.uet.delivery: ROD takes a packet out of order for a loss, and switch.load_balance spray moves a QP's packets across paths: each reordering it makes is resent from the gap"
	if err != nil || len(s.Warnings) != 1 || !strings.HasSuffix(s.Warnings[0].Msg, want[len("hca.uet.delivery: "):]) {
		t.Errorf("rod with spraying switches: %v, warnings %+v; want %s", err, s.Warnings, want)
	}
	// SLEEK asked for under ROD, which has no out-of-order count, is
	// warned at hca.uet.sleek (none was, tried).
	s, err = resolve.Parse("t.yaml", []byte(head+"hca: {transport: uet, uet: {delivery: rod, sleek: true}}\n"+flow))
	want = "t.yaml:2:51: hca.uet.sleek: SLEEK counts what the target keeps out of order, and under delivery: rod it keeps none: SLEEK does not run"
	if err != nil || len(s.Warnings) != 1 || s.Warnings[0].Error() != want {
		t.Errorf("rod with sleek: true: %v, warnings %+v; want %s", err, s.Warnings, want)
	}
	// hca.ack_timeout is go-back-N's timer on RoCE, not on UET, ROD's
	// go-back-N included (its timer is rto_low/rto_high): a block that
	// sets it on a UET host is warned at the key; none was (tried).
	for _, mode := range []string{"rod", "rud"} {
		s, err := resolve.Parse("t.yaml", []byte(head+"hca: {transport: uet, ack_timeout: 10, uet: {delivery: "+mode+"}}\n"+flow))
		want := "t.yaml:2:36: hca.ack_timeout: UET's retransmission timer is rto_low and rto_high (100us, 320us), whatever its delivery mode: ack_timeout is not used"
		if err != nil || len(s.Warnings) != 1 || s.Warnings[0].Error() != want {
			t.Errorf("%s with ack_timeout: %v, warnings %+v; want %s", mode, err, s.Warnings, want)
		}
	}
}
