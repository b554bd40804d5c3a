package reports

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// FlowRow is one row of flows.csv.
type FlowRow struct {
	ID             int
	Src, Dst       string
	QP, Op         string
	SizeBytes      int64
	DeliveredBytes int64
	StartNs        int64
	EndNs          int64 // 0 when not complete
	FCTNs          int64 // 0 when not complete
	Slowdown       float64
	Retransmits    int64
	Status         string // work completion status, or "incomplete"
}

// FlowsHeader is flows.csv's header, the OUTPUTS.md contract.
var FlowsHeader = []string{"id", "src", "dst", "qp", "op", "size_bytes", "delivered_bytes",
	"start_ns", "end_ns", "fct_ns", "slowdown", "retransmits", "status"}

// FlowsCSV renders flows.csv.
func FlowsCSV(rows []FlowRow) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(FlowsHeader)
	i := strconv.Itoa
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		end, fct, slow := "", "", ""
		if r.Status != "incomplete" {
			end, fct = n(r.EndNs), n(r.FCTNs)
			slow = strconv.FormatFloat(r.Slowdown, 'f', 4, 64)
		}
		_ = w.Write([]string{i(r.ID), r.Src, r.Dst, r.QP, r.Op, n(r.SizeBytes), n(r.DeliveredBytes),
			n(r.StartNs), end, fct, slow, n(r.Retransmits), r.Status})
	}
	w.Flush()
	return b.Bytes()
}
