package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceJSON: trace.json of two jobs, one with a rank whose spans
// overlap (so on a second lane), passes the format's check, with every
// span a complete event in µs; and the check refuses what Perfetto
// would not take.
func TestTraceJSON(t *testing.T) {
	tl := &Timeline{
		Jobs: []TimelineJob{{Name: "a", Hosts: []string{"h0", "h1"}, Lanes: []int{2, 1}}, {Name: "b", Hosts: []string{"h2"}, Lanes: []int{1}}},
		Events: []Span{
			{Job: 0, Rank: 0, Name: "fwd", Cat: "compute", StartPs: 0, DurPs: 1500000},
			{Job: 0, Rank: 0, Lane: 1, Name: "all_reduce", Cat: "collective", StartPs: 1000000, DurPs: 2000001, Bytes: 1 << 20},
			{Job: 0, Rank: 1, Name: "fwd", Cat: "compute", StartPs: 0, DurPs: 1500000},
			{Job: 1, Rank: 0, Name: "x \"quoted\"", Cat: "send", StartPs: 7, DurPs: 0},
		},
	}
	var b bytes.Buffer
	if err := WriteTraceJSON(&b, tl); err != nil {
		t.Fatal(err)
	}
	n, err := CheckTraceJSON(b.Bytes())
	if err != nil || n != 4 {
		t.Fatalf("%d events, %v\n%s", n, err, b.String())
	}
	for _, want := range []string{`"ts":1,"dur":2,"name":"all_reduce"`, `"pid":1,"tid":2`, `"ts":0,"dur":0`, `"name":"rank 0 (h0), overlap 1"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("trace.json lacks %s:\n%s", want, b.String())
		}
	}
	// The same spans on one lane overlap in part: refused.
	tl.Events[1].Lane = 0
	b.Reset()
	WriteTraceJSON(&b, tl)
	if _, err := CheckTraceJSON(b.Bytes()); err == nil || !strings.Contains(err.Error(), "overlaps one ending at 1.5µs in part") {
		t.Errorf("misnested spans: %v", err)
	}
	// Back-to-back spans of ps-exact starts: as Perfetto rounds ts
	// and dur each to whole ns, six decimals (1.0006 + 1.0006 µs)
	// would end at 2002 ns, 1 ns after the next begins (2.0012 µs:
	// 2001 ns). Written as whole ns, they touch; the check refuses
	// the six decimals.
	tl = &Timeline{
		Jobs: []TimelineJob{{Name: "a", Hosts: []string{"h0"}, Lanes: []int{1}}},
		Events: []Span{
			{Name: "a", Cat: "compute", StartPs: 1000600, DurPs: 1000600},
			{Name: "b", Cat: "compute", StartPs: 2001200, DurPs: 1000000},
		},
	}
	b.Reset()
	WriteTraceJSON(&b, tl)
	if _, err := CheckTraceJSON(b.Bytes()); err != nil || !strings.Contains(b.String(), `"ts":1.001,"dur":1`) || !strings.Contains(b.String(), `"ts":2.001,"dur":1`) {
		t.Errorf("back-to-back spans: %v\n%s", err, b.String())
	}
	for _, c := range []struct{ src, want string }{
		{`{"traceEvents":[{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"j"}},{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"r"}},` +
			`{"ph":"X","pid":1,"tid":0,"name":"a","cat":"c","ts":1.0006,"dur":1.0006},{"ph":"X","pid":1,"tid":0,"name":"b","cat":"c","ts":2.0012,"dur":1}]}`,
			"a span from 2.001µs to 3.001µs overlaps one ending at 2.002µs in part"},
		{`[]`, "not a JSON object"},
		{`{"traceEvents":[{"ph":"B","pid":1,"tid":0}]}`, "ph B; expected X or M"},
		{`{"traceEvents":[{"ph":"X","pid":1,"tid":0,"name":"a","cat":"c","ts":-1,"dur":1}]}`, "expected numbers of µs"},
		{`{"traceEvents":[{"ph":"X","pid":1,"tid":0,"name":"a","cat":"c","ts":1,"dur":1}]}`, "no thread_name or process_name"},
		{`{"traceEvents":[{"ph":"M","pid":1.5,"tid":0}]}`, "pid is 1.5, not a whole number"},
	} {
		if _, err := CheckTraceJSON([]byte(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// TestTimelineReadsOnlyWhatItDraws: the report reads trace.json only up
// to the last job's drawn ranks and iterations, so a file as large as
// a long job's (here: one cut off inside the iterations not drawn, as
// at a read limit) still gives its timeline; and the spans it keeps are
// of drawn ranks, each job its share, so that a job of many ranks does
// not leave the next without a timeline.
func TestTimelineReadsOnlyWhatItDraws(t *testing.T) {
	write := func(tl *Timeline) string {
		var b bytes.Buffer
		if err := WriteTraceJSON(&b, tl); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	load := func(data string) *Timeline {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "trace.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		tl, err := loadTimeline(dir)
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	// One job, 2 ranks, 5 iterations of one phase, the file cut inside
	// rank 1's iteration 3.
	tl := &Timeline{Jobs: []TimelineJob{{Name: "a", Hosts: []string{"h0", "h1"}, Lanes: []int{1, 1}}}}
	for r := range 2 {
		for it := range 5 {
			tl.Events = append(tl.Events, Span{Rank: r, Name: "c", Cat: "compute", StartPs: int64(it) * 1e6, DurPs: 1e6, Iteration: it})
		}
	}
	data := write(tl)
	first := strings.Index(data, `"iteration":3`) // rank 0's
	cutAt := first + 1 + strings.Index(data[first+1:], `"iteration":3`)
	got := load(data[:cutAt])
	if len(got.Events) != 4 {
		t.Errorf("a file cut past what is drawn: %d spans, want 4 (2 ranks, 2 iterations)", len(got.Events))
	}
	// Job 0 of 40 ranks, 2 iterations of 300 phases (24,000 spans, 4,800
	// of them of ranks not drawn), then job 1 of 2 ranks.
	tl = &Timeline{Jobs: []TimelineJob{{Name: "big", Lanes: make([]int, 40)}, {Name: "small", Hosts: []string{"h0", "h1"}, Lanes: []int{1, 1}}}}
	for r := range 40 {
		tl.Jobs[0].Hosts = append(tl.Jobs[0].Hosts, fmt.Sprint("b", r))
		tl.Jobs[0].Lanes[r] = 1
		for it := range 2 {
			for p := range 300 {
				tl.Events = append(tl.Events, Span{Rank: r, Name: "c", Cat: "compute", StartPs: int64(it*300+p) * 1e6, DurPs: 1e6, Iteration: it})
			}
		}
	}
	for r := range 2 {
		tl.Events = append(tl.Events, Span{Job: 1, Rank: r, Name: "c", Cat: "compute", DurPs: 1e6})
	}
	got = load(write(tl))
	per := map[int]int{}
	for _, s := range got.Events {
		per[s.Job]++
		if s.Rank >= timelineRanks {
			t.Fatalf("a span of rank %d kept", s.Rank)
		}
	}
	if per[1] != 2 || per[0] != timelineSpans/2 || !got.Jobs[0].Cut || got.Jobs[1].Cut {
		t.Errorf("spans kept by job %v (cut %v, %v), want job 0 cut at %d, job 1's 2", per, got.Jobs[0].Cut, got.Jobs[1].Cut, timelineSpans/2)
	}
}
