package assembly

import (
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/reports"
)

// startTimeline hooks observe.timeline's follower onto the network and
// its pingpong, before the run.
func (n *Network) startTimeline(v *observe.View) {
	at := n.Scenario.Observe.Timeline
	if at == nil {
		return
	}
	tr := n.Tests[at.Test]
	client, server := n.HCAs[tr.Test.Src], n.HCAs[tr.Test.Dst]
	if pp := tr.Pingpong; pp != nil {
		n.iteration = observe.NewTimeline(v, at.Traffic, at.Iteration, client, server, [2]*hca.QP{pp.QP(0), pp.QP(1)})
		pp.Watch = n.iteration
		return
	}
	pt := tr.Perftest
	n.iteration = observe.NewTimeline(v, at.Traffic, at.Iteration, client, server, [2]*hca.QP{pt.QP(0), pt.QP(1)})
	pt.Watch = n.iteration
}

// timelineResults adds timeline.csv and summary.json's timeline, or a
// warning saying why there are none.
func (n *Network) timelineResults(res *reports.Results) {
	if n.iteration == nil {
		return
	}
	rows, sum, err := n.iteration.Rows()
	if err != nil {
		res.Summary.Warnings = append(res.Summary.Warnings, err.Error())
		return
	}
	if res.Extra == nil {
		res.Extra = map[string][]byte{}
	}
	res.Extra["timeline.csv"] = reports.TimelineCSV(rows)
	res.Summary.Timeline = sum
}
