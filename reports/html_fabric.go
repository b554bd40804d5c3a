package reports

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/fabric"
)

// Fabric is what a run's network is made of, as far as its report
// chooses rows, captions and charts by it: a caller that has the
// resolved scenario gives it (resolve.Scenario.ReportFabric, from each
// node's link layer and the kinds' tables), since reports knows no
// scenario; without it (a folder whose scenario no longer loads), the
// report tells from the run's files (inferFabric).
type Fabric struct {
	// Ethernet and InfiniBand are the link layers of its nodes (both on
	// a network that mixes them, VPI). Ethernet ports pause by PFC;
	// InfiniBand ports wait for credit, and InfiniBand switches have no
	// shared buffer (switch.buffer is refused there).
	Ethernet, InfiniBand bool
	// ECN: its Ethernet hosts' transport carries IP (kind.Transport.IP),
	// whose ECN field switches mark and to which receivers answer with
	// CNPs; RoCEv1 has none.
	ECN bool
	// FECN: its InfiniBand hosts run a congestion control that reacts
	// to marks (kind.CC.ECN: InfiniBand congestion control), so that
	// switches mark FECN, receivers return BECNs and sources keep a CCT
	// index.
	FECN bool
}

// inferFabric tells a run's fabric from its files when no caller gave
// it: InfiniBand where ports waited for credit or made flow-control
// packets, Ethernet otherwise or where a mixed network's summary keeps
// the two apart (pfc.credit_wait_ns); FECN where sources kept a CCT
// index.
func inferFabric(r *Run) *Fabric {
	s := &r.Summary
	ib := len(r.Wheres[MetricCreditWait]) > 0 || s.Conservation.FCPackets.Made > 0
	eth := !ib || s.PFC.CreditWaitNs != nil
	return &Fabric{Ethernet: eth, InfiniBand: ib, ECN: eth, FECN: ib && len(r.Wheres[MetricCCTI]) > 0}
}

// fabricOf is r's fabric: the one its caller gave, or inferFabric's.
func fabricOf(r *Run) *Fabric {
	if r.Fabric != nil {
		return r.Fabric
	}
	return inferFabric(r)
}

// anyFabric reports whether some run's fabric has what has asks.
func anyFabric(runs []*Run, has func(*Fabric) bool) bool {
	for _, r := range runs {
		if has(fabricOf(r)) {
			return true
		}
	}
	return false
}

// fabricRows adds the summary table's rows of what paused or waited and
// of congestion marks, as each run's fabric has them: PFC frames and
// pauses on Ethernet; flow-control packets and credit waits on
// InfiniBand (a mixed network has both, each for its own ports); ECN
// marks and CNPs where the transport carries IP; FECN, BECN and the
// peak CCT index under InfiniBand congestion control. A run whose
// fabric has no such thing shows n/a in a row another run needs.
func (pg *page) fabricRows(runs []*Run, row func(name string, f func(r *Run) string)) {
	na := "n/a"
	if anyFabric(runs, func(f *Fabric) bool { return f.Ethernet }) {
		row("PFC pause / resume frames", func(r *Run) string {
			if !fabricOf(r).Ethernet {
				return na
			}
			return fmt.Sprintf("%d / %d", r.Summary.PFC.PauseFrames, r.Summary.PFC.ResumeFrames)
		})
		row("paused by PFC in total", func(r *Run) string {
			if !fabricOf(r).Ethernet {
				return na
			}
			return fmtNs(float64(r.Summary.PFC.PausedNs))
		})
	}
	if anyFabric(runs, func(f *Fabric) bool { return f.InfiniBand }) {
		row("credit flow-control packets", func(r *Run) string {
			if !fabricOf(r).InfiniBand {
				return na
			}
			return fmt.Sprint(r.Summary.Conservation.FCPackets.Made)
		})
		row("waited for credit in total", func(r *Run) string {
			f, s := fabricOf(r), &r.Summary
			switch {
			case !f.InfiniBand:
				return na
			case s.PFC.CreditWaitNs != nil: // a mixed network keeps them apart
				return fmtNs(float64(*s.PFC.CreditWaitNs))
			}
			return fmtNs(float64(s.PFC.PausedNs))
		})
	}
	ecn := anyFabric(runs, func(f *Fabric) bool { return f.ECN })
	fecn := anyFabric(runs, func(f *Fabric) bool { return f.FECN })
	if ecn || fecn {
		name := "ECN marked / CNPs"
		switch {
		case ecn && fecn:
			name = "ECN or FECN marked / CNPs or BECNs"
		case fecn:
			name = "FECN marked / BECNs"
		}
		row(name, func(r *Run) string {
			if f := fabricOf(r); !f.ECN && !f.FECN {
				return na
			}
			return fmt.Sprintf("%d / %d", r.Summary.ECN.Marked, r.Summary.ECN.CNPs)
		})
	}
	if fecn {
		row("CCT index, highest", func(r *Run) string {
			if !fabricOf(r).FECN {
				return na
			}
			peak := 0.0
			for _, pts := range r.Series[MetricCCTI] {
				for _, p := range pts {
					peak = math.Max(peak, p.Value)
				}
			}
			return fmt.Sprint(peak)
		})
	}
}

// completedOr is f's figure, or n/a when no flow completed: FCT,
// slowdown and fairness are over the completed flows, and with none
// they have no value (summary.json writes 0).
func completedOr(r *Run, f func(s *Summary) string) string {
	if r.Summary.Flows.Completed == 0 {
		return "n/a (no flow completed)"
	}
	return f(&r.Summary)
}

// bufferRuns are runs as the shared-buffer chart draws them: only the
// switches whose link layer has a shared buffer (Ethernet's; an
// InfiniBand switch's input buffers are per port and VL, and
// switch.buffer is refused there). A run's Wheres are copied, never
// changed.
func bufferRuns(runs []*Run) []*Run {
	out := make([]*Run, 0, len(runs))
	for _, r := range runs {
		f := fabricOf(r)
		switch {
		case !f.InfiniBand:
			out = append(out, r)
		case f.Ethernet && r.Topo != nil:
			// A mixed network: its Ethernet switches, by topology.json.
			eth := map[string]bool{}
			for _, n := range r.Topo.Nodes {
				if n.LinkLayer != fabric.InfiniBand.String() {
					eth[n.Name] = true
				}
			}
			c := *r
			c.Wheres = map[string][]string{}
			for m, ws := range r.Wheres {
				c.Wheres[m] = ws
			}
			var keep []string
			for _, w := range r.Wheres[MetricBufferBytes] {
				if eth[w] {
					keep = append(keep, w)
				}
			}
			c.Wheres[MetricBufferBytes] = keep
			out = append(out, &c)
		}
	}
	return out
}
