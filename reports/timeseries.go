package reports

import (
	"bytes"
	"io"
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
type Series struct {
	MaxRows     int
	Decimations int
	wheres      []string
	whereIndex  map[string]int32
	metrics     []string
	metricIndex map[string]uint8
	samples     []sample
	// Every sample's points, in order, in chunks of pointChunk: a point
	// is written once. One slice grown by append copied every point
	// again at each growth, into memory fresh from the system: faulting
	// it in was most of a small run's time (a 64-host incast with the
	// default observe spent 0.21 s of 0.23 s on it, docs/PERFORMANCE.md).
	chunks [][]point
	n      int // points held
}

// pointChunk is how many points one chunk holds (64 KiB).
const pointChunk = 4096

// at is the i-th point held.
func (s *Series) at(i int) *point { return &s.chunks[i/pointChunk][i%pointChunk] }

// sample is one sampling time and the index of its first point.
type sample struct {
	timeNs int64
	first  int
}

type point struct {
	metric uint8
	where  int32
	value  float64
}

// NewSeries returns an empty store holding at most maxRows rows.
func NewSeries(maxRows int) *Series {
	return &Series{MaxRows: maxRows, whereIndex: map[string]int32{}, metricIndex: map[string]uint8{}}
}

// Begin starts the sample at timeNs (the end of its interval).
func (s *Series) Begin(timeNs int64) {
	s.samples = append(s.samples, sample{timeNs: timeNs, first: s.n})
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
	if s.n%pointChunk == 0 && s.n/pointChunk == len(s.chunks) {
		s.chunks = append(s.chunks, make([]point, pointChunk))
	}
	*s.at(s.n) = point{k.metric, k.where, value}
	s.n++
}

// End closes the current sample and reports whether the store decimated
// (so the sampler should double its interval).
func (s *Series) End() bool {
	if s.MaxRows <= 0 || s.n <= s.MaxRows || len(s.samples) < 4 {
		return false
	}
	// In place: a kept point moves to an index no later than its own.
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
		kept = append(kept, sample{timeNs: smp.timeNs, first: first})
	}
	s.samples, s.n = kept, n
	// The chunks past the last point go, but for one to write into next.
	used := (n + pointChunk - 1) / pointChunk
	for i := used + 1; i < len(s.chunks); i++ {
		s.chunks[i] = nil
	}
	s.chunks = s.chunks[:min(len(s.chunks), used+1)]
	s.Decimations++
	return true
}

// end is where sample i's points end.
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
		for j := smp.first; j < s.end(i); j++ {
			p := s.at(j)
			row = strconv.AppendInt(row[:0], smp.timeNs, 10)
			row = append(row, ',')
			row = append(row, s.metrics[p.metric]...)
			row = append(row, ',')
			row = append(row, s.wheres[p.where]...)
			row = append(row, ',')
			row = strconv.AppendFloat(row, p.value, 'g', 6, 64)
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
func WritePFCCSV(w io.Writer, rows []PFCRow) error {
	row := []byte(strings.Join(pfcHeader, ",") + "\n")
	if _, err := w.Write(row); err != nil {
		return err
	}
	for _, r := range rows {
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
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}
