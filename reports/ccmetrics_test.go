package reports

import (
	"slices"
	"testing"

	_ "github.com/lfsim/lfsim/congestion" // the controls register their rows
	"github.com/lfsim/lfsim/kind"
)

// TestChartTitlesFromTheControls: the report's charts of the controls'
// series name the controls that draw them, from the table (each row's
// Metrics and Title), as the titles read when they were written by hand;
// and every metric a row lists is one timeseries.csv has.
func TestChartTitlesFromTheControls(t *testing.T) {
	for _, c := range []struct{ metric, format, want string }{
		{MetricRTGbps, "%s", "DCQCN"},
		{MetricAlpha, "%s", "DCQCN, DCTCP"},
		{MetricWindowBytes, "%s", "HPCC, DCTCP, NSCC"},
		{MetricRTTUs, "%s's samples", "TIMELY's samples"},
	} {
		if got := drawnBy(c.metric, c.format); got != c.want {
			t.Errorf("%s: %q, want %q", c.metric, got, c.want)
		}
	}
	known := []string{MetricRCGbps, MetricRTGbps, MetricAlpha, MetricWindowBytes, MetricCCTI, MetricRTTUs}
	for _, r := range kind.CCs() {
		for _, m := range r.Metrics {
			if !slices.Contains(known, m) {
				t.Errorf("%s adds series %q, which is none of a flow's metrics %v", r.Name, m, known)
			}
		}
	}
}
