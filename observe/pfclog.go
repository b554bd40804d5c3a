package observe

import (
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
)

// PFCLog records every PAUSE and RESUME frame sent, for pfc.csv. It
// grows with the frames sent, so it keeps 16 bytes a frame (the port as
// an index) and gives pfc.csv's rows one at a time as they are written
// (Frames: a k=32 fat tree's first millisecond sends about 830,000
// frames, 33 MB as rows). It keeps the ports' names, not the ports.
//
// A run cut into partitions (issue 31) logs each partition's frames
// apart, and Frames orders them all by time and then by port (a port's
// own in the order it sent them), which one partition's log is put in
// too: the rows do not depend on the partitions.
type PFCLog struct {
	names []string
	parts []pfcPart
}

// pfcPart is one partition's frames in chunks of pfcChunk: a run can
// send millions of PFC frames, and one slice grown by append would copy
// them at every doubling and hold up to twice their size (a k=16
// fat-tree's 450,000 frames are 7 MB).
type pfcPart struct {
	chunks [][]pfcFrame
	n      int
}

// pfcChunk is how many frames one chunk of the PFC log holds (64 KiB).
const pfcChunk = 4096

type pfcFrame struct {
	timeNs int64
	port   int32 // in PFCLog.names: node by node, port by port
	prio   uint8
	quanta uint16
}

// NewPFCLog makes a log of the frames every port of v sends.
func NewPFCLog(v *View) *PFCLog {
	l := &PFCLog{parts: make([]pfcPart, v.partitions())}
	for id, ports := range v.Ports {
		part := &l.parts[v.partition(fabric.NodeID(id))]
		for _, p := range ports {
			l.watch(p, part)
		}
	}
	return l
}

// watch has port tell the log of the frames it sends.
func (l *PFCLog) watch(p *fabric.Port, part *pfcPart) {
	i := int32(len(l.names))
	l.names = append(l.names, p.Name)
	eng := p.Engine()
	p.OnPause = func(_ *fabric.Port, prio uint8, quanta uint16) {
		part.add(pfcFrame{timeNs: eng.Now().Nanoseconds(), port: i, prio: prio, quanta: quanta})
	}
}

func (l *pfcPart) add(f pfcFrame) {
	if l.n%pfcChunk == 0 {
		l.chunks = append(l.chunks, make([]pfcFrame, 0, pfcChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, f)
	l.n++
}

// Frames returns the frames logged so far, as pfc.csv's rows to come
// (reports.PFCSource), in time order and by port at the same
// nanosecond: they hold neither an engine nor the ports, so the network
// can go while they are written. Each partition's frames are put in that
// order where they are (they are in time order already: only frames of
// the same nanosecond move), and EachPFC merges the partitions', where a
// copy of all of them sorted whole was 17 MB more at the end of a k=32
// fat tree's first millisecond. The frames logged after it are not in it;
// a later Frames reorders the frames an earlier one gives.
func (l *PFCLog) Frames() *PFCFrames {
	f := &PFCFrames{names: l.names}
	for i := range l.parts {
		p := &l.parts[i]
		p.sortSameTime()
		f.parts = append(f.parts, slices.Clone(p.chunks))
		f.n += p.n
	}
	return f
}

// sortSameTime puts the part's frames in (time, port) order, a port's
// own in the order it sent them: an insertion sort, in place, whose work
// is the frames and the pairs of the same nanosecond out of port order.
func (p *pfcPart) sortSameTime() {
	at := func(i int) *pfcFrame { return &p.chunks[i/pfcChunk][i%pfcChunk] }
	for i := 1; i < p.n; i++ {
		x := *at(i)
		j := i
		for ; j > 0 && x.before(at(j-1)); j-- {
			*at(j) = *at(j - 1)
		}
		*at(j) = x
	}
}

// before reports whether f goes before g in pfc.csv: earlier, or at the
// same nanosecond from a port of a lower index.
func (f *pfcFrame) before(g *pfcFrame) bool {
	return f.timeNs < g.timeNs || f.timeNs == g.timeNs && f.port < g.port
}

// Rows are pfc.csv's rows, in time order.
func (l *PFCLog) Rows() []reports.PFCRow {
	f := l.Frames()
	rows := make([]reports.PFCRow, 0, f.n)
	f.EachPFC(func(r reports.PFCRow) bool {
		rows = append(rows, r)
		return true
	})
	return rows
}

// PFCFrames are a PFC log's frames (PFCLog.Frames).
type PFCFrames struct {
	parts [][][]pfcFrame // each partition's chunks, in (time, port) order
	names []string
	n     int
}

var _ reports.PFCSource = (*PFCFrames)(nil)

// EachPFC yields pfc.csv's rows in time order, and by port at the same
// nanosecond: the partitions' frames merged (a port is one partition's,
// so no two partitions have a frame of the same time and port).
func (f *PFCFrames) EachPFC(yield func(reports.PFCRow) bool) {
	type cursor struct {
		chunks [][]pfcFrame
		c, i   int // chunk, and frame in it
	}
	var cs []cursor
	for _, p := range f.parts {
		if len(p) > 0 && len(p[0]) > 0 {
			cs = append(cs, cursor{chunks: p})
		}
	}
	for len(cs) > 0 {
		best := 0
		for k := 1; k < len(cs); k++ {
			if cs[k].chunks[cs[k].c][cs[k].i].before(&cs[best].chunks[cs[best].c][cs[best].i]) {
				best = k
			}
		}
		cur := &cs[best]
		fr := &cur.chunks[cur.c][cur.i]
		if !yield(reports.PFCRow{TimeNs: fr.timeNs, Port: f.names[fr.port], Priority: fr.prio, Quanta: fr.quanta}) {
			return
		}
		if cur.i++; cur.i == len(cur.chunks[cur.c]) {
			cur.c, cur.i = cur.c+1, 0
			if cur.c == len(cur.chunks) || len(cur.chunks[cur.c]) == 0 {
				cs = append(cs[:best], cs[best+1:]...)
			}
		}
	}
}
