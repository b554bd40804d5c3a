package scenario

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// A flow trace (trace: {file}) is a CSV file of flows, one a row, with a
// header row naming its columns: start, from, to and size, and
// optionally op, qp, priority, after and id. start is a time (10us, 0),
// from and to host names, size a size (4096, 1MiB); op and qp as a
// flow's, priority 0..7; after the ids of flows (into from) whose data
// must have arrived first, separated by spaces or semicolons; id the
// flow's number, default its row's (0 for the first row under the
// header). Empty optional cells take the generator's value. Lines
// starting with # are comments.

// MaxFlowTraceBytes bounds a flow trace file: 64 MiB.
const MaxFlowTraceBytes = 64 << 20

// FlowTraceColumns are the columns a flow trace may have, the required
// ones first.
var FlowTraceColumns = []string{"start", "from", "to", "size", "op", "qp", "priority", "after", "id"}

const requiredTraceColumns = 4

// traceColumns is len(FlowTraceColumns).
const traceColumns = 9

// Col is the 1-based byte column of the row's cell of column name
// (one of FlowTraceColumns), 0 when the file has no such column.
func (r *TraceRow) Col(name string) int {
	if i := slices.Index(FlowTraceColumns, name); i >= 0 {
		return int(r.cols[i])
	}
	return 0
}

// TraceRow is one flow of a flow trace. Line and the columns' cols are
// where it is in the file, for messages (Col).
type TraceRow struct {
	Line int
	// cols are the row's cells' 1-based byte columns, in the order of
	// FlowTraceColumns (0: no such column): an array, not a map, as a
	// map per row held about 400 bytes a row (review D).
	cols     [traceColumns]int32
	ID       int64
	Start    sim.Time
	From, To string
	Size     int64
	Op, QP   string // "" unless given
	Priority int    // -1 unless given
	After    []int64
}

// ParseFlowTrace reads a flow trace; an error names file, line and
// column and what was expected. It parses at most maxRows rows (the
// flows that fit): past them it only counts the lines left, more, so
// that a trace over the flow limit is refused without holding its rows.
func ParseFlowTrace(file string, data []byte, maxRows int) (rows []TraceRow, more int, err error) {
	rows, more, err = parseFlowTrace(file, data, maxRows)
	if err != nil {
		return nil, 0, err
	}
	return rows, more, nil
}

func parseFlowTrace(file string, data []byte, maxRows int) ([]TraceRow, int, error) {
	// A leading byte order mark (Excel's "CSV UTF-8") is not part of
	// the first column's name.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return nil, 0, fmt.Errorf("%s: empty; a flow trace's first row names its columns (%s)", file, strings.Join(FlowTraceColumns[:requiredTraceColumns], ","))
	}
	if err != nil {
		return nil, 0, csvError(file, err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		line, c := r.FieldPos(i)
		switch {
		case !slices.Contains(FlowTraceColumns, name):
			return nil, 0, fmt.Errorf("%s:%d:%d: unknown column %s; a flow trace's first row names its columns, of %s (start, from, to and size required)",
				file, line, c, excerpt(h), strings.Join(FlowTraceColumns, ", "))
		case col[name] > 0:
			return nil, 0, fmt.Errorf("%s:%d:%d: column %s is named twice", file, line, c, name)
		}
		col[name] = i + 1
	}
	for _, need := range FlowTraceColumns[:requiredTraceColumns] {
		if col[need] == 0 {
			line, _ := r.FieldPos(0)
			return nil, 0, fmt.Errorf("%s:%d: the header has no %s column; a flow trace needs start, from, to and size (found %s)", file, line, need, excerpt(strings.Join(header, ",")))
		}
	}
	var rows []TraceRow
	more := 0
	ids := map[int64]int{} // id: line
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, csvError(file, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line with spaces
		}
		if len(rows) >= maxRows {
			more++ // not parsed: the trace is over the flow limit
			continue
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, 0, fmt.Errorf("%s:%d: %d fields, but the header names %d columns (%s)", file, line, len(rec), len(header), strings.Join(header, ","))
		}
		row := TraceRow{Line: line, ID: int64(len(rows)), Priority: -1}
		cell := func(name string) (string, int, bool) {
			i := col[name]
			if i == 0 {
				return "", 0, false
			}
			_, c := r.FieldPos(i - 1)
			row.cols[slices.Index(FlowTraceColumns, name)] = int32(c)
			v := strings.TrimSpace(rec[i-1])
			return v, c, v != ""
		}
		bad := func(c int, name, v, want string) error {
			return fmt.Errorf("%s:%d:%d: %s is %s; expected %s", file, line, c, name, excerpt(v), want)
		}
		v, c, _ := cell("start")
		t, err := sim.ParseTime(v)
		if err == nil && t < 0 {
			err = fmt.Errorf("it is negative")
		}
		if err != nil {
			return nil, 0, bad(c, "start", v, fmt.Sprintf("a time such as 0, 10us or 1.5ms (%v)", err))
		}
		row.Start = t
		for _, name := range []string{"from", "to"} {
			v, c, ok := cell(name)
			if !ok {
				return nil, 0, bad(c, name, v, "a host's name")
			}
			if name == "from" {
				row.From = v
			} else {
				row.To = v
			}
		}
		v, c, _ = cell("size")
		sz, err := fabric.ParseSize(v)
		if err != nil {
			return nil, 0, bad(c, "size", v, fmt.Sprintf("a size of at least 1 byte, such as 4096 or 1MiB (%v)", err))
		}
		if sz < 1 {
			return nil, 0, bad(c, "size", v, "a size of at least 1 byte, such as 4096 or 1MiB")
		}
		row.Size = int64(sz)
		if v, c, ok := cell("op"); ok {
			if !slices.Contains([]string{"write", "read", "send", "write_imm", "atomic"}, v) {
				return nil, 0, bad(c, "op", v, "one of write, read, send, write_imm, atomic")
			}
			row.Op = v
		}
		if v, c, ok := cell("qp"); ok {
			if !slices.Contains([]string{"rc", "uc", "ud"}, v) {
				return nil, 0, bad(c, "qp", v, "one of rc, uc, ud")
			}
			row.QP = v
		}
		if v, c, ok := cell("priority"); ok {
			p, err := strconv.Atoi(v)
			if err != nil || p < 0 || p > 7 {
				return nil, 0, bad(c, "priority", v, "a priority 0..7")
			}
			row.Priority = p
		}
		if v, c, ok := cell("id"); ok {
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id < 0 {
				return nil, 0, bad(c, "id", v, "a flow id, a whole number of at least 0")
			}
			row.ID = id
		}
		if at, dup := ids[row.ID]; dup {
			return nil, 0, fmt.Errorf("%s:%d:%d: flow id %d is already the flow of line %d; ids must be unique", file, line, row.Col("id"), row.ID, at)
		}
		ids[row.ID] = line
		if v, c, ok := cell("after"); ok {
			for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ';' || r == ',' || r == '\t' }) {
				id, err := strconv.ParseInt(f, 10, 64)
				if err != nil || id < 0 {
					return nil, 0, bad(c, "after", v, "flow ids separated by spaces or semicolons, such as \"0;3\"")
				}
				if _, ok := ids[id]; !ok || id == row.ID {
					return nil, 0, fmt.Errorf("%s:%d:%d: after names flow %d, which is not a flow of an earlier row; a flow waits only for flows above it", file, line, c, id)
				}
				if slices.Contains(row.After, id) {
					return nil, 0, fmt.Errorf("%s:%d:%d: after names flow %d twice; name each flow once", file, line, c, id)
				}
				row.After = append(row.After, id)
			}
		}
		rows = append(rows, row)
	}
	if len(rows)+more == 0 {
		return nil, 0, fmt.Errorf("%s: no flows: the file has its header row and nothing under it", file)
	}
	return rows, more, nil
}

// csvError names a CSV syntax error's line and column.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %v; expected comma-separated values, a field with commas or quotes in double quotes", file, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", file, err)
}
