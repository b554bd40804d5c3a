package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// benchPairs is one scenario's runs of this build and of the build it is
// paired with (bench --vs), run in turn: this[i] and other[i] ran one
// after the other, so their ratio holds when the machine's speed drifts
// between pairs, as a shared machine's does (docs/PERFORMANCE.md: the
// same build ran 2.8 times as fast in one session as in the one before).
type benchPairs struct {
	name        string
	this, other []benchResult
}

// ratios returns this build's run time over the other's, pair by pair.
func (p benchPairs) ratios() []float64 {
	rs := make([]float64, len(p.this))
	for i := range p.this {
		rs[i] = p.this[i].Wall / p.other[i].Wall
	}
	return rs
}

// sameWork reports whether the two builds simulated the same thing:
// the same events, packet-hops and simulated time. Builds that differ
// here changed the model's results, and their speeds do not compare.
func (p benchPairs) sameWork() bool {
	a, b := p.this[0], p.other[0]
	return a.Events == b.Events && a.PacketHops == b.PacketHops && a.SimNs == b.SimNs
}

// writePairs prints a table of the paired runs: the medians of each
// build's run time, the median ratio with its least and greatest, the
// medians of each build's peak resident memory, and whether both did the
// same work.
func writePairs(w io.Writer, ps []benchPairs) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tthis wall s\tother wall s\tratio\tmin\tmax\tpairs\tthis RSS MiB\tother RSS MiB\tsame work\t\n")
	for _, p := range ps {
		wall := func(r benchResult) float64 { return r.Wall }
		rss := func(r benchResult) float64 { return float64(r.MaxRSS) / (1 << 20) }
		rs := p.ratios()
		m := median(rs) // sorts rs
		same := "yes"
		if !p.sameWork() {
			same = fmt.Sprintf("no (events %d vs %d)", p.this[0].Events, p.other[0].Events)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%d\t%.0f\t%.0f\t%s\t\n",
			p.name, medianOf(p.this, wall), medianOf(p.other, wall), m, rs[0], rs[len(rs)-1], len(rs),
			medianOf(p.this, rss), medianOf(p.other, rss), same)
	}
	tw.Flush()
}
