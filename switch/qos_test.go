package swtch_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// etsProfile is a switch trusting DSCP (26 to priority 3, 10 to 1) with
// ETS 70/30 between traffic classes 3 and 1 and class 6 strict, PFC on
// lossless or off.
func etsProfile(lossless bool) swtch.Profile {
	prof := swtch.DefaultProfile()
	if !lossless {
		prof = noPFC()
	} else {
		prof.PFC.Priorities = []uint8{1, 3}
	}
	prof.TrustDSCP = true
	m := swtch.DefaultDSCP2Prio()
	m[26], m[10] = 3, 1
	prof.DSCP2Prio = &m
	prof.DWRR = map[uint8]int{3: 7, 1: 3} // ets {3: 70, 1: 30} over their gcd
	return prof
}

// TestETSShares: two saturating senders into one 100 Gb/s egress, told
// apart only by their DSCP (26 and 10) under trust: dscp, with ETS 70/30
// between their classes: the egress carries them 70/30 within 3 points
// (IEEE 802.1Qaz: an ETS class gets its share of what the strict classes
// leave, here all of it), lossy or under PFC. The lossy case sends both
// on PCP 0, so without DSCP trust the two share one queue round robin
// (50/50) and the test fails; under PFC the senders tag the DSCP's
// priority, as a NIC trusting DSCP does, so that PAUSE reaches them.
func TestETSShares(t *testing.T) {
	for _, lossless := range []bool{false, true} {
		t.Run(fmt.Sprintf("lossless=%v", lossless), func(t *testing.T) {
			b := newBed(t, 3, link100, etsProfile(lossless), frame4k)
			var pcpHi, pcpLo uint8
			if lossless {
				pcpHi, pcpLo = 3, 1
			}
			hi := b.flow(0, 2, pcpHi, wire4k, -1)
			lo := b.flow(1, 2, pcpLo, wire4k, -1)
			hi.dscp, lo.dscp = 26, 10
			b.start()
			b.eng.Run(5*sim.Millisecond, nil)
			share := float64(hi.rxBytes) / float64(hi.rxBytes+lo.rxBytes)
			if math.Abs(share-0.70) > 0.03 {
				t.Errorf("DSCP 26's class got %.4f of the egress, want 0.70 ± 0.03", share)
			}
			// Counted per priority, as the per-class counters read them.
			tx3, tx1 := b.sw.PortPrio(2, 3).TxBytes, b.sw.PortPrio(2, 1).TxBytes
			if got := float64(tx3) / float64(tx3+tx1); math.Abs(got-share) > 0.01 {
				t.Errorf("egress counters: priority 3 sent %.4f of the bytes, the receivers saw %.4f", got, share)
			}
			t.Logf("share of DSCP 26 (ETS 70): %.4f; priority 3 %d bytes, priority 1 %d", share, tx3, tx1)
		})
	}
}

// TestETSIdleClassRedistributed: with the 70% class idle, the 30% class
// takes the whole egress (802.1Qaz redistributes an idle class's share):
// the receiver's goodput is the link's within 1%, its wire bytes over 5
// ms against 100 Gb/s × 5 ms.
func TestETSIdleClassRedistributed(t *testing.T) {
	b := newBed(t, 3, link100, etsProfile(true), frame4k)
	lo := b.flow(1, 2, 1, wire4k, -1)
	lo.dscp = 10
	b.start()
	const run = 5 * sim.Millisecond
	b.eng.Run(run, nil)
	full := float64(fabric.BytesIn(run, link100.Rate))
	if got := float64(lo.rxBytes) / full; got < 0.99 {
		t.Errorf("the 30%% class alone got %.4f of the link, want the whole link (≥ 0.99)", got)
	}
}

// TestETSStrictClassFirst: a strict class (6) is served before the ETS
// classes: a saturating sender on DSCP 48 (priority 6 by the default
// map) starves the 70/30 classes.
func TestETSStrictClassFirst(t *testing.T) {
	prof := etsProfile(false)
	b := newBed(t, 4, link100, prof, frame4k)
	hi := b.flow(0, 3, 0, wire4k, -1)
	lo := b.flow(1, 3, 0, wire4k, -1)
	cnp := b.flow(2, 3, 0, wire4k, -1)
	hi.dscp, lo.dscp, cnp.dscp = 26, 10, 48
	b.start()
	b.eng.Run(5*sim.Millisecond, nil)
	if frac := float64(cnp.rxBytes) / float64(hi.rxBytes+lo.rxBytes+cnp.rxBytes); frac < 0.99 {
		t.Errorf("strict class 6 got %.4f of the egress, want all of it (≥ 0.99)", frac)
	}
}

// TestPrio2TC: priorities 1 and 2 in one ETS class (30%) share it round
// robin, against priority 3 alone in the other (70%): 70/15/15 within 3
// points.
func TestPrio2TC(t *testing.T) {
	prof := noPFC()
	prof.Prio2TC = &[8]uint8{0, 1, 1, 3, 4, 5, 6, 7}
	prof.DWRR = map[uint8]int{3: 7, 1: 3}
	b := newBed(t, 4, link100, prof, frame4k)
	f3 := b.flow(0, 3, 3, wire4k, -1)
	f1 := b.flow(1, 3, 1, wire4k, -1)
	f2 := b.flow(2, 3, 2, wire4k, -1)
	b.start()
	b.eng.Run(5*sim.Millisecond, nil)
	total := float64(f1.rxBytes + f2.rxBytes + f3.rxBytes)
	for _, c := range []struct {
		name string
		f    *testFlow
		want float64
	}{{"priority 3 (class 3)", f3, 0.70}, {"priority 1 (class 1)", f1, 0.15}, {"priority 2 (class 1)", f2, 0.15}} {
		if got := float64(c.f.rxBytes) / total; math.Abs(got-c.want) > 0.03 {
			t.Errorf("%s got %.4f of the egress, want %.2f ± 0.03", c.name, got, c.want)
		}
	}
}
