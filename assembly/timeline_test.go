package assembly

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestTimelineStages: observe.timeline's stages of one pingpong
// iteration, each against its closed form, and their sum against the
// iteration's time and the client's usec/iter. The closed forms: a
// RoCEv2 SEND of P bytes is P + 82 bytes on the wire (Ethernet 14, IPv4
// 20, UDP 8, BTH 12, ICRC 4, FCS 4, preamble 8, gap 12) and its ACK 86
// (an AETH of 4, no payload), serialized at bytes × 8 / rate on each of
// the two links; propagation is the link's delay; the switch's pipeline
// is its profile's Latency (swtch.DefaultProfile's 500 ns, or the
// scenario's switch.latency); the NICs' steps are hca.DefaultProfile's
// latencies, as post adds them: the doorbell and the transmit pipeline
// always, the WQE fetch and the payload's DMA read when the SEND is not
// inline, then the receive pipeline and the DMA of the data and CQE. With
// no NIC latency, the server's answer goes on its port right after its
// ACK of the ping (both made when the ping arrives), and the client's
// next ping after its ACK of the pong: each waits one ACK's
// serialization (tx_wait).
func TestTimelineStages(t *testing.T) {
	hp, sp := hca.DefaultProfile(), swtch.DefaultProfile()
	for _, c := range []struct {
		name, hca, qp string
		size          int64
		rate          fabric.Rate
		delay, swLat  sim.Time // swLat 0: the switch's default
		inline        bool     // the SEND goes inline (no WQE fetch, no DMA read)
		noNIC         bool     // every NIC latency 0: each SEND waits for an ACK's serialization
		acks          bool
		perftest      bool // perftest send_lat in place of the pingpong
	}{
		{name: "defaults, inline", qp: "rc", size: 64, rate: 100 * fabric.Gbps, delay: sim.Microsecond, inline: true, acks: true},
		{name: "not inline", hca: "hca: {max_inline: 0}", qp: "rc", size: 64, rate: 100 * fabric.Gbps, delay: sim.Microsecond, acks: true},
		{name: "no NIC latency", hca: "hca: {doorbell_latency: 0, wqe_fetch_latency: 0, dma_latency: 0, tx_pkt_latency: 0, rx_pkt_latency: 0}",
			qp: "rc", size: 64, rate: 100 * fabric.Gbps, delay: sim.Microsecond, inline: true, noNIC: true, acks: true},
		{name: "25G, 2us links, a 1us switch, 200 bytes", qp: "rc", size: 200, rate: 25 * fabric.Gbps, delay: 2 * sim.Microsecond, swLat: sim.Microsecond, inline: true, acks: true},
		{name: "perftest send_lat", qp: "rc", size: 64, rate: 100 * fabric.Gbps, delay: sim.Microsecond, inline: true, acks: true, perftest: true},
		{name: "UC: no ACKs", qp: "uc", size: 64, rate: 100 * fabric.Gbps, delay: sim.Microsecond, inline: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			program := "pingpong: {from: h0, to: h1"
			if c.perftest {
				program = "perftest: {test: send_lat, from: h0, to: h1"
			}
			sw, swLat := "", sp.Latency
			if c.swLat != 0 {
				sw, swLat = fmt.Sprintf("switch: {latency: %v}", c.swLat), c.swLat
			}
			sc := mustParse(t, fmt.Sprintf(`topology: {kind: star, hosts: 2, link: {rate: %dGbps, delay: %v}}
%s
%s
stop: {at: 1s, when: flows-done}
traffic:
  - %s, qp: %s, size: %d, iterations: 100}
observe: {timeline: {}}
`, int64(c.rate/fabric.Gbps), c.delay, sw, c.hca, program, c.qp, c.size))
			nic := hp
			if c.noNIC {
				nic.DoorbellLatency, nic.WQEFetchLatency, nic.DMALatency, nic.TxPktLatency, nic.RxPktLatency = 0, 0, 0, 0, 0
			}
			var fetch, dmaRead sim.Time
			if !c.inline {
				fetch, dmaRead = nic.WQEFetchLatency, nic.DMALatency
			}
			n, err := Build(sc)
			if err != nil {
				t.Fatal(err)
			}
			res := n.Run(nil)
			rows, _, err := n.iteration.Rows()
			if err != nil {
				t.Fatal(err)
			}
			ser := func(wire int64) sim.Time { return sim.Time(wire * 8 * int64(sim.Second) / int64(c.rate)) }
			data, ack := ser(c.size+82), ser(86)
			want := map[string]sim.Time{"doorbell": nic.DoorbellLatency, "wqe_fetch": fetch, "dma_read": dmaRead, "tx_pipeline": nic.TxPktLatency,
				"propagation": c.delay, "switch_pipeline": swLat, "rx_pipeline": nic.RxPktLatency, "dma_cqe": nic.DMALatency}
			count := map[string]int{}
			msgs := map[string]bool{}
			var critical, total sim.Time
			for _, r := range rows {
				d := sim.Time(r.End - r.Start)
				if r.Message == "iteration" {
					total = d
					continue
				}
				msgs[r.Message] = true
				if r.Critical {
					critical += d
					count[r.Stage]++
				}
				w, ok := want[r.Stage]
				switch r.Stage {
				case "serialization":
					w, ok = data, true
					if r.Message == "ping_ack" || r.Message == "pong_ack" {
						w = ack
					}
				case "tx_wait":
					w, ok = ack, c.noNIC && r.Critical
				}
				if !ok {
					t.Errorf("%s: unexpected stage %s at %s (%v)", r.Message, r.Stage, r.Where, d)
					continue
				}
				if d != w {
					t.Errorf("%s's %s at %s is %v, want %v", r.Message, r.Stage, r.Where, d, w)
				}
			}
			if msgs["ping_ack"] != c.acks || msgs["pong_ack"] != c.acks || !msgs["ping"] || !msgs["pong"] {
				t.Errorf("messages %v, want ping, pong and ACKs %v", msgs, c.acks)
			}
			// Per SEND on the critical path: two links, one switch.
			for stage, k := range map[string]int{"serialization": 4, "propagation": 4, "switch_pipeline": 2} {
				if count[stage] != k {
					t.Errorf("%d %s stages on the critical path, want %d", count[stage], stage, k)
				}
			}
			oneWay := nic.DoorbellLatency + fetch + dmaRead + nic.TxPktLatency + 2*data + 2*c.delay + swLat + nic.RxPktLatency + nic.DMALatency
			if c.noNIC {
				oneWay += ack
			}
			if critical != total || total != 2*oneWay {
				t.Errorf("the critical stages add up to %v, the iteration took %v; the closed form is 2 × %v = %v", critical, total, oneWay, 2*oneWay)
			}
			if c.perftest {
				// send_lat prints half an iteration (one way), t_typical the median.
				if typ := n.Tests[0].Perftest.LatResult().Typical; math.Abs(typ-total.Seconds()*1e6/2) > 0.0005 {
					t.Errorf("the iteration took %v, send_lat's t_typical is %.3f us", total, typ)
				}
			} else if usec := n.Tests[0].Pingpong.UsecPerIter(); math.Abs(usec-total.Seconds()*1e6) > 0.005 {
				t.Errorf("the iteration took %v, the client printed %.2f usec/iter", total, usec)
			}
			if s := res.Summary.Timeline; s == nil || s.TotalNs != float64(total)/1000 || s.Iteration != 2 {
				t.Errorf("summary.json's timeline is %+v, want iteration 2 of %v", s, total)
			}
			if got := string(res.Extra["timeline.csv"]); got != string(reports.TimelineCSV(rows)) {
				t.Errorf("timeline.csv is not the rows:\n%s", got)
			}
		})
	}
}

// TestTimelineResent: a followed SEND lost on its first link and resent
// after the timeout gives no timeline.csv but a warning naming the port;
// drawn, its propagation would have held the timeout.
func TestTimelineResent(t *testing.T) {
	sc := mustParse(t, `topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
stop: {at: 1s, when: flows-done}
traffic:
  - pingpong: {from: h0, to: h1, size: 64, iterations: 100}
faults:
  - {at: 6us, link: [h0, s0], action: loss, rate: 1, until: 8us}
observe: {timeline: {}}
`)
	n, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := n.Run(nil)
	const want = "observe.timeline: iteration 2's ping was sent twice on h0:p0 (lost, or resent after a timeout): its stages would hide the wait; choose another iteration"
	if _, ok := res.Extra["timeline.csv"]; ok || res.Summary.Timeline != nil || !slices.Contains(res.Summary.Warnings, want) {
		t.Errorf("timeline.csv written %v, summary %+v, warnings %q; want none, and the warning %q", ok, res.Summary.Timeline, res.Summary.Warnings, want)
	}
}

// TestTimelineReplayedByLLR: with switch.llr, a followed SEND sent again
// on a port is the link's replay (LLR resends every frame after a lost
// one, so the SEND itself need not have been lost), and the warning says
// so rather than blaming a timeout. 30% loss on s0's link to h1, seed 1:
// iteration 7's ping is replayed on s0:p1 (found by running iterations 1
// to 10: 1, 2, 6, 7, 8 and 9 are refused).
func TestTimelineReplayedByLLR(t *testing.T) {
	sc := mustParse(t, `seed: 1
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
stop: {at: 1s, when: flows-done}
switch: {llr: true}
faults:
  - {at: 0, link: [s0, h1], action: loss, rate: 30%}
traffic:
  - pingpong: {from: h0, to: h1, qp: rc, size: 64, iterations: 10}
observe: {timeline: {iteration: 7}}
`)
	n, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := n.Run(nil)
	const want = "observe.timeline: iteration 7's ping was sent twice on s0:p1 (replayed by the link's retry, switch.llr, which resends every frame after a lost one, or resent by the transport): its stages would hide the wait; choose another iteration"
	if _, ok := res.Extra["timeline.csv"]; ok || !slices.Contains(res.Summary.Warnings, want) {
		t.Errorf("timeline.csv written %v, warnings %q; want none, and the warning %q", ok, res.Summary.Warnings, want)
	}
}
