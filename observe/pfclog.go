package observe

import (
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// PFCLog records every PAUSE and RESUME frame sent, for pfc.csv. It
// grows with the frames sent, so it keeps 16 bytes a frame (the port as
// an index) and gives pfc.csv's rows one at a time as they are written
// (Frames: a k=32 fat tree's first millisecond sends about 830,000
// frames, 33 MB as rows). It keeps the ports' names, not the ports.
type PFCLog struct {
	eng   *sim.Engine
	names []string
	// The frames in chunks of pfcChunk: a run can send millions of PFC
	// frames, and one slice grown by append would copy them at every
	// doubling and hold up to twice their size (a k=16 fat-tree's 450,000
	// frames are 7 MB).
	chunks [][]pfcFrame
	n      int
}

// pfcChunk is how many frames one chunk of the PFC log holds (64 KiB).
const pfcChunk = 4096

type pfcFrame struct {
	timeNs int64
	port   int32 // in PFCLog.ports
	prio   uint8
	quanta uint16
}

// NewPFCLog makes a log of the frames every port of v sends.
func NewPFCLog(v *View) *PFCLog {
	l := &PFCLog{eng: v.Eng}
	for _, ports := range v.Ports {
		for _, p := range ports {
			l.watch(p)
		}
	}
	return l
}

// watch has port tell the log of the frames it sends.
func (l *PFCLog) watch(p *fabric.Port) {
	i := int32(len(l.names))
	l.names = append(l.names, p.Name)
	p.OnPause = func(_ *fabric.Port, prio uint8, quanta uint16) {
		l.add(pfcFrame{timeNs: l.eng.Now().Nanoseconds(), port: i, prio: prio, quanta: quanta})
	}
}

func (l *PFCLog) add(f pfcFrame) {
	if l.n%pfcChunk == 0 {
		l.chunks = append(l.chunks, make([]pfcFrame, 0, pfcChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, f)
	l.n++
}

// Frames returns the frames logged so far, as pfc.csv's rows to come
// (reports.PFCSource): they share the log's storage but hold neither
// its engine nor the ports, so the network can go while they are
// written.
func (l *PFCLog) Frames() *PFCFrames {
	return &PFCFrames{chunks: slices.Clone(l.chunks), names: l.names, n: l.n} // the headers copied: frames logged later stay out
}

// Rows are pfc.csv's rows, in time order.
func (l *PFCLog) Rows() []reports.PFCRow {
	rows := make([]reports.PFCRow, 0, l.n)
	l.Frames().EachPFC(func(r reports.PFCRow) bool {
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

// EachPFC yields pfc.csv's rows in time order: the order the frames were
// sent in (the engine's time never goes back).
func (f *PFCFrames) EachPFC(yield func(reports.PFCRow) bool) {
	for _, c := range f.chunks {
		for _, fr := range c {
			if !yield(reports.PFCRow{TimeNs: fr.timeNs, Port: f.names[fr.port], Priority: fr.prio, Quanta: fr.quanta}) {
				return
			}
		}
	}
}
