package assembly

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestDCTCPQueueAmplitude: N = 2, 8, 32 long flows into one 100 Gb/s
// port under DCTCP, marking every packet above K. Alizadeh et al.
// (SIGCOMM 2010, section 3.3) analyse N synchronised flows: with W* =
// (C × RTT + K)/N the window at which the queue reaches K, the queue
// swings between Q_max = K + N and Q_max - A, with amplitude
//
//	A = N (W* + 1) alpha / 2,  alpha = sqrt(2 / W*)
//
// packets (about sqrt(2 N (C × RTT + K)) / 2). The test computes A for
// each N from the path's base RTT and compares it with the queue's swing,
// measured as the 99th minus the 1st percentile of the queue sampled
// every 100 ns over 2 ms; it also wants the port busy at least 95% of the
// time, and no PFC pause. Switches mark as packets arrive, as the paper's.
//
// Measured (C × RTT 239.5 packets of 1 KB, K 55.2): the swing is 14.0
// packets against 17.3 (N=2, -19%), 30.0 against 35.3 (N=8, -15%), 73.0
// against 76.1 (N=32, -4%); the queue's peak is within 2 packets of
// Q_max; mean alpha 0.138, 0.234, 0.378 against the analysis' 0.116,
// 0.233, 0.466; the port is busy all the time. The swing falls short
// most where few flows' cuts are least synchronised.
func TestDCTCPQueueAmplitude(t *testing.T) {
	for _, n := range []int{2, 8, 32} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			sc := mustParse(t, fmt.Sprintf(`
name: dctcp
stop: {at: 10ms}
topology: {kind: star, hosts: %d, link: {rate: 100Gbps, delay: 5us}}
switch: {ecn: {kmin: 60KB, kmax: 60KB, pmax: 1, mark: enqueue}}
hca: {cc: dctcp, mtu: 1024}
traffic:
  - incast: {to: h%d, from: all, size: 10GiB}
`, n+1, n))
			net, err := Build(sc)
			if err != nil {
				t.Fatal(err)
			}
			frame := float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 1024) - fabric.PreambleIFGBytes)
			wire := float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 1024))
			rtt := net.pathOf(net.Flows[0].Flow, net.Flows[0].Live.Requester).baseRTT(1024)
			bdp := 100e9 / 8 * rtt.Seconds() / wire // packets
			k := float64(sc.Switch.ECN.Kmin) / frame
			wstar := (bdp + k) / float64(n)
			alpha := math.Sqrt(2 / wstar)
			want := float64(n) * (wstar + 1) * alpha / 2

			sw, port := net.Switches[0], net.Fabric.Ports[0][n]
			t1, t2 := 2*sim.Millisecond, 4*sim.Millisecond
			net.Eng.Run(t1, nil)
			b1 := port.Stats.Busy
			var q []float64
			for at := t1; at < t2; at += 100 * sim.Nanosecond {
				net.Eng.Run(at, nil)
				q = append(q, float64(sw.QueueBytes(n, 3))/frame)
			}
			busy := float64(port.Stats.Busy-b1) / float64(t2-t1)
			meanAlpha, pauses := 0.0, int64(0)
			for i, f := range net.Flows {
				meanAlpha += f.Live.CC.State(t2).Alpha / float64(n)
				pauses += net.Fabric.Ports[0][i].Stats.PauseRecv
			}
			slices.Sort(q)
			pct := func(p float64) float64 { return q[int(p*float64(len(q)-1))] }
			got := pct(0.99) - pct(0.01)
			t.Logf("N=%d: C×RTT %.1f packets (RTT %v), K %.1f, W* %.1f: analysis alpha %.3f, A %.1f, Q_max %.1f; measured alpha %.3f, queue p1 %.1f p50 %.1f p99 %.1f (min %.1f max %.1f): swing %.1f (%+.0f%%); busy %.4f",
				n, bdp, rtt, k, wstar, alpha, want, k+float64(n), meanAlpha, pct(0.01), pct(0.5), pct(0.99), q[0], q[len(q)-1], got, 100*(got-want)/want, busy)
			if math.Abs(got-want)/want > 0.30 {
				t.Errorf("queue swing %.1f packets, analysis %.1f ± 30%%", got, want)
			}
			if pauses != 0 {
				t.Errorf("%d PFC pauses: the queue is to be DCTCP's alone", pauses)
			}
			if busy < 0.95 {
				t.Errorf("bottleneck busy %.4f of the time, want >= 0.95", busy)
			}
		})
	}
}

// TestDCTCPScenarioKeys: cc: dctcp turns on the paper's single-threshold
// marking when switch.ecn is not given, takes hca.dctcp over RFC 8257's
// defaults, makes the receiver ACK every packet and echo marks instead of
// sending CNPs, and warns where it cannot work: ECN off, READs.
func TestDCTCPScenarioKeys(t *testing.T) {
	sc := mustParse(t, "topology: {kind: star, hosts: 2}\nhca: {cc: dctcp, dctcp: {g: 0.125, initial_alpha: 0, initial_window: 64KiB}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n")
	if e := sc.Switch.ECN; !e.Enabled || e.Kmin != 100*fabric.KB || e.Kmax != e.Kmin || e.Pmax != 1 || !e.AtEnqueue {
		t.Errorf("switch ECN %+v, want marking every packet arriving above 100 KB", e)
	}
	if p := *ccParamsOf[congestion.DCTCPParams](sc, "dctcp"); p.G != 0.125 || p.InitialAlpha != 0 || p.InitialWindow != 64<<10 {
		t.Errorf("DCTCP parameters %+v", p)
	}
	n, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	if p := n.HCAs[sc.Topology.Hosts()[0]].Prof; p.AckEvery != 1 || !p.EchoECN {
		t.Errorf("receiver: ack_every %d, echo %v; want 1 and true", p.AckEvery, p.EchoECN)
	}
	for _, tc := range []struct{ src, warn string }{
		{"topology: {kind: star, hosts: 2}\nswitch: {ecn: off}\nhca: {cc: dctcp}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n",
			"w.yaml:2:10: switch.ecn: hca.cc is dctcp but ECN marking is off"},
		{"topology: {kind: star, hosts: 2}\nhca: {cc: dctcp}\ntraffic:\n  - flow: {from: h0, to: h1, op: read, size: 1MiB}\n",
			"w.yaml:4:34: traffic[0].flow.op: DCTCP does not control READs"},
	} {
		sc, err := resolve.Parse("w.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range sc.Warnings {
			warned = warned || strings.HasPrefix(w.Error(), tc.warn)
		}
		if !warned {
			t.Errorf("no warning %q in %v", tc.warn, sc.Warnings)
		}
	}
	if _, err := resolve.Parse("e.yaml", []byte("topology: {kind: star, hosts: 2}\nhca: {cc: dctcp, dctcp: {g: 0}}\n")); err == nil || !strings.Contains(err.Error(), "e.yaml:2:29: hca.dctcp.g: g is the weight") {
		t.Errorf("g: 0 gives %v", err)
	}
}

// TestDCTCPNoCNPs: under DCTCP the receiver answers marks in its ACKs:
// marks are counted, no CNP is sent, and the flow's alpha and window are
// time series.
func TestDCTCPNoCNPs(t *testing.T) {
	_, r := runSource(t, "d.yaml", `
name: d
topology: {kind: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}}
switch: {ecn: {kmin: 20KB, kmax: 20KB, pmax: 1, mark: enqueue}}
hca: {cc: dctcp, mtu: 1024}
observe: {interval: 5us}
traffic:
  - incast: {to: h4, from: all, size: 4MiB}
`)
	s := r.Summary
	if s.ECN.Marked == 0 || s.ECN.CNPs != 0 {
		t.Errorf("marked %d, CNPs %d: want marks and no CNP", s.ECN.Marked, s.ECN.CNPs)
	}
	if s.Flows.Completed != 4 {
		t.Errorf("%d of 4 flows completed", s.Flows.Completed)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(r.Series.CSV()), "\n") {
		if f := strings.Split(line, ","); len(f) == 4 && (f[1] == "alpha" || f[1] == "window_bytes") {
			seen[f[1]+" "+f[2]] = true
		}
	}
	for id := range 4 {
		for _, m := range []string{"alpha", "window_bytes"} {
			if !seen[fmt.Sprintf("%s flow:%d", m, id)] {
				t.Errorf("no %s series for flow %d", m, id)
			}
		}
	}
}
