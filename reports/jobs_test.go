package reports

import (
	"bytes"
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
	for _, want := range []string{`"ts":1,"dur":2.000001,"name":"all_reduce"`, `"pid":1,"tid":2`, `"ts":0.000007,"dur":0`, `"name":"rank 0 (h0), overlap 1"`} {
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
	for _, c := range []struct{ src, want string }{
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
