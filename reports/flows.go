package reports

import (
	"bytes"
	"encoding/csv"
	"io"
	"iter"
	"slices"
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
	// Order is the arrival order of the flow's data, measured under load
	// balancing other than ECMP (nil otherwise): flows.csv has its three
	// columns then (FlowsOrderHeader).
	Order *FlowOrder
	// CM says the flow connected with rdma_cm (flow.connect: cm), and
	// ConnectNs how long from its start the connection took (0: it was
	// not made): flows.csv has a connect_ns column then
	// (FlowsConnectHeader), after the order columns.
	CM        bool
	ConnectNs int64
}

// FlowOrder is how a flow's data packets arrived: over how many distinct
// paths, and how far out of order (a packet's distance is how many PSNs
// past it had arrived before it; the mean is over the packets that came
// late).
type FlowOrder struct {
	Paths       int
	ReorderMax  int64
	ReorderMean float64
}

// FlowsHeader is flows.csv's header, the OUTPUTS.md contract.
var FlowsHeader = []string{"id", "src", "dst", "qp", "op", "size_bytes", "delivered_bytes",
	"start_ns", "end_ns", "fct_ns", "slowdown", "retransmits", "status"}

// FlowsOrderHeader are the columns flows.csv gains when rows carry an
// Order (OUTPUTS.md: under load balancing other than ECMP).
var FlowsOrderHeader = []string{"paths", "reorder_max", "reorder_mean"}

// FlowsConnectHeader is the column flows.csv gains when a flow connects
// with rdma_cm (OUTPUTS.md).
var FlowsConnectHeader = []string{"connect_ns"}

// FlowsCSV renders flows.csv.
func FlowsCSV(rows []FlowRow) []byte {
	var b bytes.Buffer
	order, cm := FlowColumns(slices.Values(rows))
	_ = WriteFlowsCSV(&b, order, cm, slices.Values(rows))
	return b.Bytes()
}

// FlowColumns says which of flows.csv's optional columns rows need: the
// order columns when a row carries an Order, connect_ns when a flow
// connected with rdma_cm.
func FlowColumns(rows iter.Seq[FlowRow]) (order, cm bool) {
	for r := range rows {
		order = order || r.Order != nil
		cm = cm || r.CM
	}
	return order, cm
}

// WriteFlowsCSV writes flows.csv to w, its rows one at a time as rows
// gives them, with the optional columns order and cm say
// (FlowColumns).
func WriteFlowsCSV(w io.Writer, order, cm bool, rows iter.Seq[FlowRow]) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), FlowsHeader...)
	if order {
		header = append(header, FlowsOrderHeader...)
	}
	if cm {
		header = append(header, FlowsConnectHeader...)
	}
	_ = cw.Write(header)
	i := strconv.Itoa
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	rec := make([]string, 0, len(header))
	for r := range rows {
		end, fct, slow := "", "", ""
		if r.Status != "incomplete" {
			end, fct = n(r.EndNs), n(r.FCTNs)
			slow = strconv.FormatFloat(r.Slowdown, 'f', 4, 64)
		}
		rec = append(rec[:0], i(r.ID), r.Src, r.Dst, r.QP, r.Op, n(r.SizeBytes), n(r.DeliveredBytes),
			n(r.StartNs), end, fct, slow, n(r.Retransmits), r.Status)
		if order {
			if o := r.Order; o != nil {
				rec = append(rec, i(o.Paths), n(o.ReorderMax), strconv.FormatFloat(o.ReorderMean, 'f', 2, 64))
			} else {
				rec = append(rec, "", "", "")
			}
		}
		if cm {
			if r.CM && r.ConnectNs > 0 {
				rec = append(rec, n(r.ConnectNs))
			} else {
				rec = append(rec, "")
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
