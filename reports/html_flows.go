package reports

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// cdfs draws the completed flows' FCT and slowdown distributions, and
// for flows connected by rdma_cm their connection set-up's.
func (pg *page) cdfs(runs []*Run) {
	for _, which := range []string{"connect", "fct", "slowdown"} {
		drawn := false
		c := charts.NewLine()
		name, text := "FCT CDF", "completion time of the completed flows (µs)"
		xname := "FCT (µs)"
		switch which {
		case "slowdown":
			name, text, xname = "Slowdown CDF", "each completed flow's FCT divided by its ideal on an empty network", "slowdown"
		case "connect":
			name, text, xname = "Connection set-up CDF", "each flow's rdma_cm connection set-up (flows.csv connect_ns), from its start to ESTABLISHED at its source (ms): a FIFO of QP commands on each HCA makes it a ramp when many connect at once", "set-up (ms)"
		}
		xaxis := cdfAxis(runs, which)
		xaxis.Name, xaxis.NameLocation, xaxis.NameGap = xname, "middle", 25 // the axis name under the axis, where any length fits
		c.SetGlobalOptions(charts.WithInitializationOpts(pg.init(which, "360px")),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
			charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(runs) > 1), Type: "scroll"}),
			charts.WithXAxisOpts(xaxis),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Max: 1, Name: "fraction of flows"}),
			charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "55", Left: "60", Right: "40"}),
			charts.WithAnimation(false))
		for _, r := range runs {
			sample := &r.Flows.FCT
			switch which {
			case "connect":
				sample = &r.Flows.Connect
			case "slowdown":
				sample = &r.Flows.Slowdown
			}
			if sample.N == 0 {
				continue
			}
			xs := sample.Sorted()
			if sample.Sampled() {
				of := ""
				if len(runs) > 1 {
					of = " of " + r.Label
				}
				pg.note(fmt.Sprintf("the %s%s draws a uniform sample of %d of its %d flows (the least and greatest exact)", name, of, len(xs), sample.N))
			}
			drawn = true
			step := max(1, len(xs)/maxCDFPoints)
			var data []opts.LineData
			for i := 0; i < len(xs); i += step {
				data = append(data, opts.LineData{Value: []any{Round(xs[i], 4), Round(float64(i+1)/float64(len(xs)), 4)}})
			}
			if (len(xs)-1)%step != 0 {
				data = append(data, opts.LineData{Value: []any{Round(xs[len(xs)-1], 4), 1}})
			}
			c.AddSeries(r.Label, data, charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(len(xs) < 50)}))
		}
		if !drawn {
			continue
		}
		pg.section(name, text)
		pg.chart(c)
	}
}

// cdfLogSpread is the ratio of the largest to the least value from which
// a CDF's axis is logarithmic: flows of 1 KB and 10 MB on one linear axis
// put the small ones in one pixel.
const cdfLogSpread = 100

// cdfAxis is the x axis of a CDF of which (fct, slowdown or connect):
// linear from zero (an FCT CDF drawn from its least value made flows
// within 3 µs of each other span the chart; issue 51), or logarithmic
// when the values span cdfLogSpread or more.
func cdfAxis(runs []*Run, which string) opts.XAxis {
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		sample := &r.Flows.FCT
		switch which {
		case "connect":
			sample = &r.Flows.Connect
		case "slowdown":
			sample = &r.Flows.Slowdown
		}
		if sample.N == 0 {
			continue
		}
		lo, hi = math.Min(lo, sample.min), math.Max(hi, sample.max)
	}
	if lo > 0 && hi/lo >= cdfLogSpread {
		return opts.XAxis{Type: "log"}
	}
	return opts.XAxis{Type: "value", Min: 0}
}

// fctBuckets draws summary.json's fct_buckets: the median and 99th
// percentile slowdown of each 5% of the completed flows, by size.
func (pg *page) fctBuckets(runs []*Run) {
	n := 0
	for _, r := range runs {
		n = max(n, len(r.Summary.FCTBuckets))
	}
	if n < 2 {
		return
	}
	var xs []string
	for i := 0; i < n; i++ {
		xs = append(xs, fmt.Sprintf("%.0f%%", float64(i+1)*100/float64(n)))
	}
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("fct_buckets", "360px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "flows by size"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "slowdown"}),
		charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "40", Left: "60", Right: "100"}),
		charts.WithAnimation(false))
	c.SetXAxis(xs)
	for _, r := range runs {
		if len(r.Summary.FCTBuckets) < 2 {
			continue
		}
		for _, which := range []string{"p50", "p99"} {
			var data []opts.LineData
			for _, b := range r.Summary.FCTBuckets {
				v := b.P50Slowdown
				if which == "p99" {
					v = b.P99Slowdown
				}
				data = append(data, opts.LineData{Value: v, Name: fmt.Sprintf("flows up to %d B (%d flows)", b.SizeMax, b.Count)})
			}
			name := which
			if len(runs) > 1 {
				name = r.Label + " · " + which
			}
			c.AddSeries(name, data)
		}
	}
	pg.section("Slowdown by flow size", "median and 99th-percentile slowdown of each 5% of the completed flows, sorted by size (summary.json's fct_buckets; hover for each bucket's largest size)")
	pg.chart(c)
}

// fmtNs prints nanoseconds in the unit that reads best.
func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3gs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.4gms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.4gµs", ns/1e3)
	}
	return fmt.Sprintf("%.4gns", ns)
}

// hasUplinks reports whether some run measured its uplinks.
func hasUplinks(runs []*Run) bool {
	for _, r := range runs {
		if r.Summary.Uplinks != nil {
			return true
		}
	}
	return false
}

// uplinks draws each run's uplinks (uplinks.csv) from the busiest to the
// idlest, each as its bytes over the run's mean: a flat line at 1 is a
// perfectly even fabric; per-flow ECMP's collisions show as a few
// uplinks far above it and many below.
func (pg *page) uplinks(runs []*Run) {
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("uplinks", "360px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(runs) > 1), Type: "scroll"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: 100, Name: "uplinks, busiest first (%)"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Name: "bytes sent / mean"}),
		charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "40", Left: "60", Right: "80"}),
		charts.WithAnimation(false))
	drawn := false
	for _, r := range runs {
		n := len(r.Uplinks)
		if n < 2 {
			// One uplink is one dot at 1 on a 0-100% axis: nothing to
			// compare (the summary table says its count).
			continue
		}
		loads := make([]float64, n)
		var total float64
		for i, u := range r.Uplinks {
			loads[i] = float64(u.Bytes)
			total += loads[i]
		}
		if total == 0 {
			continue
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(loads)))
		mean := total / float64(n)
		step := max(1, n/maxCDFPoints)
		var data []opts.LineData
		for i := 0; i < n; i += step {
			data = append(data, opts.LineData{Value: []any{Round(float64(i)*100/float64(n), 3), Round(loads[i]/mean, 4)}})
		}
		if (n-1)%step != 0 {
			data = append(data, opts.LineData{Value: []any{Round(float64(n-1)*100/float64(n), 3), Round(loads[n-1]/mean, 4)}})
		}
		c.AddSeries(r.Label, data, charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(n < 50)}))
		drawn = true
	}
	if !drawn {
		return
	}
	pg.section("Uplink load", "bytes each uplink (a switch's port toward the core) sent over the run, over the mean, busiest first: flat at 1 is an even spread (switch.load_balance); uplinks.csv holds every port")
	pg.chart(c)
}
