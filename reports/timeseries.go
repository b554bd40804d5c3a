package reports

import (
	"bytes"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Metric names of timeseries.csv (OUTPUTS.md).
const (
	MetricTxGbps      = "tx_gbps"      // where: node:port; bits sent in the interval, Gb/s
	MetricQueueBytes  = "queue_bytes"  // where: node:port:priority; egress queue depth at the sample
	MetricPaused      = "paused"       // where: node:port:priority; fraction of the interval paused
	MetricCreditWait  = "credit_wait"  // where: node:port:vl; fraction of the interval short of credit for a largest packet (InfiniBand)
	MetricBufferBytes = "buffer_bytes" // where: node; shared buffer in use
	MetricFlowGbps    = "flow_gbps"    // where: flow:ID; delivered goodput in the interval
	MetricRCGbps      = "rc_gbps"      // where: flow:ID; the reaction point's current rate
	MetricRTGbps      = "rt_gbps"      // where: flow:ID; DCQCN's target rate
	MetricAlpha       = "alpha"        // where: flow:ID; DCQCN's or DCTCP's alpha
	MetricWindowBytes = "window_bytes" // where: flow:ID; HPCC's or DCTCP's window
	MetricCCTI        = "ccti"         // where: flow:ID; IB congestion control's table index
	MetricRTTUs       = "rtt_us"       // where: flow:ID; the RTT the sender reacts to, µs (iWARP's TCP: SRTT; TIMELY: its latest sample)
)

// Series holds sampled time series in OUTPUTS.md's long format. Its
// memory is bounded by series × samples, never by packets: when it holds
// more than MaxRows it drops every other sample, keeping the first, and
// the sampler doubles its interval (Decimations counts how often).
//
// A sample's values are kept apart from their keys (metric and where):
// a sample records the same series in the same order as the one before
// it, almost always, so the keys are kept once per change (a layout),
// and each value takes 8 bytes where a value with its key took 16 (at
// the 1,000,000-row bound, 8 MB in place of 16).
type Series struct {
	MaxRows     int
	Decimations int
	wheres      []string
	whereIndex  map[string]int32
	metrics     []string
	metricIndex map[string]uint8
	samples     []sample
	// layouts are the key sequences samples follow, each kept once and
	// never changed (a sample's layout index points into them).
	layouts [][]Key
	// The current sample follows layout base until a key differs (or
	// there is none): from then on its keys are built in cur. pos is
	// how many keys it has.
	base int32
	cur  []Key
	open bool
	pos  int
	// Every sample's values, in order, in chunks of valueChunk: a value
	// is written once. One slice grown by append copied every value
	// again at each growth, into memory fresh from the system: faulting
	// it in was most of a small run's time (a 64-host incast with the
	// default observe spent 0.21 s of 0.23 s on it, docs/PERFORMANCE.md).
	chunks [][]float64
	n      int // values held
}

// valueChunk is how many values one chunk holds (64 KiB).
const valueChunk = 8192

// at is the i-th value held.
func (s *Series) at(i int) *float64 { return &s.chunks[i/valueChunk][i%valueChunk] }

// sample is one sampling time, the index of its first value and its
// layout (-1 while it is being recorded).
type sample struct {
	timeNs int64
	first  int
	layout int32
}

// NewSeries returns an empty store holding at most maxRows rows.
func NewSeries(maxRows int) *Series {
	return &Series{MaxRows: maxRows, whereIndex: map[string]int32{}, metricIndex: map[string]uint8{}, base: -1}
}

// Begin starts the sample at timeNs (the end of its interval).
func (s *Series) Begin(timeNs int64) {
	if s.open {
		s.closeLayout()
	}
	s.base = -1
	if k := len(s.samples); k > 0 {
		s.base = s.samples[k-1].layout
	}
	s.cur, s.pos, s.open = nil, 0, true
	s.samples = append(s.samples, sample{timeNs: timeNs, first: s.n, layout: -1})
}

// Key names one series of the store, a metric at a where, for AddKey.
type Key struct {
	metric uint8
	where  int32
}

// Key returns the key of metric at where, which a sampler finds once
// rather than by name at every sample.
func (s *Series) Key(metric, where string) Key {
	m, ok := s.metricIndex[metric]
	if !ok {
		m = uint8(len(s.metrics))
		s.metrics = append(s.metrics, metric)
		s.metricIndex[metric] = m
	}
	w, ok := s.whereIndex[where]
	if !ok {
		w = int32(len(s.wheres))
		s.wheres = append(s.wheres, where)
		s.whereIndex[where] = w
	}
	return Key{m, w}
}

// AddKey records one value of k's series in the current sample.
func (s *Series) AddKey(k Key, value float64) {
	switch {
	case s.cur != nil:
		s.cur = append(s.cur, k)
	case s.base >= 0 && s.pos < len(s.layouts[s.base]) && s.layouts[s.base][s.pos] == k:
		// As the sample before: nothing to keep but the value.
	default:
		var prefix []Key
		if s.base >= 0 {
			prefix = s.layouts[s.base][:s.pos]
		}
		s.cur = append(append(make([]Key, 0, len(prefix)+16), prefix...), k)
	}
	s.pos++
	if s.n%valueChunk == 0 && s.n/valueChunk == len(s.chunks) {
		s.chunks = append(s.chunks, make([]float64, valueChunk))
	}
	*s.at(s.n) = value
	s.n++
}

// AddKeys records values[i] of keys[i]'s series for each i, in order,
// as that many AddKey would: a sampler cut into partitions merges its
// parts' values a run at a time. A run that follows the sample before's
// layout costs a comparison and a copy, not a call a value.
func (s *Series) AddKeys(keys []Key, values []float64) {
	if len(keys) != len(values) {
		panic("reports: AddKeys with unequal keys and values")
	}
	switch {
	case s.cur != nil:
		s.cur = append(s.cur, keys...)
	case s.base >= 0 && s.pos+len(keys) <= len(s.layouts[s.base]) && slices.Equal(s.layouts[s.base][s.pos:s.pos+len(keys)], keys):
		// As the sample before: nothing to keep but the values.
	default:
		for i, k := range keys {
			s.AddKey(k, values[i])
		}
		return
	}
	s.pos += len(keys)
	for len(values) > 0 {
		if s.n/valueChunk == len(s.chunks) {
			s.chunks = append(s.chunks, make([]float64, valueChunk))
		}
		k := copy(s.chunks[s.n/valueChunk][s.n%valueChunk:], values)
		values = values[k:]
		s.n += k
	}
}

// keys returns the keys of sample i: its layout's, or for the sample
// being recorded those it has so far.
func (s *Series) keys(i int) []Key {
	if l := s.samples[i].layout; l >= 0 {
		return s.layouts[l]
	}
	if s.cur != nil {
		return s.cur
	}
	if s.base >= 0 {
		return s.layouts[s.base][:s.pos]
	}
	return nil
}

// closeLayout gives the sample being recorded its layout: the one before
// it when it followed it to its end, else a new one.
func (s *Series) closeLayout() {
	last := &s.samples[len(s.samples)-1]
	if s.cur == nil && s.base >= 0 && s.pos == len(s.layouts[s.base]) {
		last.layout = s.base
	} else {
		s.layouts = append(s.layouts, slices.Clip(s.keys(len(s.samples)-1)))
		last.layout = int32(len(s.layouts) - 1)
	}
	s.cur, s.open = nil, false
}

// End closes the current sample and reports whether the store decimated
// (so the sampler should double its interval).
func (s *Series) End() bool {
	if s.open {
		s.closeLayout()
	}
	if s.MaxRows <= 0 || s.n <= s.MaxRows || len(s.samples) < 4 {
		return false
	}
	// In place: a kept value moves to an index no later than its own.
	kept, n := s.samples[:0], 0
	for i, smp := range s.samples {
		if i%2 != 0 {
			continue
		}
		first := n
		for j := smp.first; j < s.end(i); j++ {
			*s.at(n) = *s.at(j)
			n++
		}
		kept = append(kept, sample{timeNs: smp.timeNs, first: first, layout: smp.layout})
	}
	s.samples, s.n = kept, n
	// The chunks past the last value go, but for one to write into next.
	used := (n + valueChunk - 1) / valueChunk
	for i := used + 1; i < len(s.chunks); i++ {
		s.chunks[i] = nil
	}
	s.chunks = s.chunks[:min(len(s.chunks), used+1)]
	s.Decimations++
	return true
}

// end is where sample i's values end.
func (s *Series) end(i int) int {
	if i+1 < len(s.samples) {
		return s.samples[i+1].first
	}
	return s.n
}

// Rows is the number of rows held.
func (s *Series) Rows() int { return s.n }

// CSV renders timeseries.csv: time_ns,metric,where,value.
func (s *Series) CSV() []byte {
	var b bytes.Buffer
	s.WriteCSV(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteCSV writes timeseries.csv to w a row at a time, as CSV renders it:
// a long run's series is tens of megabytes, never held twice.
func (s *Series) WriteCSV(w io.Writer) error {
	row := []byte("time_ns,metric,where,value\n")
	if _, err := w.Write(row); err != nil {
		return err
	}
	for i, smp := range s.samples {
		keys := s.keys(i)
		for j := smp.first; j < s.end(i); j++ {
			k := keys[j-smp.first]
			row = strconv.AppendInt(row[:0], smp.timeNs, 10)
			row = append(row, ',')
			row = append(row, s.metrics[k.metric]...)
			row = append(row, ',')
			row = append(row, s.wheres[k.where]...)
			row = append(row, ',')
			row = strconv.AppendFloat(row, *s.at(j), 'g', 6, 64)
			row = append(row, '\n')
			if _, err := w.Write(row); err != nil {
				return err
			}
		}
	}
	return nil
}

// PFCRow is one PAUSE or RESUME frame sent: a row of pfc.csv.
type PFCRow struct {
	TimeNs   int64
	Port     string // node:pN
	Priority uint8
	Quanta   uint16 // 0 resumes
}

// PFCCSV renders pfc.csv: time_ns,node,port,priority,quanta.
func PFCCSV(rows []PFCRow) []byte {
	var b bytes.Buffer
	WritePFCCSV(&b, rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WritePFCCSV writes pfc.csv to w a row at a time, as PFCCSV renders it.
func WritePFCCSV(w io.Writer, rows []PFCRow) error { return writePFCRows(w, slices.Values(rows)) }

// PFCSource gives pfc.csv's rows in time order, one at a time (a run's
// PFC log), so that a run with millions of frames need not hold them as
// rows as well.
type PFCSource interface {
	EachPFC(yield func(PFCRow) bool)
}

// writePFCRows writes pfc.csv to w from rows, a row at a time.
func writePFCRows(w io.Writer, rows iter.Seq[PFCRow]) error {
	row := []byte(strings.Join(pfcHeader, ",") + "\n")
	if _, err := w.Write(row); err != nil {
		return err
	}
	var err error
	rows(func(r PFCRow) bool {
		node, port := r.Port, ""
		for i := len(r.Port) - 1; i >= 0; i-- {
			if r.Port[i] == ':' {
				node, port = r.Port[:i], r.Port[i+1:]
				break
			}
		}
		row = strconv.AppendInt(row[:0], r.TimeNs, 10)
		row = append(row, ',')
		row = append(row, node...)
		row = append(row, ',')
		row = append(row, port...)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(r.Priority), 10)
		row = append(row, ',')
		row = strconv.AppendInt(row, int64(r.Quanta), 10)
		row = append(row, '\n')
		_, err = w.Write(row)
		return err == nil
	})
	return err
}
