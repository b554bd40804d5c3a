package swtch_test

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

var link100 = fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}

const wire4k = 4178 // a 4096-byte RoCEv2 WRITE Middle on the wire

var frame4k = fabric.MaxRoCEv2Frame(4096)

// TestMD1QueueLength: 32 hosts send Poisson streams of fixed-size packets
// through one 100 Gb/s egress port (no PFC, no ECN, ample buffer). The
// time-averaged number of packets waiting is the M/D/1 queue's, rho^2 /
// (2 (1 - rho)), by the Pollaczek-Khinchine formula, within 5%. (Each
// host's own link smooths its stream a little; at 1/32 of the load each,
// that is well inside the tolerance.)
func TestMD1QueueLength(t *testing.T) {
	for _, tc := range []struct {
		rho     float64
		packets float64
	}{{0.5, 2e5}, {0.8, 4e5}, {0.9, 1e6}} {
		prof := noPFC()
		b := newBed(t, 33, link100, prof, 980)
		const wire = 1000
		service := float64(fabric.SerializationTime(wire, link100.Rate)) / 1e12
		rate := tc.rho / service / 32 // packets per second per host
		for i := 0; i < 32; i++ {
			b.hosts[i].startPoisson(b.flow(i, 32, 3, wire, 0), rate)
		}
		end := sim.Time(tc.packets / (tc.rho / service) * 1e12)
		b.eng.Run(end, nil)
		got := b.sw.QueueStats(b.portTo(32), 3).MeanPackets
		want := tc.rho * tc.rho / (2 * (1 - tc.rho))
		if math.Abs(got-want)/want > 0.05 {
			t.Errorf("rho %.1f: mean packets waiting %.4f, M/D/1 gives %.4f (off by %.1f%%)", tc.rho, got, want, 100*(got-want)/want)
		}
		t.Logf("rho %.1f: %.4f waiting, M/D/1 %.4f (%d packets)", tc.rho, got, want, b.hosts[32].rxPkts)
	}
}

// TestPFCOnlyUnfairness: one egress fed by three ingress ports carrying
// 2, 1 and 1 long flows, PFC on, no congestion control. The switch serves
// its inputs round robin and PFC pushes back per input, so each input gets
// a third of the link and the two flows sharing one input a sixth each:
// C/6, C/6, C/3, C/3 within 3% (the PFC unfairness the DCQCN paper's
// figure 3 shows).
func TestPFCOnlyUnfairness(t *testing.T) {
	b := newBed(t, 4, link100, swtch.DefaultProfile(), frame4k)
	fl := []*testFlow{
		b.flow(0, 3, 3, wire4k, -1), b.flow(0, 3, 3, wire4k, -1),
		b.flow(1, 3, 3, wire4k, -1), b.flow(2, 3, 3, wire4k, -1),
	}
	b.start()
	const dur = 5 * sim.Millisecond
	b.eng.Run(dur, nil)
	c := float64(link100.Rate)
	for i, want := range []float64{c / 6, c / 6, c / 3, c / 3} {
		got := float64(fl[i].rxBytes*8) / dur.Seconds()
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("flow %d: %.2f Gb/s, want %.2f ± 3%%", i, got/1e9, want/1e9)
		}
	}
	if b.sw.PortPrio(0, 3).PauseSent == 0 {
		t.Error("no PAUSE sent to the host with two flows")
	}
}

// TestHeadroomAuto: with headroom auto, a 16-to-1 incast loses nothing at
// 100 and 400 Gb/s over 1 and 5 us links, and no ingress queue holds more
// than XOFF plus the computed headroom (the IEEE 802.1Qbb bound holds);
// with headroom 30% below the bound, the same run drops for headroom.
func TestHeadroomAuto(t *testing.T) {
	for _, rate := range []fabric.Rate{100 * fabric.Gbps, 400 * fabric.Gbps} {
		for _, delay := range []sim.Time{sim.Microsecond, 5 * sim.Microsecond} {
			link := fabric.LinkSpec{Rate: rate, Delay: delay}
			run := func(prof swtch.Profile) *bed {
				b := newBed(t, 17, link, prof, frame4k)
				for i := 0; i < 16; i++ {
					b.flow(i, 16, 3, wire4k, -1)
				}
				b.start()
				b.eng.Run(2*sim.Millisecond, nil)
				return b
			}
			prof := swtch.DefaultProfile()
			b := run(prof)
			bound := b.sw.Headroom(0)
			if d := b.sw.Stats.Drops; d != [swtch.NumDropReasons]int64{} {
				t.Errorf("%v, %v: drops %v with auto headroom", rate, delay, d)
			}
			used := int64(0)
			for i := 0; i < 16; i++ {
				peak := b.sw.PeakIngress(i, 3)
				if peak > int64(prof.PFC.XOFF)+b.sw.Headroom(i) {
					t.Errorf("%v, %v: port %d held %d bytes, over XOFF %d + headroom %d", rate, delay, i, peak, prof.PFC.XOFF, b.sw.Headroom(i))
				}
				used = max(used, b.sw.PortPrio(i, 3).PeakHeadroom)
			}
			if used < bound/2 {
				t.Errorf("%v, %v: at most %d of %d headroom bytes used; the test does not stress the bound", rate, delay, used, bound)
			}
			t.Logf("%v, %v: headroom %d bytes, most used %d (%.0f%%)", rate, delay, bound, used, 100*float64(used)/float64(bound))

			prof.PFC.HeadroomAuto = false
			prof.PFC.Headroom = fabric.Size(bound * 7 / 10)
			if b := run(prof); b.sw.Stats.Drops[swtch.DropHeadroom] == 0 {
				t.Errorf("%v, %v: headroom 30%% below the bound dropped nothing", rate, delay)
			}
		}
	}
}

// TestPauseTiming: a PAUSE of q quanta at 100 Gb/s stops the upstream for
// q × 5.12 ns (one quantum is 512 bit times, IEEE 802.1Qbb), counted from
// when the PAUSE takes effect (its arrival plus the response delay), and
// never cuts the frame in flight: the next frame starts at the later of
// the pause's end and the in-flight frame's end, to the picosecond.
func TestPauseTiming(t *testing.T) {
	for _, tc := range []struct {
		quanta   uint16
		response sim.Time
	}{{100, 0}, {100, 700 * sim.Nanosecond}, {10, 0}, {1000, 250 * sim.Nanosecond}} {
		prof := noPFC()
		prof.PFC.ResponseAuto = false
		prof.PFC.Response = tc.response
		b := newBed(t, 2, link100, prof, frame4k)
		b.flow(0, 1, 3, wire4k, -1)
		var starts []sim.Time
		ser := fabric.SerializationTime(wire4k, link100.Rate)
		b.hosts[1].onRx = func(p *fabric.Packet) {
			starts = append(starts, b.eng.Now()-ser-link100.Delay)
		}
		b.start()
		b.eng.Run(20*sim.Microsecond+123*sim.Nanosecond, nil)
		b.hosts[1].port.SendPause(3, tc.quanta)
		sent := b.eng.Now()
		b.eng.Run(40*sim.Microsecond, nil)

		effect := sent + fabric.SerializationTime(fabric.PFCWireBytes, link100.Rate) + link100.Delay + tc.response
		pause := sim.Time(tc.quanta) * 5120 // ps
		// Find the frame that was on the wire when the pause took effect.
		var inFlightEnd, next sim.Time = -1, -1
		for i, s := range starts {
			if s <= effect && effect < s+ser {
				inFlightEnd = s + ser
				next = starts[i+1]
			}
		}
		if inFlightEnd < 0 {
			t.Fatalf("q %d: no frame in flight at %v", tc.quanta, effect)
		}
		want := max(effect+pause, inFlightEnd)
		if next != want {
			t.Errorf("q %d, response %v: next frame started at %d ps, want %d ps (pause from %d ps, frame in flight ends %d ps)",
				tc.quanta, tc.response, next, want, effect, inFlightEnd)
		}
	}
}

// TestResumeEndsPause: quanta 0 resumes at once.
func TestResumeEndsPause(t *testing.T) {
	prof := noPFC()
	prof.PFC.ResponseAuto = false
	b := newBed(t, 2, link100, prof, frame4k)
	f := b.flow(0, 1, 3, wire4k, -1)
	b.start()
	b.eng.Run(10*sim.Microsecond, nil)
	b.hosts[1].port.SendPause(3, fabric.MaxQuanta) // 335 us
	b.eng.Run(20*sim.Microsecond, nil)
	before := f.rxPkts
	b.eng.Run(30*sim.Microsecond, nil)
	if f.rxPkts != before {
		t.Fatalf("paused link delivered %d frames", f.rxPkts-before)
	}
	b.hosts[1].port.SendPause(3, 0)
	b.eng.Run(40*sim.Microsecond, nil)
	if f.rxPkts == before {
		t.Fatal("RESUME did not restart the link")
	}
	if s := b.sw.Ports()[1]; s.Stats.PauseRecv != 1 || s.Stats.ResumeRecv != 1 {
		t.Errorf("pause/resume received %d/%d, want 1/1", s.Stats.PauseRecv, s.Stats.ResumeRecv)
	}
}
