package reports

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"slices"
)

// FlowRecord is a flow's row of flows.csv with what the summary's FCT
// figures take from it besides.
type FlowRecord struct {
	FlowRow
	// Completed: the flow completed, and counts in the summary's FCT,
	// slowdown and fairness figures; FCT is then its completion time in
	// picoseconds (FCTNs truncates it).
	Completed bool
	FCT       int64
}

// FlowSpool keeps the records of a run's finished flows on disk as the
// run hands them over, so that a long run's memory does not grow with
// the flows it has finished (about 700 a simulated millisecond on the
// HPCC paper's 320-host fabric at 30% load). Records come in any order:
// the spool sorts them by id in batches of spoolBatch, each batch a run
// of the file, and Each merges the runs back into id order.
//
// The file is a temporary one in the run's folder, named as
// WriteFileWith names its own (PrepareDir removes one a killed run left
// behind); Close removes it.
type FlowSpool struct {
	// Batch is how many records the spool sorts in memory before it
	// writes them as a run (0: spoolBatch).
	Batch int

	f     *os.File
	w     *bufio.Writer
	off   int64        // bytes written to f
	runs  []spoolRun   // sorted sections of f
	batch []FlowRecord // records not written yet
	// strs are the strings the records use (node names, QP types,
	// operations, statuses), each written once as its index.
	strs  []string
	index map[string]uint64
	n     int   // records added
	err   error // the first write error: the spool then keeps nothing more
	enc   []byte
}

// spoolBatch is how many records the spool keeps before it writes them
// as a run: about 400 KB of FlowRecords.
const spoolBatch = 2048

// spoolRun is a section of the spool's file holding n records sorted by
// id.
type spoolRun struct{ off, size int64 }

// NewFlowSpool makes a spool in dir.
func NewFlowSpool(dir string) (*FlowSpool, error) {
	f, err := os.CreateTemp(dir, ".flows.csv.tmp-spool-*")
	if err != nil {
		return nil, err
	}
	return &FlowSpool{f: f, w: bufio.NewWriterSize(f, 64<<10), index: map[string]uint64{}}, nil
}

// Add keeps r, a flow's final record.
func (s *FlowSpool) Add(r FlowRecord) {
	s.n++
	if s.err != nil {
		return
	}
	s.batch = append(s.batch, r)
	if len(s.batch) >= cmp.Or(s.Batch, spoolBatch) {
		s.flush()
	}
}

// Len is how many records the spool holds.
func (s *FlowSpool) Len() int { return s.n }

// Err is the first error writing the spool met, if any.
func (s *FlowSpool) Err() error { return s.err }

// flush writes the batch, sorted, as a run.
func (s *FlowSpool) flush() {
	slices.SortFunc(s.batch, func(a, b FlowRecord) int { return cmp.Compare(a.ID, b.ID) })
	start := s.off
	for i := range s.batch {
		s.enc = s.encode(s.enc[:0], &s.batch[i])
		k, err := s.w.Write(s.enc)
		s.off += int64(k)
		if err != nil {
			s.err = err
			return
		}
	}
	if err := s.w.Flush(); err != nil {
		s.err = err
		return
	}
	s.runs = append(s.runs, spoolRun{off: start, size: s.off - start})
	clear(s.batch)
	s.batch = s.batch[:0]
}

// Each yields the spool's records and tail's (each record's id in one
// of them only) in order of id, until yield returns false; tail is
// sorted by it here. It reads the file again each time. The record
// yielded is valid until yield returns.
func (s *FlowSpool) Each(tail []FlowRecord, yield func(*FlowRecord) bool) error {
	if s.err != nil {
		return s.err
	}
	byID := func(a, b FlowRecord) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(s.batch, byID)
	slices.SortFunc(tail, byID)
	srcs := make([]*spoolSource, 0, len(s.runs)+2)
	for _, r := range s.runs {
		src := &spoolSource{s: s, r: bufio.NewReaderSize(io.NewSectionReader(s.f, r.off, r.size), 2048)}
		srcs = append(srcs, src)
	}
	srcs = append(srcs, &spoolSource{mem: s.batch}, &spoolSource{mem: tail})
	var h []*spoolSource // a min-heap by the current record's id
	for _, src := range srcs {
		ok, err := src.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, src)
		}
	}
	less := func(i, j int) bool { return h[i].cur.ID < h[j].cur.ID }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(c+1, c) {
				c++
			}
			if !less(c, i) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		if !yield(&h[0].cur) {
			return nil
		}
		ok, err := h[0].next()
		if err != nil {
			return err
		}
		if !ok {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return nil
}

// Close removes the spool's file.
func (s *FlowSpool) Close() error {
	return errors.Join(s.f.Close(), os.Remove(s.f.Name()))
}

// spoolSource is one sorted source of records for Each: a run of the
// file, or records in memory.
type spoolSource struct {
	s   *FlowSpool
	r   *bufio.Reader
	mem []FlowRecord
	cur FlowRecord
}

// next reads the source's next record into cur; false when there is
// none.
func (src *spoolSource) next() (bool, error) {
	if src.r == nil {
		if len(src.mem) == 0 {
			return false, nil
		}
		src.cur, src.mem = src.mem[0], src.mem[1:]
		return true, nil
	}
	if _, err := src.r.Peek(1); err == io.EOF {
		return false, nil
	}
	err := src.s.decode(src.r, &src.cur)
	return err == nil, err
}

// Record flags.
const (
	recOrder = 1 << iota
	recCM
	recCompleted
)

// str is x's index among the spool's strings, added if new. The table
// stays in memory (node names, QP types, operations and statuses: a few
// hundred strings at most), so a record is written with indices only.
func (s *FlowSpool) str(x string) uint64 {
	if i, ok := s.index[x]; ok {
		return i
	}
	i := uint64(len(s.strs))
	s.strs = append(s.strs, x)
	s.index[x] = i
	return i
}

// encode appends r's encoding to b: varints, the floats' bits in 8
// bytes.
func (s *FlowSpool) encode(b []byte, r *FlowRecord) []byte {
	var flags byte
	if r.Order != nil {
		flags |= recOrder
	}
	if r.CM {
		flags |= recCM
	}
	if r.Completed {
		flags |= recCompleted
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(r.ID))
	for _, x := range []string{r.Src, r.Dst, r.QP, r.Op, r.Status} {
		b = binary.AppendUvarint(b, s.str(x))
	}
	for _, v := range []int64{r.SizeBytes, r.DeliveredBytes, r.StartNs, r.EndNs, r.FCTNs, r.Retransmits, r.FCT} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Slowdown))
	if r.Order != nil {
		b = binary.AppendVarint(b, int64(r.Order.Paths))
		b = binary.AppendVarint(b, r.Order.ReorderMax)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Order.ReorderMean))
	}
	if r.CM {
		b = binary.AppendVarint(b, r.ConnectNs)
	}
	return b
}

// errSpool is a record the spool cannot read back.
var errSpool = errors.New("flow spool: a record does not read back")

// decode reads a record encode wrote.
func (s *FlowSpool) decode(r *bufio.Reader, out *FlowRecord) error {
	flags, err := r.ReadByte()
	if err != nil {
		return err
	}
	*out = FlowRecord{}
	id, err := binary.ReadVarint(r)
	if err != nil {
		return err
	}
	out.ID = int(id)
	for _, x := range []*string{&out.Src, &out.Dst, &out.QP, &out.Op, &out.Status} {
		i, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		if i >= uint64(len(s.strs)) {
			return errSpool
		}
		*x = s.strs[i]
	}
	for _, v := range []*int64{&out.SizeBytes, &out.DeliveredBytes, &out.StartNs, &out.EndNs, &out.FCTNs, &out.Retransmits, &out.FCT} {
		if *v, err = binary.ReadVarint(r); err != nil {
			return err
		}
	}
	if out.Slowdown, err = readFloat(r); err != nil {
		return err
	}
	if flags&recOrder != 0 {
		o := &FlowOrder{}
		paths, err := binary.ReadVarint(r)
		if err != nil {
			return err
		}
		o.Paths = int(paths)
		if o.ReorderMax, err = binary.ReadVarint(r); err != nil {
			return err
		}
		if o.ReorderMean, err = readFloat(r); err != nil {
			return err
		}
		out.Order = o
	}
	out.CM = flags&recCM != 0
	if out.CM {
		if out.ConnectNs, err = binary.ReadVarint(r); err != nil {
			return err
		}
	}
	out.Completed = flags&recCompleted != 0
	return nil
}

// readFloat reads a float's 8 bytes as encode wrote them (from the
// reader's buffer: a local array would go to the heap, a record at a
// time).
func readFloat(r *bufio.Reader) (float64, error) {
	b, err := r.Peek(8)
	if err != nil {
		return 0, err
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(b))
	_, err = r.Discard(8)
	return x, err
}
