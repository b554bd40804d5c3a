package resolve

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// flowTrace reads a flow trace (trace: {file}) and adds its rows as
// flows, in row order: a row's qp, op and priority over the generator's,
// its start after the generator's, its after as the flows (of this
// trace, by id) whose data must have arrived at its source first. An
// error in the file names its line and column. It returns false when the
// flows do not fit (the traffic stops there).
func (b *builder) flowTrace(gen int, tv *scenario.TrafficV, path string, g *scenario.FlowTraceS, lossless map[uint8]bool) bool {
	if !g.File.Set {
		return true
	}
	fp := path + ".file"
	data, _, err := b.d.ReadInput(g.File.V, "flow trace", scenario.MaxFlowTraceBytes)
	if err != nil {
		b.errorf(g.File.Pos, fp, "cannot read the flow trace %s: %v", scenario.Show(g.File.V), err)
		return true
	}
	b.d.InputAt(g.File.V, g.File.Pos)
	rows, more, err := scenario.ParseFlowTrace(g.File.V, data, max(0, b.lim.Flows-len(b.s.Flows)))
	if err != nil {
		b.errorf(g.File.Pos, fp, "%v", err)
		return true
	}
	if n := int64(len(rows) + more); int64(len(b.s.Flows))+n > int64(b.lim.Flows) {
		b.tooManyFlows(tv, n)
		return false
	} else if !b.flowsFit(tv, n) {
		return false
	}
	at := func(r *scenario.TraceRow, col string) string {
		return fmt.Sprintf("%s:%d:%d", g.File.V, r.Line, r.Col(col))
	}
	lookup := func(r *scenario.TraceRow, col, name string) (fabric.NodeID, bool) {
		id, ok := b.t.Lookup(name)
		if !ok || b.t.Nodes[id].Kind != fabric.Host {
			b.errorf(g.File.Pos, fp, "%s: %s is %s, not a host; hosts are %s", at(r, col), col, scenario.Show(name), b.list(b.hostNms))
			return 0, false
		}
		return id, true
	}
	first := len(b.s.Flows)
	byID := map[int64]int{} // a row's id: its flow
	pairs := make([][2]fabric.NodeID, len(rows))
	after := make([][]int, len(rows))
	for i := range rows {
		r := &rows[i]
		src, ok1 := lookup(r, "from", r.From)
		dst, ok2 := lookup(r, "to", r.To)
		if !ok1 || !ok2 {
			return true
		}
		if src == dst {
			b.errorf(g.File.Pos, fp, "%s: a flow from %s to itself; from and to are two hosts", at(r, "to"), r.From)
			return true
		}
		if r.Start > sim.Time(math.MaxInt64)-g.Start.V {
			b.errorf(g.File.Pos, fp, "%s: start %v after the generator's start %v is beyond the simulator's clock (%v, about 106 days)",
				at(r, "start"), r.Start, g.Start.V, sim.Time(math.MaxInt64))
			return true
		}
		// The row's qp, op and size are checked here, at the row: the
		// rows are added in groups (below), whose checks would name
		// the scenario's line, and look at the group's first size.
		qp, op := "rc", "write"
		override(&qp, g.QP)
		override(&op, g.Op)
		opCol := "op"
		if r.QP != "" {
			qp, opCol = r.QP, "qp"
		}
		if r.Op != "" {
			op, opCol = r.Op, "op"
		}
		if why := opRefused(qp, op); why != "" && (r.QP != "" || r.Op != "") {
			b.errorf(g.File.Pos, fp, "%s: %s", at(r, opCol), why)
			return true
		}
		if op == "atomic" && r.Size != 8 {
			b.errorf(g.File.Pos, fp, "%s: an atomic is 8 bytes, not %s", at(r, "size"), fabric.Size(r.Size))
			return true
		}
		if why := sizeRefused(b.s.HCAProfile(src), qp, r.Size); why != "" {
			b.errorf(g.File.Pos, fp, "%s: %s", at(r, "size"), why)
			return true
		}
		pairs[i] = [2]fabric.NodeID{src, dst}
		for _, a := range r.After {
			k := byID[a]
			if pairs[k][1] != src {
				b.errorf(g.File.Pos, fp, "%s: after names flow %d, which goes to %s, not to %s; a flow waits only for flows into its source (from)",
					at(r, "after"), a, b.t.Nodes[pairs[k][1]].Name, r.From)
				return true
			}
			after[i] = append(after[i], first+k)
		}
		byID[r.ID] = i
	}
	// Consecutive rows of the same qp, op and priority are added
	// together (so each warning is given once for them).
	for i := 0; i < len(rows); {
		k := i + 1
		for k < len(rows) && rows[k].QP == rows[i].QP && rows[k].Op == rows[i].Op && rows[k].Priority == rows[i].Priority {
			k++
		}
		com := g.GenCommon
		if r := &rows[i]; r.QP != "" {
			com.QP = scenario.StrV{V: r.QP, Pos: g.File.Pos, Set: true}
		}
		if r := &rows[i]; r.Op != "" {
			com.Op = scenario.StrV{V: r.Op, Pos: g.File.Pos, Set: true}
		}
		if r := &rows[i]; r.Priority >= 0 {
			com.Priority = scenario.IntV{V: int64(r.Priority), Pos: g.File.Pos, Set: true}
		}
		sizes := make([]int64, k-i)
		for x := range sizes {
			sizes[x] = rows[i+x].Size
		}
		n := len(b.s.Flows)
		errs := b.d.ErrorCount()
		b.addFlowsSized(gen, tv, path, &com, pairs[i:k], scenario.SizeV{V: fabric.Size(sizes[0]), Pos: g.File.Pos, Set: true}, sizes, after[i:k], lossless)
		if b.d.ErrorCount() > errs {
			return true
		}
		for x := n; x < len(b.s.Flows); x++ {
			b.s.Flows[x].Start = g.Start.V + rows[i+x-n].Start
		}
		i = k
	}
	return true
}
