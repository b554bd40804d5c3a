package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
)

// What the report draws of trace.json: the first iterations of the
// first ranks of each job (timelineIterations, timelineRanks), at most
// timelineSpans spans in all, read event by event (a large job's file
// is not held).
const (
	timelineIterations = 2
	timelineRanks      = 32
	timelineSpans      = 20000
)

// traceEvent is one event of trace.json as the report reads it.
type traceEvent struct {
	Ph   string   `json:"ph"`
	Pid  int      `json:"pid"`
	Tid  int      `json:"tid"`
	Ts   *float64 `json:"ts"`
	Dur  *float64 `json:"dur"`
	Name string   `json:"name"`
	Cat  string   `json:"cat"`
	Args struct {
		Name      string `json:"name"`
		Iteration int    `json:"iteration"`
		Node      uint64 `json:"node"`
		Bytes     int64  `json:"bytes"`
	} `json:"args"`
}

// loadTimeline reads what the report draws of trace.json (nil when the
// run wrote none). Jobs' ranks come from thread_name events of each
// rank's first lane (tid below the job's ranks, counted from its
// process's threads): a rank r's lanes are tids r, r+ranks, ...
func loadTimeline(dir string) (*Timeline, bool, error) {
	path := filepath.Join(dir, "trace.json")
	f, ok, err := openRunFile(path)
	if !ok {
		return nil, false, err
	}
	defer f.Close()
	bad := func(err error) error { return fmt.Errorf("%s: %v", path, err) }
	d := json.NewDecoder(io.LimitReader(f, maxJSONBytes))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, bad(fmt.Errorf("expected a JSON object with traceEvents"))
	}
	type thread struct{ pid, tid int }
	names := map[thread]string{}
	procs := map[int]string{}
	var spans []traceEvent
	more := false
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return nil, false, bad(err)
		}
		if key != "traceEvents" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return nil, false, bad(err)
			}
			continue
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
			return nil, false, bad(fmt.Errorf("traceEvents is not a list"))
		}
		for d.More() {
			var ev traceEvent
			if err := d.Decode(&ev); err != nil {
				return nil, false, bad(err)
			}
			switch {
			case ev.Ph == "M" && ev.Name == "process_name":
				procs[ev.Pid] = ev.Args.Name
			case ev.Ph == "M" && ev.Name == "thread_name":
				names[thread{ev.Pid, ev.Tid}] = ev.Args.Name
			case ev.Ph == "X" && ev.Ts != nil && ev.Dur != nil && ev.Args.Iteration < timelineIterations:
				if len(spans) < timelineSpans {
					spans = append(spans, ev)
				} else {
					more = true
				}
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, false, bad(err)
		}
	}
	// Jobs by pid (1, 2, ...); a job's ranks are its threads named
	// "rank r (host)" of its first lane.
	var pids []int
	for p := range procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	t := &Timeline{}
	index := map[int]int{}
	for _, p := range pids {
		index[p] = len(t.Jobs)
		job := TimelineJob{Name: procs[p]}
		for tid := 0; ; tid++ {
			var r int
			var host string
			n, ok := names[thread{p, tid}]
			if !ok {
				break
			}
			if k, _ := fmt.Sscanf(n, "rank %d (%s", &r, &host); k != 2 || r != tid {
				break // past the first lanes
			}
			job.Hosts = append(job.Hosts, trimParen(host))
		}
		t.Jobs = append(t.Jobs, job)
	}
	for _, ev := range spans {
		j, ok := index[ev.Pid]
		if !ok || len(t.Jobs[j].Hosts) == 0 {
			continue
		}
		ranks := len(t.Jobs[j].Hosts)
		r, lane := ev.Tid%ranks, ev.Tid/ranks
		if r >= timelineRanks {
			continue
		}
		t.Events = append(t.Events, Span{Job: j, Rank: r, Lane: lane, Name: ev.Name, Cat: ev.Cat, StartPs: int64(*ev.Ts * 1e6), DurPs: int64(*ev.Dur * 1e6),
			Iteration: ev.Args.Iteration, Node: ev.Args.Node, Bytes: ev.Args.Bytes})
	}
	return t, more, nil
}

func trimParen(s string) string {
	for i, c := range s {
		if c == ')' || c == ',' {
			return s[:i]
		}
	}
	return s
}
