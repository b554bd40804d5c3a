package observe

import (
	"sort"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// PFCLog records every PAUSE and RESUME frame sent, for pfc.csv. It
// grows with the frames sent, so it keeps 16 bytes a frame (the port as
// an index) and makes pfc.csv's rows at the end.
type PFCLog struct {
	eng   *sim.Engine
	ports []*fabric.Port
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
	i := int32(len(l.ports))
	l.ports = append(l.ports, p)
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

// Rows are pfc.csv's rows, in time order.
func (l *PFCLog) Rows() []reports.PFCRow {
	rows := make([]reports.PFCRow, 0, l.n)
	for _, c := range l.chunks {
		for _, f := range c {
			rows = append(rows, reports.PFCRow{TimeNs: f.timeNs, Port: l.ports[f.port].Name, Priority: f.prio, Quanta: f.quanta})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].TimeNs < rows[j].TimeNs })
	return rows
}
