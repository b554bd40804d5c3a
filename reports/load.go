package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/internal/userfile"
)

// Topo is topology.json: the nodes and links a report draws.
type Topo struct {
	Nodes []TopoNode `json:"nodes"`
	Links []TopoLink `json:"links"`
	// Servers are the GPU servers (issue 48), none for a topology of
	// plain hosts.
	Servers []TopoServer `json:"servers,omitempty"`
}

// TopoServer is one GPU server: its GPUs' hosts, in GPU order, and its
// scale-up domain (NVLink): each GPU's rate into it per direction, in
// Gb/s, and a transfer's latency, in ns.
type TopoServer struct {
	Name          string   `json:"name"`
	GPUs          []string `json:"gpus"`
	NVLinkGbps    float64  `json:"nvlink_gbps"`
	NVLinkDelayNs int64    `json:"nvlink_delay_ns"`
}

// TopoNode is one node: kind "host" or "switch".
type TopoNode struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// PortOf names the host whose HCA's second port the node is
	// (InfiniBand's dual-port HCAs); empty for any other node.
	PortOf string `json:"port_of,omitempty"`
	// Device is "range-extender" for an InfiniBand range extender (a
	// switch node of two ports); empty for any other node.
	Device string `json:"device,omitempty"`
	// LinkLayer is the node's link layer, infiniband or ethernet, on a
	// network that has both (VPI: a host's port is on its switch's);
	// empty where the network has one (summary.json's scenario names it).
	LinkLayer string `json:"link_layer,omitempty"`
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
	Dir   string
	Label string
	// Settings are, when runs are compared (LabelRuns), every setting in
	// which they differ, this run's value of each by its full path
	// ("(default)" where it sets none): the page shows them on hovering
	// over the run's label, which names only the settings it sets.
	Settings []string
	Summary  Summary
	// Flows is what the report draws of flows.csv, read row by row.
	Flows FlowStats
	// Series maps metric to where to samples; Wheres keeps each metric's
	// wheres in first-seen order.
	Series map[string]map[string][]Point
	Wheres map[string][]string
	// PFC are pfc.csv's rows, for a Run made in memory; LoadRun keeps
	// none, only what the report draws of them (pfcSpread).
	PFC       []PFCRow
	pfcSpread *pfcSpread
	// Uplinks are uplinks.csv's rows (none when the run wrote none).
	Uplinks []UplinkRow
	// Events are events.csv's rows (none when the run wrote none).
	Events []EventRow
	Topo   *Topo // nil when the run has no topology.json
	// Timeline is what the report draws of trace.json (nil without
	// one); a job's Cut says it holds only its share of the spans.
	Timeline *Timeline
	// Iteration is timeline.csv's rows: one iteration of a latency
	// program, stage by stage (none when the run wrote none).
	Iteration []TimelineRow
	// Programs is the start of perftest.txt (the programs' output;
	// empty when the run ran none), ProgramsCut whether it goes on.
	Programs    string
	ProgramsCut bool
	// Params are the scenario's settings (scenario.yaml flattened to
	// dotted keys, with the run's seed), for labelling overlaid runs.
	Params map[string]string
	// Fabric is what the network is made of, which the report's rows,
	// captions and charts follow; given by the caller that has the
	// scenario (nil: told from the files, inferFabric).
	Fabric *Fabric
}

// LoadRun reads a run directory: summary.json is required; flows.csv,
// timeseries.csv, pfc.csv, uplinks.csv, events.csv, timeline.csv, topology.json,
// scenario.yaml and the start of perftest.txt are read when present.
// Every file is checked as a scenario file is (a regular file, bounded:
// csvread.go), and the CSV files are read line by line.
func LoadRun(dir string) (*Run, error) {
	path := filepath.Join(dir, "summary.json")
	data, ok, err := readRunFile(path, maxJSONBytes)
	if !ok && err == nil {
		_, err = os.Stat(path)
		return nil, fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	if err != nil {
		return nil, err
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
	// The series first: flows.csv keeps the names of the flows they show.
	if err := r.loadSeries(filepath.Join(dir, "timeseries.csv")); err != nil {
		return nil, err
	}
	if err := r.loadFlows(filepath.Join(dir, "flows.csv")); err != nil {
		return nil, err
	}
	// A PFC-heavy run writes hundreds of thousands of rows over a few
	// hundred ports: read twice (spreadOf), each row sharing its port's
	// name, and not kept.
	pfcPath := filepath.Join(dir, "pfc.csv")
	names := map[[2]string]string{}
	r.pfcSpread, err = spreadOf(func(yield func(PFCRow) bool) error {
		done := errors.New("stop")
		err := eachCSV(pfcPath, [][]string{pfcHeader}, func(_, rec []string) error {
			var p fieldParser
			t := p.count(rec, 0, pfcHeader, false)
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
			if !yield(PFCRow{TimeNs: t, Port: port, Priority: uint8(prio), Quanta: uint16(q)}) {
				return done
			}
			return nil
		})
		if err == done {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := r.loadUplinks(filepath.Join(dir, "uplinks.csv")); err != nil {
		return nil, err
	}
	if err := r.loadEvents(filepath.Join(dir, "events.csv")); err != nil {
		return nil, err
	}
	if t, err := loadTimeline(dir); err != nil {
		return nil, err
	} else if t != nil {
		r.Timeline = t
	}
	if err := r.loadIteration(filepath.Join(dir, "timeline.csv")); err != nil {
		return nil, err
	}
	if err := r.loadProgramsInto(filepath.Join(dir, "perftest.txt")); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "topology.json")
	if data, ok, err := readRunFile(path, maxJSONBytes); err != nil {
		return nil, err
	} else if ok {
		var t Topo
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.Topo = &t
	}
	if data, ok, err := readRunFile(filepath.Join(dir, "scenario.yaml"), userfile.MaxScenarioBytes); err != nil {
		return nil, err
	} else if ok {
		var v any
		if yaml.Unmarshal(data, &v) == nil {
			flatten("", v, r.Params)
		}
	}
	delete(r.Params, "description")
	r.Params["seed"] = strconv.FormatUint(r.Summary.Seed, 10)
	return r, nil
}

// flowsHeaders are the headers flows.csv may have: FlowsHeader, with the
// order columns under load balancing, the connect column with connect:
// cm, or both (FlowsCSV).
var flowsHeaders = [][]string{
	FlowsHeader,
	slices.Concat(FlowsHeader, FlowsOrderHeader),
	slices.Concat(FlowsHeader, FlowsConnectHeader),
	slices.Concat(FlowsHeader, FlowsOrderHeader, FlowsConnectHeader),
}

// loadFlows reads flows.csv into r.Flows row by row, keeping the names
// of the flows the time series show (loadSeries goes first).
func (r *Run) loadFlows(path string) error {
	want := map[int]bool{}
	for _, wheres := range r.Wheres {
		for _, w := range wheres {
			if id, ok := strings.CutPrefix(w, "flow:"); ok {
				if n, err := strconv.Atoi(id); err == nil && strconv.Itoa(n) == id {
					want[n] = true
				}
			}
		}
	}
	r.Flows = FlowStats{want: want}
	return ReadFlows(path, func(row *FlowRow) error {
		r.Flows.Add(row)
		return nil
	})
}

// ReadFlows reads a run's flows.csv row by row, checked as LoadRun
// reads it (its header, each field, bounded lines), calling fn with each
// row; fn may keep the row's fields but not the row, which the next
// reuses. A missing file has no rows.
func ReadFlows(path string, fn func(*FlowRow) error) error {
	var row FlowRow
	return eachCSV(path, flowsHeaders, func(h, rec []string) error {
		if err := parseFlowRow(&row, h, rec); err != nil {
			return err
		}
		return fn(&row)
	})
}

// parseFlowRow reads rec, a row of flows.csv under header h, into f.
// Its strings are rec's: f must not be kept past the row.
func parseFlowRow(f *FlowRow, h, rec []string) error {
	var p fieldParser
	// end_ns, fct_ns and slowdown are empty for a flow not complete.
	*f = FlowRow{ID: int(p.count(rec, 0, h, false)), Src: rec[1], Dst: rec[2], QP: rec[3], Op: rec[4],
		SizeBytes: p.count(rec, 5, h, false), DeliveredBytes: p.count(rec, 6, h, false),
		StartNs: p.count(rec, 7, h, false), EndNs: p.count(rec, 8, h, true), FCTNs: p.count(rec, 9, h, true),
		Slowdown: p.nonNegative(rec, 10, h, true), Retransmits: p.count(rec, 11, h, false), Status: rec[12]}
	base := len(FlowsHeader)
	if len(h) > base && h[base] == FlowsOrderHeader[0] && rec[base] != "" {
		f.Order = &FlowOrder{Paths: int(p.count(rec, base, h, false)), ReorderMax: p.count(rec, base+1, h, false),
			ReorderMean: p.nonNegative(rec, base+2, h, false)}
	}
	if h[len(h)-1] == FlowsConnectHeader[0] {
		f.CM = true
		f.ConnectNs = p.count(rec, len(h)-1, h, true)
	}
	return p.err
}

// seriesHeader is timeseries.csv's header (Series.WriteCSV).
var seriesHeader = []string{"time_ns", "metric", "where", "value"}

// pfcHeader is pfc.csv's header (WritePFCCSV).
var pfcHeader = []string{"time_ns", "node", "port", "priority", "quanta"}

// loadSeries reads timeseries.csv (time_ns,metric,where,value) line by
// line: it can hold a million rows. A row's series is found by its
// "metric,where" bytes, one map lookup that makes no string, and its
// numbers are parsed from the line in place: splitting each line into
// strings made two allocations a row and was a quarter of a `lfsim run`
// of the k=8 permutation (BenchmarkLoadRunSeries).
func (r *Run) loadSeries(path string) error {
	file, ok, err := openRunFile(path)
	if !ok {
		return err
	}
	defer file.Close()
	type series struct {
		metric, where string
		points        []Point
	}
	var all []*series // in first-seen order
	byKey := map[string]*series{}
	lines := userfile.LimitLines(file, path, maxLineBytes)
	sc := bufio.NewScanner(lines)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes+2) // the limiter refuses a longer line first
	h := seriesHeader
	i := 0
	for ; sc.Scan(); i++ {
		if err := lines.Err(); err != nil {
			return err // the line is the start of a longer one
		}
		line := sc.Bytes()
		if i == 0 {
			if _, err := matchHeader([][]string{h}, strings.Split(string(line), ",")); err != nil {
				return fmt.Errorf("%s:1: %w", path, err)
			}
			continue
		}
		if len(line) == 0 {
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
			return fmt.Errorf("%s:%d: expected the 4 fields of %s, found %d", path, i+1, strings.Join(h, ","), n+1)
		}
		c1, c2, c3 := c[0], c[1], c[2]
		t, ok := parseDecimal(line[:c1])
		if !ok {
			return fmt.Errorf("%s:%d: %s: %q is not a whole number", path, i+1, h[0], line[:c1])
		}
		if t < 0 {
			return fmt.Errorf("%s:%d: %s: %q is negative; expected 0 or more", path, i+1, h[0], line[:c1])
		}
		v, err := strconv.ParseFloat(string(line[c3+1:]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s:%d: %s: %q is not a number", path, i+1, h[3], line[c3+1:])
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
		if errors.Is(err, userfile.ErrLineTooLong) {
			return err // it names the file and the line
		}
		return fmt.Errorf("%s:%d: %w", path, i+1, err)
	}
	if i == 0 {
		return fmt.Errorf("%s:1: the file is empty; %s", path, headerWant([][]string{h}))
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
// between the runs, each by the shortest end of its path that no other
// such parameter shares, and only those the run sets ("kmin=20KiB
// seed=2", not "hca.cc=none hca.dcqcn.rpg_ai_rate=(unset) ...": issue
// 51's legends of 32 pages); a run that sets none of them, and runs that
// differ in nothing, keep their directory's name.
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
	short := shortKeys(differ)
	seen := map[string]int{}
	for _, r := range runs {
		var parts []string
		r.Settings = nil
		for _, k := range differ {
			v, ok := r.Params[k]
			if ok {
				parts = append(parts, short[k]+"="+v)
			} else {
				v = "(default)"
			}
			r.Settings = append(r.Settings, k+"="+v)
		}
		if len(parts) > 0 {
			r.Label = strings.Join(parts, " ")
		} else {
			r.Label = filepath.Base(filepath.Clean(r.Dir)) // sets none of them: the defaults
		}
		seen[r.Label]++
	}
	for _, r := range runs {
		if seen[r.Label] > 1 {
			r.Label += " (" + filepath.Base(filepath.Clean(r.Dir)) + ")"
		}
	}
}

// shortKeys maps each dotted path to its shortest ending (whole keys)
// that no other path of keys ends with: switch.ecn.kmin is kmin, unless
// another is ...kmin too.
func shortKeys(keys []string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		parts := strings.Split(k, ".")
		for n := 1; n <= len(parts); n++ {
			end := strings.Join(parts[len(parts)-n:], ".")
			clash := false
			for _, o := range keys {
				if o != k && (o == end || strings.HasSuffix(o, "."+end)) {
					clash = true
					break
				}
			}
			if !clash {
				out[k] = end
				break
			}
		}
		if out[k] == "" {
			out[k] = k
		}
	}
	return out
}
