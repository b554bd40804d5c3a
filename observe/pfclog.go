package observe

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
)

// PFCLog records every PAUSE and RESUME frame sent, for pfc.csv. It
// grows with the frames sent, so it keeps 8 bytes a frame (pfcChunk: a
// k=32 fat tree's first millisecond sends about a million frames, 33 MB
// as rows) and gives pfc.csv's rows one at a time as they are written.
// It keeps the ports' names, not the ports.
//
// A run cut into partitions (issue 31) logs each partition's frames
// apart, and Frames orders them all by time and then by port (a port's
// own in the order it sent them), which one partition's log is put in
// too: the rows do not depend on the partitions.
type PFCLog struct {
	names []string
	parts []pfcPart
	pack  pfcPacking
	// each is View.Each: Frames has each partition order its own frames
	// on its worker.
	each func(func(part int))
}

// pfcPart is one partition's frames in chunks of at most pfcChunkFrames:
// a run can send millions of PFC frames, and one slice grown by append
// would copy them at every doubling and hold up to twice their size.
type pfcPart struct {
	chunks []pfcChunk
	n      int
	pack   *pfcPacking
	last   int64 // the latest frame's time, ns
}

// pfcChunkFrames is how many frames one chunk of the PFC log holds (32
// KiB).
const pfcChunkFrames = 4096

// pfcChunk is frames packed in 8 bytes each (pfcPacking), their times
// counted from the chunk's base, the time of its first; a frame whose
// time is too far from it for its bits starts a chunk of its own.
type pfcChunk struct {
	base   int64 // ns
	frames []uint64
}

// pfcFrame is a frame unpacked.
type pfcFrame struct {
	timeNs int64
	port   int32 // in PFCLog.names: node by node, port by port
	prio   uint8
	quanta uint16
}

// pfcPacking lays a frame out in 64 bits: its quanta (16), priority (3),
// port (portBits: as many as the network's ports need) and its time after
// its chunk's base (the rest: 23 bits, 8 ms, with 4 million ports).
type pfcPacking struct{ portBits uint }

func (k pfcPacking) timeBits() uint { return 64 - 19 - k.portBits }

// maxOffset is the most a frame's time may be after its chunk's base.
func (k pfcPacking) maxOffset() int64 { return 1<<k.timeBits() - 1 }

func (k pfcPacking) pack(f pfcFrame, base int64) uint64 {
	return uint64(f.timeNs-base)<<(19+k.portBits) | uint64(f.port)<<19 | uint64(f.prio&7)<<16 | uint64(f.quanta)
}

func (k pfcPacking) unpack(w uint64, base int64) pfcFrame {
	return pfcFrame{
		timeNs: base + int64(w>>(19+k.portBits)),
		port:   int32(w >> 19 & (1<<k.portBits - 1)),
		prio:   uint8(w >> 16 & 7),
		quanta: uint16(w),
	}
}

// NewPFCLog makes a log of the frames every port of v sends.
func NewPFCLog(v *View) *PFCLog {
	l := &PFCLog{parts: make([]pfcPart, v.partitions()), each: v.Each}
	ports := 0
	for _, ps := range v.Ports {
		ports += len(ps)
	}
	l.pack.portBits = uint(max(1, bits.Len(uint(ports))))
	for i := range l.parts {
		l.parts[i].pack = &l.pack
	}
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

// add logs f, which is no earlier than the part's frames so far: one
// engine's, whose clock does not go back. (An earlier one would be
// packed before its chunk's base, and the sort could move it there.)
func (l *pfcPart) add(f pfcFrame) {
	if f.timeNs < l.last {
		panic(fmt.Sprintf("observe: a PFC frame at %d ns logged after one at %d ns", f.timeNs, l.last))
	}
	l.last = f.timeNs
	last := len(l.chunks) - 1
	if last < 0 || len(l.chunks[last].frames) == pfcChunkFrames || f.timeNs-l.chunks[last].base > l.pack.maxOffset() {
		l.chunks = append(l.chunks, pfcChunk{base: f.timeNs, frames: make([]uint64, 0, pfcChunkFrames)})
		last++
	}
	c := &l.chunks[last]
	c.frames = append(c.frames, l.pack.pack(f, c.base))
	l.n++
}

// Frames returns the frames logged so far, as pfc.csv's rows to come
// (reports.PFCSource), in time order and by port at the same
// nanosecond: they hold neither an engine nor the ports, so the network
// can go while they are written. Each partition's frames are put in that
// order where they are (they are in time order already: only frames of
// the same nanosecond move), and EachPFC merges the partitions', where a
// copy of all of them sorted whole was 17 MB more at the end of a k=32
// fat tree's first millisecond. In a run cut into partitions each orders
// its own on its worker (View.Each). The frames logged after it are not
// in it; a later Frames reorders the frames an earlier one gives.
func (l *PFCLog) Frames() *PFCFrames {
	f := &PFCFrames{names: l.names}
	order := func(i int) { l.parts[i].sortSameTime() }
	if l.each != nil && len(l.parts) > 1 {
		l.each(order)
	} else {
		for i := range l.parts {
			order(i)
		}
	}
	for i := range l.parts {
		p := &l.parts[i]
		f.parts = append(f.parts, slices.Clone(p.chunks))
		f.pack = l.pack
		f.n += p.n
	}
	return f
}

// sortSameTime puts the part's frames in (time, port) order, a port's
// own in the order it sent them: an insertion sort, in place, whose work
// is the frames and the pairs of the same nanosecond out of port order.
// A frame that moves into the chunk before or after is of the time of
// the frames it passes, which is within that chunk's span.
func (p *pfcPart) sortSameTime() {
	get := func(c, i int) pfcFrame { return p.pack.unpack(p.chunks[c].frames[i], p.chunks[c].base) }
	set := func(c, i int, f pfcFrame) { p.chunks[c].frames[i] = p.pack.pack(f, p.chunks[c].base) }
	for c := range p.chunks {
		for i := range p.chunks[c].frames {
			x := get(c, i)
			jc, ji := c, i
			for {
				pc, pi := jc, ji-1
				if pi < 0 {
					if pc == 0 {
						break
					}
					pc--
					pi = len(p.chunks[pc].frames) - 1
				}
				y := get(pc, pi)
				if !x.before(&y) {
					break
				}
				set(jc, ji, y)
				jc, ji = pc, pi
			}
			if jc != c || ji != i {
				set(jc, ji, x)
			}
		}
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
	parts [][]pfcChunk // each partition's chunks, in (time, port) order
	names []string
	n     int
	pack  pfcPacking
}

var _ reports.PFCSource = (*PFCFrames)(nil)

// EachPFC yields pfc.csv's rows in time order, and by port at the same
// nanosecond: the partitions' frames merged (a port is one partition's,
// so no two partitions have a frame of the same time and port).
func (f *PFCFrames) EachPFC(yield func(reports.PFCRow) bool) {
	type cursor struct {
		chunks []pfcChunk
		c, i   int      // chunk, and frame in it
		f      pfcFrame // the frame there
	}
	var cs []cursor
	for _, p := range f.parts {
		if len(p) > 0 && len(p[0].frames) > 0 {
			cs = append(cs, cursor{chunks: p, f: f.pack.unpack(p[0].frames[0], p[0].base)})
		}
	}
	for len(cs) > 0 {
		best := 0
		for k := 1; k < len(cs); k++ {
			if cs[k].f.before(&cs[best].f) {
				best = k
			}
		}
		cur := &cs[best]
		fr := &cur.f
		if !yield(reports.PFCRow{TimeNs: fr.timeNs, Port: f.names[fr.port], Priority: fr.prio, Quanta: fr.quanta}) {
			return
		}
		if cur.i++; cur.i == len(cur.chunks[cur.c].frames) {
			cur.c, cur.i = cur.c+1, 0
			if cur.c == len(cur.chunks) || len(cur.chunks[cur.c].frames) == 0 {
				cs = append(cs[:best], cs[best+1:]...)
				continue
			}
		}
		ch := &cur.chunks[cur.c]
		cur.f = f.pack.unpack(ch.frames[cur.i], ch.base)
	}
}
