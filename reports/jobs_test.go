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
