package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Topo is topology.json: the nodes and links a report draws.
type Topo struct {
	Nodes []TopoNode `json:"nodes"`
	Links []TopoLink `json:"links"`
}

// TopoNode is one node: kind "host" or "switch".
type TopoNode struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// PortOf names the host whose HCA's second port the node is
	// (InfiniBand's dual-port HCAs); empty for any other node.
	PortOf string `json:"port_of,omitempty"`
}

// TopoLink is one cable between two ports, named node:pN.
type TopoLink struct {
	A        string  `json:"a"`
	B        string  `json:"b"`
	RateGbps float64 `json:"rate_gbps"`
}

// TopologyJSON renders topology.json.
func TopologyJSON(t *Topo) []byte {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// Point is one sample of a series.
type Point struct {
	TimeNs int64
	Value  float64
}

// Run is one run's files, read back from its directory: what the report
// draws.
type Run struct {
	Dir     string
	Label   string
	Summary Summary
	Flows   []FlowRow
	// Series maps metric to where to samples; Wheres keeps each metric's
	// wheres in first-seen order.
	Series map[string]map[string][]Point
	Wheres map[string][]string
	PFC    []PFCRow
	// Uplinks are uplinks.csv's rows (none when the run wrote none).
	Uplinks []UplinkRow
	// Events are events.csv's rows (none when the run wrote none).
	Events []EventRow
	Topo   *Topo // nil when the run has no topology.json
	// Params are the scenario's settings (scenario.yaml flattened to
	// dotted keys, with the run's seed), for labelling overlaid runs.
	Params map[string]string

	flowNames map[string]string // "3" -> "h0→h8 #3" (seriesName)
}

// LoadRun reads a run directory: summary.json is required; flows.csv,
// timeseries.csv, pfc.csv, uplinks.csv, topology.json and scenario.yaml
// are read when present.
func LoadRun(dir string) (*Run, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	return LoadRunWith(dir, data)
}

// LoadRunWith is LoadRun with summary.json's bytes given (a run builds
// its report before it writes its summary, which goes last).
func LoadRunWith(dir string, data []byte) (*Run, error) {
	r := &Run{Dir: dir, Label: filepath.Base(filepath.Clean(dir)), Series: map[string]map[string][]Point{}, Wheres: map[string][]string{}, Params: map[string]string{}}
	err := json.Unmarshal(data, &r.Summary)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	err = eachCSV(filepath.Join(dir, "flows.csv"), func(rec []string) error {
		base, ord, con := len(FlowsHeader), len(FlowsOrderHeader), len(FlowsConnectHeader)
		hasOrder := len(rec) == base+ord || len(rec) == base+ord+con
		hasConnect := len(rec) == base+con || len(rec) == base+ord+con
		if len(rec) != base && !hasOrder && !hasConnect {
			return fmt.Errorf("expected the %d fields of %s (and with load balancing %s, with connect: cm %s), found %d", len(FlowsHeader), strings.Join(FlowsHeader, ","),
				strings.Join(FlowsOrderHeader, ","), strings.Join(FlowsConnectHeader, ","), len(rec))
		}
		var p fieldParser
		// end_ns, fct_ns and slowdown are empty for a flow not complete.
		row := FlowRow{ID: int(p.int(rec, 0, FlowsHeader, false)), Src: rec[1], Dst: rec[2], QP: rec[3], Op: rec[4],
			SizeBytes: p.int(rec, 5, FlowsHeader, false), DeliveredBytes: p.int(rec, 6, FlowsHeader, false),
			StartNs: p.int(rec, 7, FlowsHeader, false), EndNs: p.int(rec, 8, FlowsHeader, true), FCTNs: p.int(rec, 9, FlowsHeader, true),
			Slowdown: p.float(rec, 10, FlowsHeader, true), Retransmits: p.int(rec, 11, FlowsHeader, false), Status: rec[12]}
		if hasConnect {
			row.CM = true
			row.ConnectNs = p.int(rec[len(rec)-1:], 0, FlowsConnectHeader, true)
		}
		if hasOrder && rec[13] != "" {
			h := FlowsOrderHeader
			o := rec[len(FlowsHeader):]
			row.Order = &FlowOrder{Paths: int(p.int(o, 0, h, false)), ReorderMax: p.int(o, 1, h, false), ReorderMean: p.float(o, 2, h, false)}
		}
		r.Flows = append(r.Flows, row)
		return p.err
	})
	if err != nil {
		return nil, err
	}
	if err := r.loadSeries(filepath.Join(dir, "timeseries.csv")); err != nil {
		return nil, err
	}
	// A PFC-heavy run writes hundreds of thousands of rows over a few
	// hundred ports: each row shares its port's name.
	names := map[[2]string]string{}
	r.PFC = make([]PFCRow, 0, csvRows(filepath.Join(dir, "pfc.csv")))
	err = eachCSV(filepath.Join(dir, "pfc.csv"), func(rec []string) error {
		if len(rec) != len(pfcHeader) {
			return fmt.Errorf("expected the %d fields of %s, found %d", len(pfcHeader), strings.Join(pfcHeader, ","), len(rec))
		}
		var p fieldParser
		t := p.int(rec, 0, pfcHeader, false)
		prio := p.int(rec, 3, pfcHeader, false)
		q := p.int(rec, 4, pfcHeader, false)
		if p.err == nil && (prio < 0 || prio > 7 || q < 0 || q > 0xFFFF) {
			p.err = fmt.Errorf("priority %d or quanta %d out of range (0..7, 0..65535)", prio, q)
		}
		if p.err != nil {
			return p.err
		}
		port, ok := names[[2]string{rec[1], rec[2]}]
		if !ok {
			port = rec[1] + ":" + rec[2]
			names[[2]string{strings.Clone(rec[1]), strings.Clone(rec[2])}] = port
		}
		r.PFC = append(r.PFC, PFCRow{TimeNs: t, Port: port, Priority: uint8(prio), Quanta: uint16(q)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := r.loadUplinks(filepath.Join(dir, "uplinks.csv")); err != nil {
		return nil, err
	}
	if err := r.loadEvents(filepath.Join(dir, "events.csv")); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "events.csv"), err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "topology.json")); err == nil {
		var t Topo
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "topology.json"), err)
		}
		r.Topo = &t
	}
	if data, err := os.ReadFile(filepath.Join(dir, "scenario.yaml")); err == nil {
		var v any
		if yaml.Unmarshal(data, &v) == nil {
			flatten("", v, r.Params)
		}
	}
	delete(r.Params, "description")
	r.Params["seed"] = strconv.FormatUint(r.Summary.Seed, 10)
	return r, nil
}

// pfcHeader is pfc.csv's header (WritePFCCSV).
var pfcHeader = []string{"time_ns", "node", "port", "priority", "quanta"}

// fieldParser reads a CSV record's numbers, keeping the first error,
// which names the column and the field.
type fieldParser struct{ err error }

// int is field i of rec as a whole number; blank allows an empty field,
// read as 0.
func (p *fieldParser) int(rec []string, i int, header []string, blank bool) int64 {
	if blank && rec[i] == "" {
		return 0
	}
	v, err := strconv.ParseInt(rec[i], 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %q is not a whole number", header[i], rec[i])
	}
	return v
}

// float is field i of rec as a number; blank allows an empty field.
func (p *fieldParser) float(rec []string, i int, header []string, blank bool) float64 {
	if blank && rec[i] == "" {
		return 0
	}
	v, err := strconv.ParseFloat(rec[i], 64)
	if (err != nil || math.IsNaN(v) || math.IsInf(v, 0)) && p.err == nil {
		p.err = fmt.Errorf("%s: %q is not a number", header[i], rec[i])
	}
	return v
}

// eachCSV calls fn with each record of a CSV file after its header, as
// it reads them (a file can hold a million rows; none is kept unless fn
// keeps it). A missing file has no records. fn must not keep rec itself;
// an error it returns stops the reading and comes back as
// file:line: error.
func eachCSV(path string, fn func(rec []string) error) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	rd := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	rd.FieldsPerRecord = -1
	rd.ReuseRecord = true
	for i := 0; ; i++ {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if i > 0 {
			if err := fn(rec); err != nil {
				line, _ := rd.FieldPos(0)
				return fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
	}
}

// csvRows counts the records after a CSV file's header (its lines, for
// files without quoted newlines, as lfsim writes them), to size what
// holds them: growing a slice of a million rows by appending alone
// allocates five times its size on the way. 0 if the file cannot be read.
func csvRows(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	lines := 0
	for {
		n, err := f.Read(buf)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if err != nil {
			return max(0, lines-1)
		}
	}
}

// loadSeries reads timeseries.csv (time_ns,metric,where,value) line by
// line: it can hold a million rows. A row's series is found by its
// "metric,where" bytes, one map lookup that makes no string, and its
// numbers are parsed from the line in place: splitting each line into
// strings made two allocations a row and was a quarter of a `lfsim run`
// of the k=8 permutation (BenchmarkLoadRunSeries).
func (r *Run) loadSeries(path string) error {
	file, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	defer file.Close()
	type series struct {
		metric, where string
		points        []Point
	}
	var all []*series // in first-seen order
	byKey := map[string]*series{}
	sc := bufio.NewScanner(file)
	for i := 0; sc.Scan(); i++ {
		line := sc.Bytes()
		if i == 0 || len(line) == 0 {
			continue
		}
		// The first three commas, as strings.SplitN(line, ",", 4).
		var c [3]int
		n := 0
		for j := 0; j < len(line) && n < len(c); j++ {
			if line[j] == ',' {
				c[n] = j
				n++
			}
		}
		if n < len(c) {
			return fmt.Errorf("%s:%d: expected time_ns,metric,where,value", path, i+1)
		}
		c1, c2, c3 := c[0], c[1], c[2]
		t, ok := parseDecimal(line[:c1])
		v, err := strconv.ParseFloat(string(line[c3+1:]), 64)
		if !ok || err != nil {
			return fmt.Errorf("%s:%d: bad number", path, i+1)
		}
		se := byKey[string(line[c1+1:c3])]
		if se == nil {
			se = &series{metric: string(line[c1+1 : c2]), where: string(line[c2+1 : c3])}
			byKey[string(line[c1+1:c3])] = se
			all = append(all, se)
		}
		se.points = append(se.points, Point{t, v})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, se := range all {
		m := r.Series[se.metric]
		if m == nil {
			m = map[string][]Point{}
			r.Series[se.metric] = m
		}
		m[se.where] = se.points
		r.Wheres[se.metric] = append(r.Wheres[se.metric], se.where)
	}
	return nil
}

// parseDecimal parses b as strconv.ParseInt(b, 10, 64) does, without
// making a string of it for the common case (digits only, at most 18 of
// them, which cannot overflow); anything else goes to ParseInt.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			n, err := strconv.ParseInt(string(b), 10, 64)
			return n, err == nil
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// flatten turns a YAML document into dotted keys: switch.ecn.kmin.
// Lists keep their index: traffic.0.incast.size.
func flatten(prefix string, v any, out map[string]string) {
	key := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(key(k), e, out)
		}
	case []any:
		for i, e := range x {
			flatten(key(strconv.Itoa(i)), e, out)
		}
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// LabelRuns labels each run by the parameters whose values differ
// between the runs ("switch.ecn.kmin=20KiB seed=2"); runs that differ in
// nothing keep their directory's name.
func LabelRuns(runs []*Run) {
	if len(runs) < 2 {
		return
	}
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r.Params {
			keys[k] = true
		}
	}
	var differ []string
	for k := range keys {
		if k == "name" || strings.HasPrefix(k, "expect.") {
			continue // what the runs are called, and what they check, are not settings
		}
		v0, ok0 := runs[0].Params[k]
		for _, r := range runs[1:] {
			if v, ok := r.Params[k]; ok != ok0 || v != v0 {
				differ = append(differ, k)
				break
			}
		}
	}
	sort.Strings(differ)
	if len(differ) == 0 {
		return
	}
	seen := map[string]int{}
	for _, r := range runs {
		var parts []string
		for _, k := range differ {
			v, ok := r.Params[k]
			if !ok {
				v = "(unset)"
			}
			parts = append(parts, k+"="+v)
		}
		r.Label = strings.Join(parts, " ")
		seen[r.Label]++
	}
	for _, r := range runs {
		if seen[r.Label] > 1 {
			r.Label += " (" + filepath.Base(filepath.Clean(r.Dir)) + ")"
		}
	}
}
