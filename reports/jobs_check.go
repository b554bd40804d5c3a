package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// CheckTraceJSON checks data against the Trace Event Format's JSON
// object form as trace.json uses it, and as Perfetto's importer reads
// it: an object whose traceEvents is a list of events, each with ph
// "X" (a complete event: name, cat, pid and tid whole numbers, ts and
// dur finite numbers of microseconds, dur >= 0) or "M" (metadata:
// process_name or thread_name with args.name, process_sort_index or
// thread_sort_index with args.sort_index); every thread of a complete
// event named by a thread_name and its process by a process_name; and
// a thread's complete events nested or apart, never overlapping in
// part (which Perfetto would refuse as misnested slices), once ts and
// dur are each rounded to whole nanoseconds as its importer does
// (llround(x * 1000), trace_processor's json_utils). It returns
// the complete events' count.
func CheckTraceJSON(data []byte) (int, error) {
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("not a JSON object of traceEvents: %v", err)
	}
	if doc.TraceEvents == nil {
		return 0, fmt.Errorf("no traceEvents list")
	}
	type thread struct{ pid, tid int64 }
	whole := func(ev map[string]any, k string) (int64, error) {
		v, ok := ev[k].(float64)
		if !ok || v != math.Trunc(v) {
			return 0, fmt.Errorf("%s is %v, not a whole number", k, ev[k])
		}
		return int64(v), nil
	}
	threads, procs := map[thread]bool{}, map[int64]bool{}
	spans := map[thread][][2]int64{}
	var order []thread
	n := 0
	for i, ev := range doc.TraceEvents {
		fail := func(format string, args ...any) (int, error) {
			return 0, fmt.Errorf("event %d: %s", i, fmt.Sprintf(format, args...))
		}
		pid, err := whole(ev, "pid")
		if err != nil {
			return fail("%v", err)
		}
		tid, err := whole(ev, "tid")
		if err != nil {
			return fail("%v", err)
		}
		name, _ := ev["name"].(string)
		args, _ := ev["args"].(map[string]any)
		switch ev["ph"] {
		case "M":
			switch name {
			case "process_name", "thread_name":
				if s, ok := args["name"].(string); !ok || s == "" {
					return fail("%s without args.name", name)
				}
				if name == "process_name" {
					procs[pid] = true
				} else {
					threads[thread{pid, tid}] = true
				}
			case "process_sort_index", "thread_sort_index":
				if _, ok := args["sort_index"].(float64); !ok {
					return fail("%s without args.sort_index", name)
				}
			default:
				return fail("metadata %q; expected process_name, thread_name, process_sort_index or thread_sort_index", name)
			}
		case "X":
			ts, ok1 := ev["ts"].(float64)
			dur, ok2 := ev["dur"].(float64)
			cat, _ := ev["cat"].(string)
			switch {
			case name == "" || cat == "":
				return fail("a complete event without a name or cat")
			case !ok1 || !ok2 || math.IsInf(ts, 0) || math.IsNaN(ts) || dur < 0 || ts < 0:
				return fail("ts %v and dur %v: expected numbers of µs, dur >= 0", ev["ts"], ev["dur"])
			}
			th := thread{pid, tid}
			if spans[th] == nil {
				order = append(order, th)
			}
			// As Perfetto's importer reads them: ts and dur each
			// rounded to whole ns (llround(x * 1000)).
			from := int64(math.Round(ts * 1000))
			spans[th] = append(spans[th], [2]int64{from, from + int64(math.Round(dur*1000))})
			n++
		default:
			return fail("ph %v; expected X or M", ev["ph"])
		}
	}
	for _, th := range order {
		if !threads[th] || !procs[th.pid] {
			return 0, fmt.Errorf("pid %d tid %d has complete events but no thread_name or process_name", th.pid, th.tid)
		}
		s := spans[th]
		sort.SliceStable(s, func(a, b int) bool {
			if s[a][0] != s[b][0] {
				return s[a][0] < s[b][0]
			}
			return s[a][1] > s[b][1]
		})
		var open []int64 // ends of the enclosing spans, ns
		for _, sp := range s {
			for len(open) > 0 && open[len(open)-1] <= sp[0] {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && sp[1] > open[len(open)-1] {
				return 0, fmt.Errorf("pid %d tid %d: a span from %vµs to %vµs overlaps one ending at %vµs in part (in whole ns, as Perfetto rounds ts and dur)",
					th.pid, th.tid, micros(sp[0]*1000), micros(sp[1]*1000), micros(open[len(open)-1]*1000))
			}
			open = append(open, sp[1])
		}
	}
	return n, nil
}
