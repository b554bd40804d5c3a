package observe

import (
	"cmp"
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
// can go while they are written.
func (l *PFCLog) Frames() *PFCFrames {
	n := 0
	for i := range l.parts {
		n += l.parts[i].n
	}
	all := make([]pfcFrame, 0, n)
	for i := range l.parts {
		for _, c := range l.parts[i].chunks {
			all = append(all, c...)
		}
	}
	slices.SortStableFunc(all, func(a, b pfcFrame) int {
		if a.timeNs != b.timeNs {
			return cmp.Compare(a.timeNs, b.timeNs)
		}
		return cmp.Compare(a.port, b.port)
	})
	return &PFCFrames{chunks: [][]pfcFrame{all}, names: l.names, n: n}
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
	chunks [][]pfcFrame
	names  []string
	n      int
}

var _ reports.PFCSource = (*PFCFrames)(nil)

// EachPFC yields pfc.csv's rows in time order, and by port at the same
// nanosecond.
func (f *PFCFrames) EachPFC(yield func(reports.PFCRow) bool) {
	for _, c := range f.chunks {
		for _, fr := range c {
			if !yield(reports.PFCRow{TimeNs: fr.timeNs, Port: f.names[fr.port], Priority: fr.prio, Quanta: fr.quanta}) {
				return
			}
		}
	}
}
