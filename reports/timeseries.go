package reports

import (
	"bytes"
	"io"
	"strconv"
)

// Metric names of timeseries.csv (OUTPUTS.md).
const (
	MetricTxGbps      = "tx_gbps"      // where: node:port; bits sent in the interval, Gb/s
	MetricQueueBytes  = "queue_bytes"  // where: node:port:priority; egress queue depth at the sample
	MetricPaused      = "paused"       // where: node:port:priority; fraction of the interval paused
	MetricBufferBytes = "buffer_bytes" // where: node; shared buffer in use
	MetricFlowGbps    = "flow_gbps"    // where: flow:ID; delivered goodput in the interval
	MetricRCGbps      = "rc_gbps"      // where: flow:ID; the reaction point's current rate
	MetricRTGbps      = "rt_gbps"      // where: flow:ID; DCQCN's target rate
	MetricAlpha       = "alpha"        // where: flow:ID; DCQCN's alpha
	MetricWindowBytes = "window_bytes" // where: flow:ID; HPCC's window
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
	points      []point // every sample's points, in order
}

// sample is one sampling time and where its points start in points.
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
	s.samples = append(s.samples, sample{timeNs: timeNs, first: len(s.points)})
}

// Add records one value in the current sample.
func (s *Series) Add(metric, where string, value float64) {
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
	s.points = append(s.points, point{m, w, value})
}

// End closes the current sample and reports whether the store decimated
// (so the sampler should double its interval).
func (s *Series) End() bool {
	if s.MaxRows <= 0 || len(s.points) <= s.MaxRows || len(s.samples) < 4 {
		return false
	}
	kept, pts := s.samples[:0], s.points[:0]
	for i, smp := range s.samples {
		if i%2 != 0 {
			continue
		}
		first := len(pts)
		pts = append(pts, s.points[smp.first:s.end(i)]...)
		kept = append(kept, sample{timeNs: smp.timeNs, first: first})
	}
	s.samples, s.points = kept, pts
	s.Decimations++
	return true
}

// end is where sample i's points end.
func (s *Series) end(i int) int {
	if i+1 < len(s.samples) {
		return s.samples[i+1].first
	}
	return len(s.points)
}

// Rows is the number of rows held.
func (s *Series) Rows() int { return len(s.points) }

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
		for _, p := range s.points[smp.first:s.end(i)] {
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
	row := []byte("time_ns,node,port,priority,quanta\n")
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
