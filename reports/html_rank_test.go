package reports

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"
)

// TestStateChartsDrawTheActiveFlows: review J's finding 8. A control's
// state charts (alpha, the current rate) of twelve flows, eight idle at
// their initial value (alpha 1, the line rate of 100 Gb/s) and four
// reacting (alpha falling from 1 towards 0.2, the rate cut to 20-50
// Gb/s and recovering), draw the four active flows one by one and put
// only idle ones in the others' band. Ranked by their sum, the idle
// flows were the eight "largest": the chart drew them and the four that
// reacted were the grey band.
func TestStateChartsDrawTheActiveFlows(t *testing.T) {
	for _, c := range []struct {
		metric, title string
		idle          float64
		active        func(flow, i int) float64
	}{
		{MetricAlpha, "Alpha (" + drawnBy(MetricAlpha, "%s") + ")", 1, func(flow, i int) float64 { return 0.2 + 0.8/float64(1+i*(flow+1)) }},
		{MetricRCGbps, "Reaction point's current rate", 100, func(flow, i int) float64 { return float64(20 + 10*flow + i%5) }},
	} {
		r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{c.metric: {}},
			Wheres: map[string][]string{}, Params: map[string]string{}}
		for id := range 12 {
			where := fmt.Sprintf("flow:%d", id)
			var pts []Point
			for i := range 50 {
				v := c.idle
				if id >= 8 { // flows 8 to 11 react; 0 to 7 never start
					v = c.active(id-8, i)
				}
				if i == 0 {
					v = c.idle // every flow starts at the initial value
				}
				pts = append(pts, Point{TimeNs: int64(i+1) * 10_000, Value: v})
			}
			r.Series[c.metric][where] = pts
			r.Wheres[c.metric] = append(r.Wheres[c.metric], where)
		}
		spec := chartSpec(t, string(BuildHTML([]*Run{r})), html.EscapeString(c.title))
		got := seriesOf(spec)
		for _, active := range []string{"flow:8", "flow:9", "flow:10", "flow:11"} {
			if !slices.Contains(got, "line:"+active) {
				t.Errorf("%s: %s, which reacted, is not drawn: series %s", c.metric, active, strings.Join(got, "|"))
			}
		}
		if !slices.Contains(got, "line:others (4): mean") {
			t.Errorf("%s: no band of the 4 others: series %s", c.metric, strings.Join(got, "|"))
		}
	}
}
