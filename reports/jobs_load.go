package reports

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
)

// What the report draws of trace.json: the first iterations of the
// first ranks of each job (timelineIterations, timelineRanks), at most
// timelineSpans spans in all (each job its share), read event by event
// (a large job's file is not held, nor read past what is drawn).
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
// run wrote none), event by event, with no limit on the file's size:
// it keeps at most timelineSpans spans, shared among the jobs, of the
// ranks and iterations drawn, and stops reading once the last job's
// drawn ranks are past them, since WriteTraceJSON writes every job's
// metadata first, then the spans job by job, rank by rank, iteration by
// iteration (assembly's timeline). A job's ranks come from thread_name
// events of each rank's first lane (tid below the job's ranks, counted
// from its process's threads): a rank r's lanes are tids r, r+ranks,
// ...; a job's Cut says its spans were cut at its share.
func loadTimeline(dir string) (t *Timeline, err error) {
	path := filepath.Join(dir, "trace.json")
	f, ok, err := openRunFile(path)
	if !ok {
		return nil, err
	}
	defer f.Close()
	bad := func(err error) error { return fmt.Errorf("%s: %v", path, err) }
	d := json.NewDecoder(f)
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad(fmt.Errorf("expected a JSON object with traceEvents"))
	}
	type thread struct{ pid, tid int }
	names := map[thread]string{}
	procs := map[int]string{}
	var index map[int]int // pid: job
	var kept []int        // spans kept, by job
	share := 0
	lastPid := 0
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return nil, bad(err)
		}
		if key != "traceEvents" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return nil, bad(err)
			}
			continue
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
			return nil, bad(fmt.Errorf("traceEvents is not a list"))
		}
		for d.More() {
			var ev traceEvent
			if err := d.Decode(&ev); err != nil {
				return nil, bad(err)
			}
			switch {
			case ev.Ph == "M" && ev.Name == "process_name":
				procs[ev.Pid] = ev.Args.Name
			case ev.Ph == "M" && ev.Name == "thread_name":
				names[thread{ev.Pid, ev.Tid}] = ev.Args.Name
			case ev.Ph == "X" && ev.Ts != nil && ev.Dur != nil:
				if t == nil { // the metadata is all read
					t, index = timelineJobs(procs, func(pid, tid int) (string, bool) { n, ok := names[thread{pid, tid}]; return n, ok })
					kept = make([]int, len(t.Jobs))
					share = max(1, timelineSpans/max(1, len(t.Jobs)))
					for p := range procs {
						lastPid = max(lastPid, p)
					}
				}
				j, ok := index[ev.Pid]
				if !ok || len(t.Jobs[j].Hosts) == 0 {
					continue
				}
				ranks := len(t.Jobs[j].Hosts)
				r, lane := ev.Tid%ranks, ev.Tid/ranks
				drawn := min(ranks, timelineRanks)
				if ev.Pid == lastPid && (r >= drawn || r == drawn-1 && ev.Args.Iteration >= timelineIterations) {
					return t, nil // the rest is not drawn
				}
				if r >= drawn || ev.Args.Iteration >= timelineIterations {
					continue
				}
				if kept[j] >= share {
					t.Jobs[j].Cut = true
					continue
				}
				kept[j]++
				t.Events = append(t.Events, Span{Job: j, Rank: r, Lane: lane, Name: ev.Name, Cat: ev.Cat, StartPs: int64(*ev.Ts * 1e6), DurPs: int64(*ev.Dur * 1e6),
					Iteration: ev.Args.Iteration, Node: ev.Args.Node, Bytes: ev.Args.Bytes})
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, bad(err)
		}
	}
	if t == nil {
		t, _ = timelineJobs(procs, func(pid, tid int) (string, bool) { n, ok := names[thread{pid, tid}]; return n, ok })
	}
	return t, nil
}

// timelineJobs are the jobs of procs (pid: name) in order of pid (1, 2,
// ...), each with its ranks' hosts from name (a thread's name), and
// each pid's job index.
func timelineJobs(procs map[int]string, name func(pid, tid int) (string, bool)) (*Timeline, map[int]int) {
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
			n, ok := name(p, tid)
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
	return t, index
}

func trimParen(s string) string {
	for i, c := range s {
		if c == ')' || c == ',' {
			return s[:i]
		}
	}
	return s
}
