package reports

import (
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// seedWhiskers draws the seeds' least to largest value at each category
// of a comparison chart as an error bar (a vertical stroke with a cap at
// each end) in the line's colour: ECharts' custom series, each data item
// [category index, least, largest]. Along an axis of names (transports,
// congestion controls) a filled band from one category to the next read
// as a trend between them (review J, finding 9); a bar per category says
// only how far the seeds spread there.
func seedWhiskers(name, color string, lo, span []opts.LineData) charts.SingleSeries {
	var data [][]float64
	for x := range lo {
		l, ok1 := lo[x].Value.(float64)
		s, ok2 := span[x].Value.(float64)
		if ok1 && ok2 && s > 0 {
			data = append(data, []float64{float64(x), l, Round(l+s, 4)})
		}
	}
	return charts.SingleSeries{Name: name, Type: "custom", Data: data, RenderItem: whiskerRender,
		Encode: &opts.Encode{X: 0, Y: []int{1, 2}}, ItemStyle: &opts.ItemStyle{Color: color}}
}

// whiskerRender draws one item of seedWhiskers: caps a fifth of a
// category's width, at most 16 pixels (with two categories a fifth was
// wider than the whisker was tall).
var whiskerRender = opts.FuncOpts(strings.Join([]string{
	"function (params, api) {",
	"  var lo = api.coord([api.value(0), api.value(1)]), hi = api.coord([api.value(0), api.value(2)]);",
	"  var w = Math.min(api.size([1, 0])[0] * 0.1, 8);",
	"  var style = {stroke: api.visual('color'), lineWidth: 2};",
	"  return {type: 'group', children: [",
	"    {type: 'line', shape: {x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1]}, style: style},",
	"    {type: 'line', shape: {x1: lo[0] - w, y1: lo[1], x2: lo[0] + w, y2: lo[1]}, style: style},",
	"    {type: 'line', shape: {x1: hi[0] - w, y1: hi[1], x2: hi[0] + w, y2: hi[1]}, style: style}]};",
	"}"}, "\n"))

// whiskerTooltip is a categorical comparison chart's tooltip: each
// line's mean, and its seeds' whisker as least to largest.
var whiskerTooltip = opts.FuncOpts(strings.Join([]string{
	"function (ps) {",
	"  var out = [];",
	"  ps.forEach(function (p) {",
	"    var v = p.seriesType === 'custom' ? p.value[1] + ' to ' + p.value[2] : p.value;",
	"    out.push(p.marker + echarts.format.encodeHTML(p.seriesName) + ': <b>' + v + '</b>');",
	"  });",
	"  return (ps.length ? echarts.format.encodeHTML(ps[0].axisValueLabel) + '<br>' : '') + out.join('<br>');",
	"}"}, "\n"))
