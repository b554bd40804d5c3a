package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// maxTopoNodes is the most nodes the topology section draws one by one;
// a larger fabric (a k=16 fat tree has 1,344) is drawn summarised.
const maxTopoNodes = 300

// maxTopSwitches is the most top-tier switches drawn one by one in a
// summary; more are one node.
const maxTopSwitches = 32

// topologySummary draws a large fabric as groups: below the top tier,
// the parts that stay connected without it (a fat tree's pods, a
// leaf-spine's leaves, each with its hosts) are one node each, sized by
// how many nodes they hold; the top tier's switches (cores, spines) are
// a node each, or one node when there are more than maxTopSwitches. A
// group is coloured by the most paused of the links inside it, a link
// between two groups stands for all the links between them, coloured by
// the most paused of those; hover for the counts.
func (pg *page) topologySummary(r *Run, level map[string]int, top int) {
	t := r.Topo
	paused := pausedByPort(r)
	// Union-find over the nodes below the top tier.
	parent := map[string]string{}
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	below := func(n string) bool { return top <= 1 || level[n] < top }
	for _, n := range t.Nodes {
		parent[n.Name] = n.Name
	}
	for _, l := range t.Links {
		a, b := nodeOf(l.A), nodeOf(l.B)
		if below(a) && below(b) {
			if ra, rb := find(a), find(b); ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	type group struct {
		name, detail    string
		hosts, switches int
		heat            float64 // the most paused link inside
		first           string  // its first node, for a stable order
	}
	groups := map[string]*group{} // by root; order kept in order
	var order []*group
	var tops []string
	for _, n := range t.Nodes {
		if !below(n.Name) {
			tops = append(tops, n.Name)
			continue
		}
		root := find(n.Name)
		g := groups[root]
		if g == nil {
			g = &group{first: n.Name}
			groups[root] = g
			order = append(order, g)
		}
		if n.Kind == "host" {
			g.hosts++
		} else {
			g.switches++
		}
	}
	topGroup := func(n string) string { return n }
	if len(tops) > maxTopSwitches {
		topGroup = func(string) string { return fmt.Sprintf("%d top-tier switches", len(tops)) }
	}
	for i, g := range order {
		g.name = fmt.Sprintf("group %d", i)
		g.detail = fmt.Sprintf("group %d (from %s): %d switches, %d hosts", i, g.first, g.switches, g.hosts)
	}
	nameOf := func(n string) string {
		if below(n) {
			return groups[find(n)].name
		}
		return topGroup(n)
	}
	type edge struct{ a, b string }
	count := map[edge]int{}
	heat := map[edge]float64{}
	var edges []edge
	for _, l := range t.Links {
		f := math.Max(paused[l.A], paused[l.B])
		a, b := nameOf(nodeOf(l.A)), nameOf(nodeOf(l.B))
		if a == b {
			if below(nodeOf(l.A)) {
				g := groups[find(nodeOf(l.A))]
				g.heat = math.Max(g.heat, f)
			}
			continue
		}
		if a > b {
			a, b = b, a
		}
		e := edge{a, b}
		if _, ok := count[e]; !ok {
			edges = append(edges, e)
		}
		count[e]++
		heat[e] = math.Max(heat[e], f)
	}
	verb, noun := waitWords(r)
	pg.section("Topology (summarised)", fmt.Sprintf("%d nodes are too many to draw one by one: each part of the fabric that stays connected below its top tier (a fat tree's pod, a leaf with its hosts) is one node, sized by what it holds, and the top tier's switches are shown above it; a group is coloured by the largest fraction of the run an end of a link inside %s, a line between groups stands for all the links between them and is coloured by the largest of those (grey: none sampled). Hover for counts.", len(t.Nodes), verb))
	var nodes []opts.GraphNode
	color := func(f float64, base string) string {
		if f > 0 {
			return heatColor(f)
		}
		return base
	}
	for i, g := range order {
		size := 8 + 4*math.Log2(float64(g.hosts+g.switches))
		nodes = append(nodes, opts.GraphNode{Name: g.name, X: float32(10 + 1000*(float64(i)+0.5)/float64(len(order))), Y: 210,
			Symbol: "roundRect", SymbolSize: float32(size), Value: float32(Round(g.heat, 4)), ItemStyle: &opts.ItemStyle{Color: color(g.heat, "#91cc75")},
			Tooltip: &opts.Tooltip{Formatter: types.FuncStr(g.detail + "; largest " + noun + " inside: {c}")}})
	}
	var topNames []string
	seen := map[string]bool{}
	for _, n := range tops {
		if name := topGroup(n); !seen[name] {
			seen[name] = true
			topNames = append(topNames, name)
		}
	}
	sort.Strings(topNames)
	for i, n := range topNames {
		size := 16.0
		if strings.HasSuffix(n, "top-tier switches") {
			size = 8 + 4*math.Log2(float64(len(tops)))
		}
		nodes = append(nodes, opts.GraphNode{Name: n, X: float32(10 + 1000*(float64(i)+0.5)/float64(len(topNames))), Y: 10,
			Symbol: "rect", SymbolSize: float32(size), ItemStyle: &opts.ItemStyle{Color: "#5470c6"}})
	}
	var links []opts.GraphLink
	for _, e := range edges {
		f := heat[e]
		style := &opts.LineStyle{Color: "#bbb", Width: float32(1 + math.Log2(float64(count[e])))}
		if f > 0 {
			style.Color = heatColor(f)
		}
		links = append(links, opts.GraphLink{Source: e.a, Target: e.b, Value: float32(count[e]), LineStyle: style})
	}
	g := charts.NewGraph()
	g.SetGlobalOptions(charts.WithInitializationOpts(pg.init("topology", "300px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: "{b}: {c}"}),
		charts.WithAnimation(false))
	g.AddSeries("topology", nodes, links, charts.WithGraphChartOpts(opts.GraphChart{Layout: "none", Roam: opts.Bool(true)}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(nodes) <= 24), Position: "bottom", FontSize: 9}))
	pg.chart(g)
}
