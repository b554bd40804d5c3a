package reports

import (
	"fmt"
	"html"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// timelineStages are timeline.csv's stages in the order a message meets
// them, with what each is, for the report's table (docs/OUTPUTS.md has
// the same list).
var timelineStages = []struct{ name, what string }{
	{"program", "the server's program: from its RECV's completion to its ibv_post_send"},
	{"post", "ibv_post_send waits for the posting thread's earlier doorbell (hca.doorbell_cost)"},
	{"doorbell", "the doorbell's MMIO write reaching the NIC (hca.doorbell_latency)"},
	{"wqe_fetch", "the NIC reads the WQE from the send queue, a PCIe round trip (hca.wqe_fetch_latency); none for an inline WQE"},
	{"dma_read", "the NIC reads the payload from host memory (hca.dma_latency); none for inline data"},
	{"tx_pipeline", "the NIC's transmit pipeline (hca.tx_pkt_latency)"},
	{"tx_wait", "the frame ready, waits for its port: a frame ahead of it (an ACK, another QP's data), a PFC pause or InfiniBand credits, the congestion control's rate, or the host interface still reading a payload (hca.host_bandwidth)"},
	{"serialization", "the frame's bits onto the link: wire bytes × 8 / rate, at each hop"},
	{"propagation", "the last bit travelling the link (link.delay), at each hop"},
	{"switch_pipeline", "the switch's pipeline (switch.latency; under cut-through, the default on InfiniBand, less the time the frame's bytes after its header took to arrive)"},
	{"switch_queue", "the frame waits in the switch's egress queue"},
	{"rx_pipeline", "the receiving NIC's pipeline (hca.rx_pkt_latency), and its receive buffer's wait and drain where hca.rx_rate slows it"},
	{"dma_cqe", "the NIC writes the data and the completion (CQE) into host memory (hca.dma_latency)"},
	{"send_cqe_wait", "the client waits for its own SEND's completion (the ACK) after the answer came"},
}

// timeline draws the runs' timeline.csv: one iteration of a latency program as
// a bar per message, its stages end to end, and the critical path's
// time by stage.
func (pg *page) timeline(runs []*Run) {
	var with []*Run
	for _, r := range runs {
		if len(r.Iteration) > 0 {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return
	}
	pg.section("One iteration, stage by stage", "timeline.csv: the client's SEND (ping), the server's answer (pong) and their ACKs, from the client's ibv_post_send; the ACKs run beside the critical path, whose stages add up to the iteration's time; the dashed line is where the client posts its next SEND")
	for _, r := range with {
		if len(runs) > 1 {
			fmt.Fprintf(&pg.b, "<h3>%s</h3>\n", html.EscapeString(r.Label))
		}
		pg.timelineChart(r.Iteration)
		pg.timelineTable(r.Iteration)
	}
}

// timelineChart is a horizontal bar per message: an invisible bar to its
// first stage's start, then its stages stacked end to end, each coloured
// by its stage.
func (pg *page) timelineChart(rows []TimelineRow) {
	var msgs []string
	byMsg := map[string][]TimelineRow{}
	for _, r := range rows {
		if r.Message == "iteration" {
			continue
		}
		if byMsg[r.Message] == nil {
			msgs = append(msgs, r.Message)
		}
		byMsg[r.Message] = append(byMsg[r.Message], r)
	}
	most := 0
	for _, m := range msgs {
		most = max(most, len(byMsg[m]))
	}
	// The first message on top: the category axis runs upward.
	cats := make([]string, len(msgs))
	for i, m := range msgs {
		cats[len(msgs)-1-i] = m
	}
	b := charts.NewBar()
	b.SetGlobalOptions(charts.WithInitializationOpts(pg.init("timeline", fmt.Sprintf("%dpx", 80+50*len(msgs)))),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "ns", Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: cats}),
		charts.WithGridOpts(opts.Grid{Top: "20", Bottom: "30", Left: "80", Right: "40"}),
		charts.WithAnimation(false))
	stack := opts.BarChart{Stack: "timeline", BarWidth: "50%"}
	offset := make([]opts.BarData, len(cats))
	for i, m := range cats {
		offset[i] = opts.BarData{Value: Round(psToNs(byMsg[m][0].Start), 3)}
	}
	b.AddSeries("start", offset, charts.WithBarChartOpts(stack), charts.WithItemStyleOpts(opts.ItemStyle{Color: "rgba(0,0,0,0)"}))
	for _, r := range rows {
		if r.Message == "iteration" { // where the client posts its next SEND
			b.AddSeries("iteration", nil, charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "next iteration", XAxis: Round(psToNs(r.End), 3)}),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, LineStyle: &opts.LineStyle{Color: "#c00000", Type: "dashed"},
					Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b} at {c} ns"}}))
		}
	}
	for k := 0; k < most; k++ {
		data := make([]opts.BarData, len(cats))
		for i, m := range cats {
			st := byMsg[m]
			if k >= len(st) {
				data[i] = opts.BarData{Value: "-"}
				continue
			}
			r := st[k]
			data[i] = opts.BarData{Name: r.Stage + " at " + r.Where, Value: Round(psToNs(r.End-r.Start), 3),
				ItemStyle: &opts.ItemStyle{Color: pg.color("stage:" + r.Stage)}}
		}
		b.AddSeries(fmt.Sprintf("stage %d", k+1), data, charts.WithBarChartOpts(stack))
	}
	pg.chart(b)
}

// timelineTable is the critical path's time by stage, in the order a
// message meets them, with what each stage is.
func (pg *page) timelineTable(rows []TimelineRow) {
	sum := map[string]int64{}
	var total int64
	for _, r := range rows {
		if r.Message == "iteration" {
			total = r.End - r.Start
		} else if r.Critical {
			sum[r.Stage] += r.End - r.Start
		}
	}
	var b strings.Builder
	b.WriteString("<table><tr><th>stage</th><th>on the critical path, ns</th><th>share</th><th style=\"text-align:left\">what it is</th></tr>\n")
	for _, s := range timelineStages {
		d, ok := sum[s.name]
		if !ok {
			continue
		}
		share := "n/a"
		if total > 0 {
			share = fmt.Sprintf("%.1f%%", 100*float64(d)/float64(total))
		}
		fmt.Fprintf(&b, "<tr><td><span style=\"color:%s\">■</span> %s</td><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td></tr>\n",
			pg.color("stage:"+s.name), s.name, nsText(d), share, html.EscapeString(s.what))
	}
	fmt.Fprintf(&b, "<tr><th>iteration</th><th>%s</th><th></th><th></th></tr>\n</table>\n", nsText(total))
	pg.b.WriteString(b.String())
}
