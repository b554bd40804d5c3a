package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// TestCBFCIncast: the uec-cbfc-incast example, eight senders into one
// receiver on Ethernet without PFC, is lossless under Ultra Ethernet's
// credit-based flow control: no drop, every byte delivered, credits
// waited for; with cbfc off the same switch drops.
func TestCBFCIncast(t *testing.T) {
	src := exampleText(t, "uec-cbfc-incast")
	_, sum, rows := mustRun(t, mustParse(t, src))
	assertConserved(t, "cbfc", sum)
	if sum.Bytes.Dropped != 0 || sum.Packets.Dropped != 0 || sum.Bytes.Delivered != 8*4<<20 || sum.Flows.Completed != 8 {
		t.Errorf("cbfc: %d bytes dropped, %d of %d delivered, %d of 8 flows done; want lossless", sum.Bytes.Dropped, sum.Bytes.Delivered, 8*4<<20, sum.Flows.Completed)
	}
	for _, r := range rows {
		if r.Retransmits != 0 {
			t.Errorf("cbfc: flow %d retransmitted %d packets", r.ID, r.Retransmits)
		}
	}
	if sum.Conservation.FCPackets.Made == 0 {
		t.Errorf("cbfc: no credit update sent")
	}
	_, off, _ := mustRun(t, mustParse(t, patch(t, src, "cbfc: {buffer: 64KiB}", "pfc: {priorities: []}", "expect:\n  drops: 0\n  flows_completed: all\n", "")))
	if off.Packets.Dropped == 0 {
		t.Errorf("cbfc off, no PFC: no drop; the incast should overflow the switch")
	}
}

// TestCBFCLongLink: over a 50 µs link the rate is credit-limited: a
// class's buffer of B bytes holds floor(B / credit) frames, each frame's
// credit its frame (header to FCS, 4158 bytes for a 4096-byte WRITE
// Middle) rounded up to 64-byte units (4160), which cross the link and
// come back as credit in 100 µs, plus the frame's serialization and the
// far switch's latency: rate = frames × payload × 8 / RTT, within 3%.
// Without cbfc the flow runs at line rate and this fails.
func TestCBFCLongLink(t *testing.T) {
	src := exampleText(t, "uec-cbfc-long-link")
	for _, buf := range []int64{256 << 10, 512 << 10} {
		sc := mustParse(t, patch(t, src, "buffer: 256KiB", "buffer: "+fabric.Size(buf).String()))
		_, sum, rows := mustRun(t, sc)
		assertConserved(t, "long link", sum)
		frame := int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)) - fabric.PreambleIFGBytes
		credit := fabric.IBPacketBlocks(frame) * fabric.BlockBytes
		frames := buf / credit
		rtt := 100e-6 + float64(frame*8)/100e9 + sc.Switch.Latency.Seconds()
		want := float64(frames*4096*8) / rtt
		got := float64(rows[0].SizeBytes*8) / (float64(rows[0].FCTNs) * 1e-9)
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("buffer %s: %.3f Gb/s, want %.3f (%d frames of %d credit bytes per %.2f us) within 3%%", fabric.Size(buf), got/1e9, want/1e9, frames, credit, rtt*1e6)
		}
	}
}

// TestCBFCCreditLoop: the uec-cbfc-credit-loop example's ring closes a
// credit loop, which the deadlock detector names as it names
// InfiniBand's (TestIBCreditLoop): the seven ring ports in order, within
// 50 µs.
func TestCBFCCreditLoop(t *testing.T) {
	_, sum, _ := mustRun(t, mustParse(t, exampleText(t, "uec-cbfc-credit-loop")))
	assertConserved(t, "ring", sum)
	want := []string{"s0:p1", "s1:p1", "s2:p1", "s3:p1", "s4:p1", "s5:p1", "s6:p1"}
	if d := sum.Deadlock; !d.Detected || d.AtNs > 50_000 || strings.Join(d.Cycle, " ") != strings.Join(want, " ") {
		t.Errorf("deadlock %+v, want the cycle %v within 50 µs", d, want)
	}
}

// TestUECErrors: what Ultra Ethernet's link layer does not run with is
// refused at its key, naming what is allowed.
func TestUECErrors(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2}\n"
	for _, c := range []struct{ src, want string }{
		{head + "switch: {cbfc: 3}\n", "t.yaml:2:16: switch.cbfc: expected true, false or a mapping such as {buffer: 256KiB}, found the number 3"},
		{head + "switch: {cbfc: true, link_layer: infiniband}\n", "t.yaml:2:10: switch.cbfc: cbfc is Ethernet's credit-based flow control; InfiniBand's links have credits of their own (switch.ib.vl_buffer)"},
		{head + "switch: {cbfc: true, pfc: {priorities: [3]}}\n", "t.yaml:2:22: switch.pfc: with switch.cbfc the links are lossless by credits, without PFC: remove switch.pfc"},
		{head + "switch: {cbfc: true, trust: dscp}\n", "t.yaml:2:22: switch.trust: with switch.cbfc a frame's credits are its traffic class's on the wire (its 802.1p priority): use trust: pcp"},
		{head + "switch: {cbfc: {buffer: 2KiB}}\n", "t.yaml:2:25: switch.cbfc.buffer: a class's buffer (2048 bytes) must hold the largest frame, 4224 bytes (66 credits of 64 bytes): raise switch.cbfc.buffer or lower hca.mtu"},
		{"topology: {kind: explicit, hosts: [h0, h1], switches: [{name: s0, switch: {cbfc: true}}], links: [[h0, s0], [h1, s0]]}\n", "t.yaml:1:76: topology.switches[0].switch.cbfc: cbfc is the whole network's links': give it in the top-level switch block"},
		// A topology that is not built, with cbfc: its error, not a panic
		// (the buffer's check read the hosts' frames without a topology).
		{"topology: {kind: star}\nswitch: {cbfc: true}\n", "t.yaml:1:1: topology: missing key hosts for kind star"},
		{head + "switch: {llr: true, link_layer: infiniband}\n", "t.yaml:2:10: switch.llr: llr is Ultra Ethernet's link-level retry, for Ethernet links"},
		{head + "switch: {llr: true}\nfaults: [{at: 1us, link: [s0, h1], action: down}]\n", "t.yaml:3:44: faults[0].action: a link cut under switch.llr is not modelled (what its replay buffer holds when the link goes down): use action: loss, or llr: false"},
		{head + "hca: {transport: uet}\ntraffic: [{flow: {from: h0, to: h1, size: 8, op: atomic}}]\n", "t.yaml:3:50: traffic[0].flow.op: atomics on UET are not modelled yet"},
		{head + "hca: {transport: uet, overlay: {encap: vxlan, vni: 7}}\n", "t.yaml:2:32: hca.overlay: an overlay tunnels IP: it goes with hca.transport: iwarp (eRDMA's) or rocev2; UET in an overlay is not modelled yet (drop hca.overlay, or set hca.transport)"},
		{head + "switch: {trim: true, link_layer: infiniband}\n", "t.yaml:2:10: switch.trim: trim is Ultra Ethernet's packet trimming, for Ethernet switches: InfiniBand's links drop nothing for want of buffer"},
		{head + "switch: {cbfc: true, trim: true}\n", "t.yaml:2:22: switch.trim: with switch.cbfc nothing is dropped for want of buffer: nothing to trim (remove trim, or cbfc)"},
		{"topology: {kind: explicit, hosts: [h0, h1], switches: [{name: s0, switch: {trim: true}}], links: [[h0, s0], [h1, s0]]}\nswitch: {cbfc: true}\n", "t.yaml:1:76: topology.switches[0].switch.trim: with switch.cbfc nothing is dropped for want of buffer: nothing to trim (remove trim, or cbfc)"},
		{"topology: {kind: explicit, hosts: [h0, h1], switches: [{name: s0, switch: {trim: true}}], links: [[h0, s0], [h1, s0]]}\nswitch: {link_layer: infiniband}\n", "t.yaml:1:76: topology.switches[0].switch.trim: trim is Ultra Ethernet's packet trimming, for Ethernet switches: InfiniBand's links drop nothing for want of buffer"},
		// review F, finding 5: a trimmed header must be sent first and stay lossy
		{head + "switch: {trim: true, pfc: {priorities: [3, 7]}}\n", "t.yaml:2:10: switch.trim: a trimmed header leaves at priority 7, which switch.pfc.priorities makes lossless: lossy classes' trims would be paused and would pause upstream; keep priority 7 lossy"},
		{head + "switch: {trim: true, scheduler: {ets: {7: 50, 0: 50}}}\n", "t.yaml:2:10: switch.trim: a trimmed header leaves at priority 7, to be sent ahead of data, but switch.scheduler gives its traffic class (7) a weight: leave that class strict"},
		{"topology: {kind: explicit, hosts: [h0, h1], switches: [{name: s0, switch: {trim: true}}], links: [[h0, s0], [h1, s0]]}\nswitch: {pfc: {priorities: [7]}}\n", "t.yaml:1:76: topology.switches[0].switch.trim: a trimmed header leaves at priority 7, which switch.pfc.priorities makes lossless: lossy classes' trims would be paused and would pause upstream; keep priority 7 lossy"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s got  %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestTrimIncast: the uec-trim-incast example, a 16:1 incast of 1 MiB
// writes into a 4 MiB buffer without PFC: with trimming every flow
// completes with no retransmission timeout and no drop, every packet the
// switch trimmed reaches the receiver (and is counted in summary.json's
// uec), and each is resent once (retransmitted within 5% of trimmed:
// IRN resends what a trim NAKs). Without trimming the same incast drops
// and waits for timeouts.
func TestTrimIncast(t *testing.T) {
	src := exampleText(t, "uec-trim-incast")
	timeouts := func(n *Network) int64 { k, _, _ := uetCounts(n); return k }
	n, sum, _ := mustRun(t, mustParse(t, src))
	assertConserved(t, "trim", sum)
	u := sum.UEC
	if u == nil || u.Trimmed == 0 || u.TrimmedReceived != u.Trimmed || u.TrimmedBytes != u.Trimmed*4096 {
		t.Fatalf("uec counters %+v: want trims, each received, 4096 bytes each", u)
	}
	if k := timeouts(n); k != 0 || sum.Flows.Completed != 16 || sum.Packets.Dropped != 0 {
		t.Errorf("trim: %d timeouts, %d of 16 flows, %d drops; want 0, 16, 0", k, sum.Flows.Completed, sum.Packets.Dropped)
	}
	if r := sum.Packets.Retransmitted; math.Abs(float64(r-u.Trimmed)) > 0.05*float64(u.Trimmed) {
		t.Errorf("trim: %d retransmitted for %d trimmed; want one each within 5%%", r, u.Trimmed)
	}
	n, sum, _ = mustRun(t, mustParse(t, patch(t, src, "trim: true", "trim: false")))
	if k := timeouts(n); k == 0 || sum.Packets.Dropped == 0 || sum.UEC != nil {
		t.Errorf("no trim: %d timeouts, %d drops, uec %+v; want timeouts, drops and no uec counters", k, sum.Packets.Dropped, sum.UEC)
	}
}

// TestLLRLossyLink: the uec-llr-lossy-link example, four 4 MiB WRITEs
// into one host over a link that loses 1 frame in 100: with link-level
// retry no packet is dropped and the transport retransmits nothing, while
// the link NACKs each loss and replays the lost frame and those sent after
// it before the NACK came back: per NACK at least 1 and at most the frames
// of one round trip of the link (2 µs at 100 Gb/s, frames of 4178 bytes
// on the wire: 5.98) plus the one on the wire and the lost one. So also
// with CBFC on (credit updates held and resent in order: the credits
// balance). Without llr the same losses are drops and go-back-N resends.
func TestLLRLossyLink(t *testing.T) {
	src := exampleText(t, "uec-llr-lossy-link")
	frameTime := float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)*8) / 100e9 // the default MTU
	perNack := int64(math.Ceil(2e-6/frameTime)) + 2
	for _, c := range []struct{ name, from, to string }{
		{"llr", "llr: true", "llr: true"},
		{"llr+cbfc", "llr: true", "llr: true\n  cbfc: {buffer: 64KiB}"},
	} {
		_, sum, rows := mustRun(t, mustParse(t, patch(t, src, c.from, c.to)))
		assertConserved(t, c.name, sum)
		u := sum.UEC
		if u == nil || u.LLRNacks == 0 || u.LLRReplayed < u.LLRNacks || u.LLRReplayed > u.LLRNacks*perNack {
			t.Fatalf("%s: uec %+v; want NACKs, and between 1 and %d frames replayed a NACK", c.name, u, perNack)
		}
		if sum.Packets.Retransmitted != 0 || sum.Packets.Dropped != 0 || sum.Flows.Completed != 4 {
			t.Errorf("%s: %d retransmitted, %d dropped, %d of 4 flows; want 0, 0, 4", c.name, sum.Packets.Retransmitted, sum.Packets.Dropped, sum.Flows.Completed)
		}
		for _, r := range rows {
			if r.Retransmits != 0 {
				t.Errorf("%s: flow %d retransmitted %d", c.name, r.ID, r.Retransmits)
			}
		}
	}
	_, sum, _ := mustRun(t, mustParse(t, patch(t, src, "llr: true", "llr: false")))
	if sum.Packets.Retransmitted == 0 || sum.Packets.DropReasons["loss"] == 0 || sum.UEC != nil {
		t.Errorf("no llr: %d retransmitted, %d lost, uec %+v; want the transport to resend the losses", sum.Packets.Retransmitted, sum.Packets.DropReasons["loss"], sum.UEC)
	}
}

// TestUETWriteGoodput: one WRITE on Ultra Ethernet's transport moves its
// payload at the line rate × 4096 / 4218, its packets' share of the wire
// (fabric.UETWire: Ethernet 14, IPv4 20, UDP 8, PDS 12, SES standard 44,
// FCS 4, preamble and gap 20 around 4096 bytes), within 0.5%; RoCEv2's
// framing (4178 bytes) would be 0.96% faster and fail.
func TestUETWriteGoodput(t *testing.T) {
	sc := mustParse(t, `
stop: {at: 20ms, when: flows-done}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: uet}
traffic:
  - flow: {from: h0, to: h1, size: 64MiB}
`)
	_, sum, rows := mustRun(t, sc)
	assertConserved(t, "uet", sum)
	want := 100e9 * 4096 / float64(fabric.UETWire(fabric.OpWriteMiddle, 4096))
	got := float64(rows[0].SizeBytes*8) / (float64(rows[0].FCTNs) * 1e-9)
	if rows[0].Status != "success" || math.Abs(got-want)/want > 0.005 {
		t.Errorf("%s, %.3f Gb/s, want %.3f within 0.5%%", rows[0].Status, got/1e9, want/1e9)
	}
}

// TestUETTrimIncast: the uet-trim-incast example (the issue's: 16:1
// incast of 1 MiB, 4 MiB buffer, trimming, no PFC) completes within 1.25
// times the bound at UET's own frame size (16 MiB in frames of 4218
// bytes on the wire at 100 Gb/s, the first request's one-way trip
// aside), with no retransmission timeout, every trimmed packet resent
// once.
func TestUETTrimIncast(t *testing.T) {
	n, sum, rows := mustRun(t, mustParse(t, exampleText(t, "uet-trim-incast")))
	assertConserved(t, "uet trim", sum)
	end := uetEnd(rows)
	timeouts, _, _ := uetCounts(n)
	bound := float64(16<<20) / 4096 * float64(fabric.UETWire(fabric.OpWriteMiddle, 4096)) * 8 / 100e9 * 1e9
	u := sum.UEC
	if sum.Flows.Completed != 16 || float64(end) > 1.25*bound || timeouts != 0 || u == nil || u.Trimmed == 0 {
		t.Errorf("%d of 16 flows, done at %d ns (bound %.0f ns, 1.25x %.0f), %d timeouts, uec %+v", sum.Flows.Completed, end, bound, 1.25*bound, timeouts, u)
	}
	if r := sum.Packets.Retransmitted; math.Abs(float64(r-u.Trimmed)) > 0.05*float64(u.Trimmed) {
		t.Errorf("%d retransmitted for %d trimmed; want one each within 5%%", r, u.Trimmed)
	}
}

// TestLLRCBFCBothWays: link-level retry with credit flow control and
// traffic both ways across a lossy link (review F, finding 1). A credit
// update queued during a replay went ahead of the replayed frames, so the
// peer took counters that ran back, or counted frames twice, and a port
// sent without credit (a panic). LLR resends every loss on the link: the
// transport resends nothing, and nothing is dropped; the run is the same
// at 1 and 2 workers.
func TestLLRCBFCBothWays(t *testing.T) {
	src := `name: llr-cbfc
seed: 1
stop: {at: 20ms, when: flows-done}
topology: {kind: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}}
switch: {llr: true, cbfc: {buffer: 32KiB}, ecn: off}
hca: {cc: none}
traffic:
  - incast: {to: h4, from: [h0, h1, h2, h3], op: write, size: 4MiB}
  - incast: {to: h0, from: [h4], op: write, size: 8MiB}
faults:
  - {at: 0, link: [s0, h4], action: loss, rate: 1/50}
`
	sameAtWorkers(t, "llr+cbfc", "llr-cbfc.yaml", src, false, func(what string, _ *Network, r *reports.Results) {
		sum := r.Summary
		if sum.UEC == nil || sum.UEC.LLRNacks == 0 || sum.Packets.Retransmitted != 0 || sum.Packets.Dropped != 0 || sum.Flows.Completed != 5 {
			t.Fatalf("%s: uec %+v, %d retransmitted, %d dropped, %d of 5 flows; want NACKs, 0, 0, 5", what, sum.UEC, sum.Packets.Retransmitted, sum.Packets.Dropped, sum.Flows.Completed)
		}
	})
}

// TestLLRLossEnds: a loss fault that ends (until) while a NACK is on its
// way (review F, finding 2). The link's fast path came back as the loss
// rate went to 0, so the frames after skipped the hold and overtook the
// lost frame and those held after it: the transport saw a gap and
// resent end to end. The reviewer's table of until times gave 48, 48, 24
// and 70 retransmissions at 53, 54, 56 and 57 us; LLR resends every loss
// on the link, so each must give 0, with nothing dropped.
func TestLLRLossEnds(t *testing.T) {
	src := patch(t, exampleText(t, "uec-llr-lossy-link"), "size: 4MiB", "size: 1MiB")
	for _, until := range []string{"53us", "54us", "56us", "57us"} {
		sc := mustParse(t, patch(t, src, "rate: 1/100}", "rate: 1/5, until: "+until+"}"))
		_, sum, _ := mustRun(t, sc)
		assertConserved(t, "until "+until, sum)
		if sum.UEC == nil || sum.UEC.LLRNacks == 0 || sum.Packets.Retransmitted != 0 || sum.Packets.Dropped != 0 || sum.Flows.Completed != 4 {
			t.Errorf("until %s: uec %+v, %d retransmitted, %d dropped, %d of 4 flows; want NACKs, 0, 0, 4", until, sum.UEC, sum.Packets.Retransmitted, sum.Packets.Dropped, sum.Flows.Completed)
		}
	}
}

// TestCBFCHPCCRequestsCarryINT: under cbfc a host asks for a request's
// credit before it sends it (hca's refuses, by nextFrame), and an HPCC
// QP's requests carry the INT header (42 bytes): a 4096-byte WRITE's
// frame is 4,200 bytes, 66 credits of 64 where it counted 65. The
// metamorphic test's seed 32007000 (testdata/panic-32007000): h11's port
// started a request with 65 credits and panicked; with the header
// counted it waits for the 66th, and every byte is accounted for.
func TestCBFCHPCCRequestsCarryINT(t *testing.T) {
	src := `name: cbfc-hpcc
seed: 32007000
stop: {at: 320us}
topology:
  kind: fat-tree
  k: 4
  link: {rate: 40Gbps, delay: 2us}
switch:
  cbfc: true
hca:
  cc: hpcc
traffic:
  - rping: {client: h3, server: h11, count: 100000}
  - permutation: {hosts: [h15, h11, h0, h5, h1, h2], qp: uc, size: 256MiB}
`
	_, sum, _ := mustRun(t, mustParse(t, src))
	assertConserved(t, "cbfc with hpcc", sum)
	if sum.Conservation.FCPackets.Made == 0 || sum.Packets.Dropped != 0 {
		t.Errorf("cbfc with hpcc: %d credit updates, %d drops; want credits at work and no drop", sum.Conservation.FCPackets.Made, sum.Packets.Dropped)
	}
}
