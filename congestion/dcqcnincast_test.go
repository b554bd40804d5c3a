package congestion

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestDCQCNNvidiaIncastFloor: why DCQCN with NVIDIA's defaults leaves the
// bottleneck idle after a 16:1 incast (docs/RELIABILITY.md, "DCQCN's
// incast utilisation"). The incast's first 20 us put about 2 MB behind
// the 100 Gb/s port (16 senders at line rate, PFC holding the rest), and
// every packet of it is marked (the queue is far above kmax); it drains
// in about 165 us, and all that time the receiver sends each QP a CNP
// every min_time_between_cnps (4 us). A QP that gets one every 5 us from
// 0 to 170 us is cut 35 times, each by at least rpg_min_dec_fac (50%),
// so after 17 cuts (100 Gb/s × 2^-17 = 0.76 Mb/s) it sits at rpg_min_rate
// (1 Mb/s), and nothing raises it until rpg_time_reset (300 us) after
// its last cut, when fast recovery takes it to (R_T + R_C)/2. R_T stays
// at the rate the first cut left, 100 × (1 - 1023/2048) = 50.05 Gb/s
// (clamp_tgt_rate is off and no timer increase came between the cuts),
// so the QP jumps to about 25 Gb/s and sixteen of them to 4× the port. From 170 to 470 us the QP sends
// at 1 Mb/s. With the CNP gap and the monitor period at the paper's 50
// us the same 170 us hold four cuts and the QP never falls below 6 Gb/s.
func TestDCQCNNvidiaIncastFloor(t *testing.T) {
	for _, c := range []struct {
		name        string
		gap         sim.Time // between CNPs to the QP
		monitor     sim.Time // rate_reduce_monitor_period
		wantFloor   bool     // R_C at rpg_min_rate when the CNPs stop
		wantAtLeast float64  // R_C at 170 us at least this (b/s)
	}{
		{"NVIDIA's defaults", 5 * sim.Microsecond, 4 * sim.Microsecond, true, 0},
		{"CNPs and cuts 50 us apart", 50 * sim.Microsecond, 50 * sim.Microsecond, false, 6e9},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := sim.NewEngine(1)
			p := DCQCNNvidia()
			p.ReduceMonitorPeriod = c.monitor
			var a applied
			d := NewDCQCN(eng, p, path100, a.apply)
			last := sim.Time(0)
			for at := sim.Time(0); at <= 170*sim.Microsecond; at += c.gap {
				eng.Run(at, nil)
				d.OnCNP(at)
				last = at
			}
			eng.Run(last+c.monitor, nil) // a deferred cut, if any
			lastCut := d.lastCut
			rc := float64(d.State(eng.Now()).Rate)
			if floor := rc <= float64(p.MinRate)*1.0000001; floor != c.wantFloor {
				t.Fatalf("R_C %.4g b/s when the CNPs stop; at rpg_min_rate: %v, want %v", rc, floor, c.wantFloor)
			}
			if rc < c.wantAtLeast {
				t.Fatalf("R_C %.4g b/s when the CNPs stop, want at least %.4g", rc, c.wantAtLeast)
			}
			if !c.wantFloor {
				return
			}
			rt := float64(d.State(eng.Now()).Target)
			eng.Run(lastCut+p.TimeReset-sim.Microsecond, nil)
			near(t, "R_C just before rpg_time_reset after the last cut", float64(d.State(eng.Now()).Rate), float64(p.MinRate), 1e-9)
			eng.Run(lastCut+p.TimeReset, nil)
			near(t, "R_C at the first timer event (fast recovery)", float64(d.State(eng.Now()).Rate), (rt+float64(p.MinRate))/2, 1e-9)
			if got := float64(d.State(eng.Now()).Rate); got < 24e9 || got > 26e9 {
				t.Errorf("fast recovery to %.4g b/s, want about 25 Gb/s", got)
			}
			if lastCut < 165*sim.Microsecond {
				t.Errorf("last cut at %v, want when the CNPs stop (170 us)", lastCut)
			}
		})
	}
}
