package reports

import "math"

// stateMetrics are a congestion control's state per flow: each starts at
// its initial value (alpha 1, CCTI 0, the line rate, the initial window)
// and keeps it while its flow is idle (not started, or done), so what
// tells a flow that reacted from one that did not is how far its series
// moved from where it began, not how large it is. Ranked by their sum,
// as rates are, the idle flows' alpha of 1 and rate at line rate were
// the largest: the chart drew them and put the flows that reacted into
// the grey band (review J, finding 8).
var stateMetrics = map[string]bool{MetricAlpha: true, MetricCCTI: true, MetricRCGbps: true, MetricRTGbps: true, MetricWindowBytes: true}

// seriesRank is what orders a chart's series, the first drawn one by
// one: the largest value (peak), or for a control's state
// (stateMetrics) its departure from its first sample, summed over its
// samples (the samples are one interval apart, so this is the area
// between the series and its first value, per interval), or otherwise
// the sum of its values. The first sample stands for the initial value:
// the sampler writes a flow's state from the run's first sample whether
// the flow has started or not, and an idle flow's series is flat, so
// ranks 0, below every flow whose state moved at all. (A flow cut before
// the first sample and flat afterwards would rank 0 too; a control
// recovers by its timers, so its series moves again.)
func seriesRank(metric string, pts []Point, peak bool) float64 {
	rank := 0.0
	for _, p := range pts {
		switch {
		case peak:
			rank = math.Max(rank, p.Value)
		case stateMetrics[metric]:
			rank += math.Abs(p.Value - pts[0].Value)
		default:
			rank += p.Value
		}
	}
	return rank
}
