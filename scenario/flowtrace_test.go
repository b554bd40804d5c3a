package scenario

import (
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/sim"
)

const goodTrace = `# a flow trace
start,from,to,size,op,qp,priority,after,id
0,h0,h1,1MiB,,,,,
10us,h1,h2,4096,send,rc,3,0,
1.5us,h2,h0,64KiB,write,,,"1",7
`

// TestParseFlowTrace: a good trace's rows, and each refusal at its
// file:line:column saying what was expected.
func TestParseFlowTrace(t *testing.T) {
	rows, _, err := ParseFlowTrace("f.csv", []byte(goodTrace), 100)
	if err != nil {
		t.Fatal(err)
	}
	// With a byte order mark (Excel's "CSV UTF-8"), the same rows.
	if bom, _, err := ParseFlowTrace("f.csv", []byte("\ufeff"+goodTrace), 100); err != nil || len(bom) != len(rows) {
		t.Errorf("with a byte order mark: %d rows, %v", len(bom), err)
	}
	if len(rows) != 3 || rows[1].Start != 10*sim.Microsecond || rows[1].Size != 4096 || rows[1].Op != "send" || rows[1].Priority != 3 ||
		len(rows[1].After) != 1 || rows[1].After[0] != 0 || rows[2].ID != 7 || rows[2].After[0] != 1 || rows[0].Size != 1<<20 || rows[0].Priority != -1 || rows[2].Line != 5 {
		t.Errorf("rows: %+v", rows)
	}
	for _, c := range []struct{ name, src, want string }{
		{"empty", "", "f.csv: empty; a flow trace's first row names its columns"},
		{"unknown column", "start,from,to,size,prio\n", "f.csv:1:20: unknown column \"prio\""},
		{"twice", "start,from,to,size,to\n", "f.csv:1:20: column to is named twice"},
		{"missing", "start,from,to\n0,h0,h1\n", "f.csv:1: the header has no size column"},
		{"no rows", "start,from,to,size\n", "f.csv: no flows"},
		{"fields", "start,from,to,size\n0,h0,h1\n", "f.csv:2: 3 fields, but the header names 4 columns"},
		{"start", "start,from,to,size\n10 parsecs,h0,h1,1\n", "f.csv:2:1: start is \"10 parsecs\"; expected a time such as 0, 10us or 1.5ms"},
		{"from", "start,from,to,size\n0,,h1,1\n", "f.csv:2:3: from is \"\"; expected a host's name"},
		{"size", "start,from,to,size\n0,h0,h1,0\n", "f.csv:2:9: size is \"0\"; expected a size of at least 1 byte"},
		{"op", "start,from,to,size,op\n0,h0,h1,1,put\n", "f.csv:2:11: op is \"put\"; expected one of write, read, send, write_imm, atomic"},
		{"qp", "start,from,to,size,qp\n0,h0,h1,1,xrc\n", "f.csv:2:11: qp is \"xrc\"; expected one of rc, uc, ud"},
		{"priority", "start,from,to,size,priority\n0,h0,h1,1,8\n", "f.csv:2:11: priority is \"8\"; expected a priority 0..7"},
		{"after later", "start,from,to,size,after\n0,h0,h1,1,1\n0,h1,h0,1,\n", "f.csv:2:11: after names flow 1, which is not a flow of an earlier row"},
		{"after word", "start,from,to,size,after\n0,h0,h1,1,x\n", "f.csv:2:11: after is \"x\"; expected flow ids separated by spaces or semicolons"},
		{"duplicate id", "start,from,to,size,id\n0,h0,h1,1,4\n0,h0,h1,1,4\n", "f.csv:3:11: flow id 4 is already the flow of line 2"},
		// The parsers' reasons are kept.
		{"size unit", "start,from,to,size\n0,h0,h1,9EiB\n", "1MiB (size \"9EiB\" is not a whole number of bytes"},
		{"start negative", "start,from,to,size\n-1us,h0,h1,1\n", "1.5ms (time \"-1us\" is negative"},
		{"start too fine", "start,from,to,size\n1.5ps,h0,h1,1\n", "1.5ms (time \"1.5ps\" is finer than one picosecond)"},
		{"after twice", "start,from,to,size,after\n0,h0,h1,1,\n0,h1,h0,1,0;0\n", "f.csv:3:11: after names flow 0 twice"},
		{"quote", "start,from,to,size\n0,\"h0,h1,1\n", "f.csv:2:12: extraneous or missing \" in quoted-field; expected comma-separated values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseFlowTrace("f.csv", []byte(c.src), 100)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// FuzzFlowTrace: any file given as a flow trace is an error naming the
// file (and its line where one) or rows that hold what the format
// says: a size of at least 1 byte, a start at least 0, a priority -1 or
// 0..7, unique ids, after naming only earlier rows' ids.
func FuzzFlowTrace(f *testing.F) {
	for _, s := range []string{goodTrace, "", "start,from,to,size\n0,a,b,1\n", "start,from,to,size,after\n0,a,b,1,\n1,b,a,2,0\n",
		"start,from,to,size\n0,\"a\"\"b\",c,1\n", "start,from,to,size,id\n0,a,b,1,9223372036854775807\n"} {
		f.Add([]byte(s))
	}
	at := regexp.MustCompile(`^f\.csv(:\d+(:\d+)?)?: `)
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, _, err := ParseFlowTrace("f.csv", data, 10000)
		if err != nil {
			if !at.MatchString(err.Error()) {
				t.Fatalf("error without the file's name and place: %v", err)
			}
			return
		}
		seen := map[int64]bool{}
		for _, r := range rows {
			if r.Size < 1 || r.Start < 0 || r.Priority < -1 || r.Priority > 7 || seen[r.ID] || r.From == "" || r.To == "" {
				t.Fatalf("row %+v", r)
			}
			for _, a := range r.After {
				if !seen[a] {
					t.Fatalf("row %+v waits for a flow not above it", r)
				}
			}
			seen[r.ID] = true
		}
	})
}

// TestFlowTraceColumnsCount: traceColumns, the size of a row's column
// array, is FlowTraceColumns' length.
func TestFlowTraceColumnsCount(t *testing.T) {
	if len(FlowTraceColumns) != traceColumns {
		t.Errorf("traceColumns %d, FlowTraceColumns %d", traceColumns, len(FlowTraceColumns))
	}
}

// TestFlowTraceRowMemory: the parsed rows of 10,000 lines of the 4
// required columns hold at most 250 bytes a row once parsed (live heap
// after a collection): a TraceRow is 168 bytes, and the slice's spare
// capacity up to a quarter more at this size. With a map of its columns
// per row, each held about 400 more (review D measured 406 MiB for
// 1,000,000 rows).
func TestFlowTraceRowMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("start,from,to,size\n")
	for range 10000 {
		b.WriteString("0,h0,h1,1\n")
	}
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rows, _, err := ParseFlowTrace("f.csv", data, 10000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil || len(rows) != 10000 {
		t.Fatal(len(rows), err)
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / 10000
	t.Logf("%d bytes a row live (a TraceRow is %d)", per, unsafe.Sizeof(rows[0]))
	if per > 250 {
		t.Errorf("%d bytes a row live, want at most 250", per)
	}
	if rows[9999].Col("size") != 9 || rows[0].Col("after") != 0 {
		t.Errorf("columns %d %d", rows[9999].Col("size"), rows[0].Col("after"))
	}
}

// TestFlowTraceLimit: past maxRows (the flows that fit) the rows are
// counted, not parsed nor held, so that a trace over the flow limit is
// refused with its count before its rows take memory; a bad value past
// the limit is not looked at.
func TestFlowTraceLimit(t *testing.T) {
	rows, more, err := ParseFlowTrace("f.csv", []byte("start,from,to,size\n0,h0,h1,1\n0,h0,h1,1\n# c\n0,h0,h1,x\n\n0,h0,h1,1\n"), 2)
	if err != nil || len(rows) != 2 || more != 2 {
		t.Errorf("%d rows, %d more, %v; want 2 and 2", len(rows), more, err)
	}
}
