package reports

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// EventRow is one asynchronous event an HCA raised (events.csv): when,
// on which host, its libibverbs name and number (IBV_EVENT_PORT_ERR,
// 10), and what it is about ("port 1", "qp 0x000012 flow 3", "cq").
type EventRow struct {
	TimeNs int64
	Host   string
	Event  string
	Code   int
	Object string
}

// eventsHeader is events.csv's header.
var eventsHeader = []string{"time_ns", "host", "event", "code", "object"}

// EventsCSV renders events.csv.
func EventsCSV(rows []EventRow) []byte {
	var b strings.Builder
	b.WriteString(strings.Join(eventsHeader, ",") + "\n")
	for _, e := range rows {
		fmt.Fprintf(&b, "%d,%s,%s,%d,%s\n", e.TimeNs, e.Host, e.Event, e.Code, e.Object)
	}
	return []byte(b.String())
}

// loadEvents reads events.csv when the run wrote one.
func (r *Run) loadEvents(path string) error {
	return eachCSV(path, [][]string{eventsHeader}, func(_, rec []string) error {
		var p fieldParser
		t := p.count(rec, 0, eventsHeader, false)
		code := p.count(rec, 3, eventsHeader, false)
		if p.err == nil && code > math.MaxInt32 {
			p.err = fmt.Errorf("code: %q is out of range; expected at most %d", rec[3], math.MaxInt32)
		}
		if p.err != nil {
			return p.err
		}
		r.Events = append(r.Events, EventRow{TimeNs: t, Host: strings.Clone(rec[1]), Event: strings.Clone(rec[2]), Code: int(code), Object: strings.Clone(rec[4])})
		return nil
	})
}

// maxEventRows bounds the report's table of events.
const maxEventRows = 100

// events draws the runs' asynchronous events on a timeline (a point per
// event, a row per host, a colour per event type) and lists the first
// ones.
func (pg *page) events(runs []*Run) {
	n := 0
	for _, r := range runs {
		n += len(r.Events)
	}
	if n == 0 {
		return
	}
	pg.section("Asynchronous events", "what the HCAs raised (events.csv): link changes at a host's port (IBV_EVENT_PORT_ERR, PORT_ACTIVE), QPs that entered the error state (QP_FATAL at a requester, QP_ACCESS_ERR or QP_REQ_ERR at a responder), CQ overflows; hover a point for its object")
	var hosts []string
	seenHost := map[string]bool{}
	byType := map[string][]opts.ScatterData{}
	var types []string
	for _, r := range runs {
		for _, e := range r.Events {
			host := e.Host
			if len(runs) > 1 {
				host = r.Label + " · " + host
			}
			if !seenHost[host] {
				seenHost[host] = true
				hosts = append(hosts, host)
			}
			if _, ok := byType[e.Event]; !ok {
				types = append(types, e.Event)
			}
			byType[e.Event] = append(byType[e.Event], opts.ScatterData{Value: []any{Round(float64(e.TimeNs)/1e3, 3), host}, Name: e.Object, SymbolSize: 12})
		}
	}
	c := charts.NewScatter()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("events", fmt.Sprintf("%dpx", 120+30*len(hosts)))),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (µs)", NameLocation: "middle", NameGap: 28, Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: hosts}),
		charts.WithGridOpts(opts.Grid{Top: "40", Bottom: "50", Left: "90", Right: "30"}),
		charts.WithAnimation(false))
	for _, t := range types {
		c.AddSeries(t, byType[t], charts.WithItemStyleOpts(opts.ItemStyle{Color: pg.color(t)}))
	}
	pg.chart(c)
	pg.b.WriteString("<div style=\"overflow-x:auto;max-width:100%\">\n<table>\n<tr><th>time</th><th>host</th><th>event</th><th>object</th></tr>\n")
	shown := 0
	for _, r := range runs {
		for _, e := range r.Events {
			if shown == maxEventRows {
				break
			}
			shown++
			host := e.Host
			if len(runs) > 1 {
				host = r.Label + " · " + host
			}
			fmt.Fprintf(&pg.b, "<tr><td>%s</td><td>%s</td><td>%s (%d)</td><td>%s</td></tr>\n", fmtNs(float64(e.TimeNs)),
				html.EscapeString(host), html.EscapeString(e.Event), e.Code, html.EscapeString(e.Object))
		}
	}
	pg.b.WriteString("</table>\n</div>\n")
	if n > shown {
		fmt.Fprintf(&pg.b, "<p class=\"note\">The first %d of %d events; events.csv has them all.</p>\n", shown, n)
	}
}
