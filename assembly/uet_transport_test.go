package assembly

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// TestUETNSCCIncast: the uet-nscc-incast example, the 16:1
// incast of 1 MiB into a 4 MiB buffer with trimming and no PFC, under
// NSCC, completes within 1.25 times the bound at UET's own frame size
// (16 MiB in 4218-byte frames at 100 Gb/s, 1.38 ms) with no
// retransmission timeout, and trims fewer packets than without a
// control (uet-trim-incast: 37,626 trims, about nine a packet). With a
// buffer of 256 KiB, where NSCC's first windows (1.5 BDP each) overflow
// it, NSCC's reaction to trims holds them to under an eighth of what the
// run without a control trims (3,542 against 45,630); without that
// reaction (a trimmed packet's NACK taken as no signal) it trims 11,215.
// (At 256 KiB one retransmission timeout is left, with or without a
// control: the 4 MiB incast is the one held to none.)
func TestUETNSCCIncast(t *testing.T) {
	bound := float64(16<<20) / 4096 * float64(fabric.UETWire(fabric.OpWriteMiddle, 4096)) * 8 / 100e9 * 1e9
	nscc := exampleText(t, "uet-nscc-incast")
	none := exampleText(t, "uet-trim-incast")
	for _, c := range []struct {
		name       string
		nscc, none string
		// most is NSCC's trims as a share of the uncontrolled run's.
		most     float64
		timeouts int64
	}{
		{"4MiB", nscc, none, 0.01, 0},
		{"256KiB", patch(t, nscc, "buffer: 4MiB", "buffer: 256KiB"), patch(t, none, "buffer: 4MiB", "buffer: 256KiB"), 1.0 / 8, 1},
	} {
		n, sum, rows := mustRun(t, mustParse(t, c.nscc))
		assertConserved(t, c.name, sum)
		_, base, _ := mustRun(t, mustParse(t, c.none))
		timeouts, _, _ := uetCounts(n)
		end := uetEnd(rows)
		if sum.Flows.Completed != 16 || float64(end) > 1.25*bound || timeouts > c.timeouts {
			t.Errorf("%s: %d of 16 flows, done at %d ns (bound %.0f ns, 1.25x %.0f), %d timeouts", c.name, sum.Flows.Completed, end, bound, 1.25*bound, timeouts)
		}
		if sum.UEC == nil || base.UEC == nil || float64(sum.UEC.Trimmed) > c.most*float64(base.UEC.Trimmed) || base.UEC.Trimmed < 4096 {
			t.Errorf("%s: NSCC trimmed %v, no control %v; want at most %.3f of it (and at least a trim a packet without)", c.name, sum.UEC, base.UEC, c.most)
		}
		t.Logf("%s: done at %.3f of the bound; trims a packet: NSCC %.2f, none %.2f", c.name, float64(end)/bound,
			float64(sum.UEC.Trimmed)/4096, float64(base.UEC.Trimmed)/4096)
	}
}

// TestUETREPSDegradedUplink: the uet-reps-degraded-uplink example, a
// permutation of 2 MiB on a k=8 fat tree with one edge uplink at half
// rate. Oblivious spraying sends a quarter of each of the edge's four
// senders' packets over it, 2 MiB of frames at 50 Gb/s (2 MiB ×
// 4218/4096 × 8 / 50 Gb/s = 345.6 us): its last flow cannot end before
// that (within 3%). REPS recycles the entropy values whose packets came
// back unmarked and drops the marked ones, so its senders leave the slow
// uplink and the last flow ends before 0.9 of that floor (measured
// 291.0 us for seed 1; oblivious 521.7 us). The run is the same at 1 and 2
// workers.
func TestUETREPSDegradedUplink(t *testing.T) {
	src := exampleText(t, "uet-reps-degraded-uplink")
	floor := float64(2<<20) / 4096 * float64(fabric.UETWire(fabric.OpWriteMiddle, 4096)) * 8 / 50e9 * 1e9
	// last is when r's last flow ended, ns; all 128 must have.
	last := func(what string, r *reports.Results) float64 {
		if r.Summary.Flows.Completed != 128 {
			t.Fatalf("%s: %d of 128 flows", what, r.Summary.Flows.Completed)
		}
		return float64(uetEnd(r.Flows))
	}
	sameAtWorkers(t, "reps", "uet.yaml", src, false, func(what string, _ *Network, r *reports.Results) {
		end := last(what, r)
		if end > 0.9*floor {
			t.Errorf("%s: last flow at %.0f ns; want before 0.9 x %.0f ns (2 MiB at 50 Gb/s: oblivious spraying's floor)", what, end, floor)
		}
		t.Logf("%s: last flow at %.3f of the floor", what, end/floor)
	})
	const what = "oblivious, 1 workers"
	_, r := runConserved(t, what, "uet.yaml", patch(t, src, "spray: reps}", "spray: oblivious}"), 1)
	end := last(what, r)
	if end < 0.97*floor {
		t.Errorf("%s: last flow at %.0f ns; oblivious spraying cannot end before %.0f ns (its slow uplink's share)", what, end, floor)
	}
	t.Logf("%s: last flow at %.3f of the floor", what, end/floor)
}

// TestUETBlockErrors: hca.uet is refused at its key where it has no
// meaning, naming what to do; its cc stands in hca.cc's place.
func TestUETBlockErrors(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2}\n"
	for _, c := range []struct{ src, want string }{
		{head + "hca: {uet: {spray: reps}}\n", "t.yaml:2:12: hca.uet: hca.uet configures Ultra Ethernet's transport: set hca.transport: uet"},
		{head + "hca: {transport: uet, cc: dcqcn, uet: {cc: dctcp}}\n", "t.yaml:2:44: hca.uet.cc: the congestion control is given twice, as hca.cc and hca.uet.cc: give one"},
		{head + "hca: {transport: uet, uet: {spray: rps}}\n", "t.yaml:2:36: hca.uet.spray: unknown value rps (did you mean reps?); expected one of ecmp, oblivious, reps"},
		{head + "hca: {transport: uet, rto_high: 1ms, uet: {min_rto: auto}}\n", "t.yaml:2:44: hca.uet.min_rto: min_rto is uet-htsim's timeout, rto_low and rto_high IRN's: give one or the other"},
		{head + "hca: {transport: uet, uet: {min_rto: 0us}}\n", "t.yaml:2:29: hca.uet.min_rto: min_rto must be above 0 (or auto)"},
		{head + "hca: {transport: uet, uet: {ack_priority: 8}}\n", "t.yaml:2:43: hca.uet.ack_priority: 8 is out of range; expected 0..7"},
		{"topology: {kind: explicit, hosts: [{name: h0, hca: {uet: {spray: reps}}}, h1], switches: [s0], links: [[h0, s0], [h1, s0]]}\nhca: {transport: uet}\n", "t.yaml:1:58: topology.hosts[0].hca.uet: every NIC of a fabric runs UET alike: set hca.uet at the top level"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s got  %v\nwant %s", c.src, err, c.want)
		}
	}
	const flow = "traffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n"
	s, err := resolve.Parse("t.yaml", []byte(head+"hca: {transport: uet, uet: {cc: dctcp, spray: oblivious}}\n"+flow))
	if err != nil || s.HCA.CC != "dctcp" || s.UET.Spray != "oblivious" || len(s.Warnings) != 0 {
		t.Errorf("hca.uet {cc: dctcp, spray: oblivious}: %v, cc %q, spray %q, warnings %v", err, s.HCA.CC, s.UET.Spray, s.Warnings)
	}
	// receiver_credits: true runs RCCC (congestion/rccc.go), no longer
	// refused.
	s, err = resolve.Parse("t.yaml", []byte(head+"hca: {transport: uet, uet: {receiver_credits: true}}\n"+flow))
	if err != nil || !s.UET.ReceiverCredits || len(s.Warnings) != 0 {
		t.Errorf("hca.uet {receiver_credits: true}: %v, receiver credits %v, warnings %v", err, s.UET.ReceiverCredits, s.Warnings)
	}
	// A switch that chooses its ports itself overrides the sender's
	// entropy: warned.
	s, err = resolve.Parse("t.yaml", []byte(head+"switch: {load_balance: adaptive}\nhca: {transport: uet, uet: {spray: reps}}\n"+flow))
	want := "hca.uet.spray: the senders choose each packet's entropy (reps), but switch.load_balance adaptive chooses the ports itself and overrides it: set load_balance: ecmp"
	if err != nil || len(s.Warnings) != 1 || s.Warnings[0].Msg != want || s.Warnings[0].Line != 3 {
		t.Errorf("spray with adaptive switches: %v, warnings %+v; want line 3: %s", err, s.Warnings, want)
	}
	// The sprayer is the RC requester's (assembly attachCC): a READ's
	// responses and a UD QP's packets keep one entropy value, warned at
	// the item's op and qp, once an item; ecmp warns nothing.
	const reads = "traffic: [{flow: {from: h0, to: h1, size: 1MiB, op: read}}, {flow: {from: h0, to: h1, size: 4KiB, qp: ud, op: send}}]\n"
	for _, c := range []struct {
		spray string
		want  []string
	}{
		{"oblivious", []string{
			"3:53 traffic[0].flow.op: hca.uet.spray oblivious sprays RC QPs' requests: a READ's data is the responder's READ responses, which keep one entropy value, so ECMP keeps them on one path",
			"3:103 traffic[1].flow.qp: hca.uet.spray oblivious sprays RC QPs' requests: a UD QP's packets keep one entropy value, so ECMP keeps them on one path",
		}},
		{"ecmp", nil},
	} {
		s, err = resolve.Parse("t.yaml", []byte(head+"hca: {transport: uet, uet: {spray: "+c.spray+"}}\n"+reads))
		var got []string
		if s != nil {
			for _, w := range s.Warnings {
				got = append(got, fmt.Sprintf("%d:%d %s", w.Line, w.Col, w.Msg))
			}
		}
		if err != nil || strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("spray %s with a READ and a UD flow: %v\ngot  %q\nwant %q", c.spray, err, got, c.want)
		}
	}
}

// TestTrimmingEnvFromAnySwitch: a congestion control is told that the
// switches trim (congestion.Env.Trimming, NSCC's target delay: 0.75 ×
// the base RTT with trimming, uet-htsim's initNsccParams) when any
// switch does, by switch.trim at the top level or in a switch's own
// block; it was read from the top-level block alone, so a switch's own
// trim: true left NSCC's target at the whole base RTT.
func TestTrimmingEnvFromAnySwitch(t *testing.T) {
	var told []bool
	row := kind.CC{Name: "trimenv", Title: "TRIMENV", Basis: "fixed", RDMA: true, Ethernet: true, Metrics: []string{"rc_gbps"}}
	t.Cleanup(congestion.Register(congestion.Define(row, toyDefaults, nil, func(p toyParams, env congestion.Env) congestion.Sender {
		told = append(told, env.Trimming)
		return newToy(p, env)
	})))
	const tail = "hca: {transport: uet, cc: trimenv}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"top-level trim", "topology: {kind: star, hosts: 2}\nswitch: {trim: true, pfc: {priorities: []}}\n" + tail, true},
		{"no trim", "topology: {kind: star, hosts: 2}\nswitch: {pfc: {priorities: []}}\n" + tail, false},
		{"a switch's own trim", "topology: {kind: explicit, hosts: [h0, h1], switches: [{name: s0, switch: {trim: true}}], links: [[h0, s0], [h1, s0]]}\nswitch: {pfc: {priorities: []}}\n" + tail, true},
	} {
		told = nil
		mustRun(t, mustParse(t, c.src))
		if len(told) != 1 || told[0] != c.want {
			t.Errorf("%s: the control was told trimming %v, want [%v]", c.name, told, c.want)
		}
	}
}
