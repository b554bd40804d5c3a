package congestion

import (
	"math"
	"math/rand/v2"

	"github.com/lfsim/lfsim/sim"
)

// RCCCOversubscription is a receiving host's control of its RCCC pacer's
// rate on an oversubscribed fabric, as uet-htsim runs it
// (htsim/sim/oversubscribed_cc.cpp, OversubscribedCC; the sink's counts
// in uec.cpp, UecSink::receivePacket, processData, processTrimmed):
// where the links above the hosts carry less than the hosts could send,
// credit granted at the receiver's line rate can still overfill them, and
// the receiver sees it in what reaches it: CE marks, and packets trimmed
// before its own link.
//
//   - The host counts the requests that reach its RCCC receivers (data,
//     trimmed headers and RTSs: data_received), the data packets among
//     them that came CE-marked (ecn_received), and the trimmed ones,
//     trimmed at its own link (the last hop) or before
//     (trimmed_received).
//   - Every (0.75 + u/2) × 1.5 base RTTs, u uniform in [0, 1)
//     (nextInterval: "target feedback delay is 1.5 baseRTTs",
//     randomized), it updates a rate, a share of the line rate starting
//     at 1 (doCongestionControl): the packets trimmed before the last
//     hop, as a share of those received, are taken off it; g, the marked
//     share of the untrimmed packets averaged with weight alpha 0.5,
//     cuts it by (g − 0.3) × Md 0.5 when above the target 0.3 (_Md,
//     _target_congestion); an interval without either cut raises it by
//     Ai 0.01 × 2^n when no packet was marked, n counting such intervals
//     in a row, by Ai when some were (_Ai); it stays between
//     max(0.9 / the oversubscription ratio, 0.01) and 1 (_min_rate:
//     setOversubscriptionRatio).
//   - The pacer grants credit at that share of its rate
//     (UecPullPacer::updatePullRate: the time a quantum takes divided by
//     it).
//
// uet-htsim runs it where the topology's oversubscription ratio (its
// tiers' Oversubscribed, multiplied) passes 1 and no sender control runs
// (main_uec.cpp: -receiver_cc_only), -force_disable_oversubscribed_cc
// turning it off; its base RTT is the network's largest unloaded RTT
// (calculate_rtt). lfsim's base RTT is the largest of the paths of the
// host's senders so far (SetBaseRTT). uet-htsim's timer runs from the
// start to the end; lfsim's stops after an interval in which nothing
// arrived with the rate back at 1, and starts again at the next arrival,
// with g halved for each interval missed (its decay with nothing marked),
// so that an idle host makes no events.
type RCCCOversubscription struct {
	eng     *sim.Engine
	p       *RCCCPacer
	rng     *rand.Rand
	baseRTT sim.Time
	minRate float64

	rate, g   float64
	increases int
	// since the last update
	received, ecn, trimmedLast, trimmedOther int64
	ticking                                  bool
	idleSince                                sim.Time

	// Cuts counts the updates that cut the rate.
	Cuts int64
}

// The oversubscription control's constants (oversubscribed_cc.cpp).
const (
	osTarget   = 0.3  // _target_congestion
	osAi       = 0.01 // _Ai
	osMd       = 0.5  // _Md
	osAlpha    = 0.5  // _alpha
	osMinFloor = 0.01 // _min_rate's floor
)

// NewRCCCOversubscription gives pacer p the control, on a fabric whose
// oversubscription ratio is ratio (above 1), with its interval's random
// draws from rng.
func NewRCCCOversubscription(eng *sim.Engine, p *RCCCPacer, ratio float64, rng *rand.Rand) *RCCCOversubscription {
	o := &RCCCOversubscription{eng: eng, p: p, rng: rng, rate: 1, minRate: max(0.9/ratio, osMinFloor)}
	p.os = o
	return o
}

// SetBaseRTT raises the base RTT the interval is made of to rtt.
func (o *RCCCOversubscription) SetBaseRTT(rtt sim.Time) { o.baseRTT = max(o.baseRTT, rtt) }

// Rate is the share of the line rate the pacer grants credit at.
func (o *RCCCOversubscription) Rate() float64 { return o.rate }

// arrived counts a request that reached one of the host's receivers: a
// data packet (CE-marked or not), a trimmed header (trimmed at the
// host's own link or before), or an RTS.
func (o *RCCCOversubscription) arrived(ce, trimmed, lastHop bool) {
	o.received++
	switch {
	case trimmed && lastHop:
		o.trimmedLast++
	case trimmed:
		o.trimmedOther++
	case ce:
		o.ecn++
	}
	if !o.ticking {
		o.ticking = true
		if o.idleSince > 0 && o.baseRTT > 0 {
			missed := float64(o.eng.Now()-o.idleSince) / (1.5 * float64(o.baseRTT))
			o.g *= math.Pow(1-osAlpha, math.Floor(missed))
		}
		o.eng.After(o.interval(), o, 0, 0, nil)
	}
}

// interval is the time to the next update (nextInterval).
func (o *RCCCOversubscription) interval() sim.Time {
	return max(1, sim.Time((0.75+o.rng.Float64()/2)*1.5*float64(o.baseRTT)))
}

// HandleEvent is an update (doCongestionControl).
func (o *RCCCOversubscription) HandleEvent(*sim.Event) {
	total, ecn, other := o.received, o.ecn, o.trimmedOther
	full := total - o.trimmedLast - other
	o.received, o.ecn, o.trimmedLast, o.trimmedOther = 0, 0, 0, 0
	var fraction float64
	if full != 0 {
		fraction = float64(ecn) / float64(full)
	}
	decrease := false
	if other > 0 {
		o.rate -= float64(other) / float64(total)
		decrease = true
	}
	o.g = o.g*(1-osAlpha) + osAlpha*fraction
	if o.g > osTarget {
		o.rate *= 1 - (o.g-osTarget)*osMd
		decrease = true
	}
	if decrease {
		o.increases = 0
		o.Cuts++
	} else {
		if ecn == 0 {
			o.rate += osAi * math.Pow(2, float64(o.increases))
		} else {
			o.rate += osAi
		}
		o.increases++
	}
	o.rate = min(max(o.rate, o.minRate), 1)
	if total == 0 && o.rate == 1 {
		o.ticking, o.idleSince = false, o.eng.Now()
		return
	}
	o.eng.After(o.interval(), o, 0, 0, nil)
}
