package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// pausedByPort is each port's mean fraction of the run spent waiting,
// the largest over its priorities or VLs: paused by PFC (Ethernet) or
// waiting for credit (InfiniBand; a mixed network has both, each port
// one).
func pausedByPort(r *Run) map[string]float64 {
	out := map[string]float64{}
	for _, metric := range []string{MetricPaused, MetricCreditWait} {
		for where, pts := range r.Series[metric] {
			port := where
			if i := strings.LastIndexByte(where, ':'); i >= 0 {
				port = where[:i]
			}
			sum := 0.0
			for _, p := range pts {
				sum += p.Value
			}
			if len(pts) > 0 {
				out[port] = math.Max(out[port], sum/float64(len(pts)))
			}
		}
	}
	return out
}

// waitWords says how a run's ports waited, for the topology's caption
// and tooltips: "paused" (PFC, Ethernet), "waited for credit"
// (InfiniBand), or both on a mixed network.
func waitWords(r *Run) (verb, noun string) {
	f := fabricOf(r)
	switch {
	case f.InfiniBand && f.Ethernet:
		return "paused by PFC (Ethernet) or waited for credit (InfiniBand)", "paused or credit-wait fraction"
	case f.InfiniBand:
		return "waited for credit", "credit-wait fraction"
	}
	return "paused", "paused fraction"
}

func nodeOf(port string) string {
	if i := strings.LastIndexByte(port, ':'); i >= 0 {
		return port[:i]
	}
	return port
}

// topology draws the nodes in layers (hosts at the bottom, then switches
// by their distance from a host), or a ring of switches as a ring
// (switchRing), and colours each link by the fraction of
// the run its more paused end spent paused, or on InfiniBand waiting for
// credit; the deadlock cycle is red.
func (pg *page) topology(r *Run) {
	if r.Topo == nil || len(r.Topo.Nodes) == 0 {
		return
	}
	t := r.Topo
	verb, noun := waitWords(r)
	if len(t.Nodes) <= maxTopoNodes {
		pg.section("Topology", "Links are coloured by the largest fraction of the run either end "+verb+" (grey: never; orange to dark red: more); a deadlock cycle is drawn in red, thick. Hover for details.")
	}
	adj := map[string][]string{}
	for _, l := range t.Links {
		a, b := nodeOf(l.A), nodeOf(l.B)
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	level := map[string]int{}
	var queue []string
	for _, n := range t.Nodes {
		if n.Kind == "host" {
			level[n.Name] = 0
			queue = append(queue, n.Name)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range adj[n] {
			if _, ok := level[m]; !ok {
				level[m] = level[n] + 1
				queue = append(queue, m)
			}
		}
	}
	byLevel := map[int][]string{}
	maxLevel := 0
	for _, n := range t.Nodes {
		l, ok := level[n.Name]
		if !ok {
			l = 1
		}
		byLevel[l] = append(byLevel[l], n.Name)
		maxLevel = max(maxLevel, l)
	}
	if len(t.Nodes) > maxTopoNodes {
		pg.topologySummary(r, level, maxLevel)
		return
	}
	if len(t.Servers) > 0 {
		byLevel[0] = underSwitches(byLevel[0], byLevel[1], adj)
	}
	width := 1000.0
	height := fmt.Sprintf("%dpx", 160+100*maxLevel)
	ring := switchRing(t, adj)
	var at map[string][2]float64
	if ring != nil {
		at = ringPositions(ring, byLevel[0], adj)
		height = fmt.Sprintf("%dpx", ringHeightPx)
	}
	var nodes []opts.GraphNode
	for l := 0; l <= maxLevel; l++ {
		names := byLevel[l]
		for i, name := range names {
			x := 10 + width*(float64(i)+0.5)/float64(len(names))
			y := 10 + 100*float64(maxLevel-l)
			if p, ok := at[name]; ok {
				x, y = p[0], p[1]
			}
			sym, color, size := "circle", "#5470c6", 10
			if l > 0 {
				sym, color, size = "rect", "#91cc75", 16
			}
			nodes = append(nodes, opts.GraphNode{Name: name, X: float32(x), Y: float32(y), Symbol: sym, SymbolSize: size, ItemStyle: &opts.ItemStyle{Color: color}})
		}
	}
	paused := pausedByPort(r)
	inCycle := map[string]bool{}
	for _, p := range r.Summary.Deadlock.Cycle {
		inCycle[p] = true
	}
	var links []opts.GraphLink
	for _, l := range t.Links {
		f := math.Max(paused[l.A], paused[l.B])
		style := &opts.LineStyle{Color: "#bbb", Width: 1}
		if f > 0 {
			style = &opts.LineStyle{Color: heatColor(f), Width: 2 + float32(4*f)}
		}
		if inCycle[l.A] || inCycle[l.B] {
			style = &opts.LineStyle{Color: "#e00000", Width: 5}
		}
		links = append(links, opts.GraphLink{Source: nodeOf(l.A), Target: nodeOf(l.B), Value: float32(Round(f, 4)), LineStyle: style})
	}
	g := charts.NewGraph()
	g.SetGlobalOptions(charts.WithInitializationOpts(pg.init("topology", height)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: types.FuncStr("{b}: " + noun + " {c}")}),
		charts.WithAnimation(false))
	g.AddSeries("topology", nodes, links, charts.WithGraphChartOpts(opts.GraphChart{Layout: "none", Roam: opts.Bool(true)}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(nodes) <= 64), Position: "right", FontSize: 10}))
	pg.chart(g)
}

// underSwitches orders hosts by the switch each is linked to first, in
// the order switches are drawn, so that a rail-optimized fabric's GPUs
// stand under their rail switch (GPU g of every server together) rather
// than server by server, each server's links fanning out to every rail.
func underSwitches(hosts, switches []string, adj map[string][]string) []string {
	at := map[string]int{}
	for i, s := range switches {
		at[s] = i
	}
	out := slices.Clone(hosts)
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Compare(firstAt(adj[a], at), firstAt(adj[b], at))
	})
	return out
}

// firstAt is the place in at of the first of peers it holds, or -1.
func firstAt(peers []string, at map[string]int) int {
	for _, p := range peers {
		if i, ok := at[p]; ok {
			return i
		}
	}
	return -1
}

// heatColor maps 0..1 to light orange .. dark red.
func heatColor(f float64) string {
	f = math.Max(0, math.Min(1, f))
	r := int(255 - 120*f)
	g := int(180 - 180*f)
	return fmt.Sprintf("#%02x%02x20", r, g)
}
