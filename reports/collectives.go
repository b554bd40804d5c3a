package reports

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// CollectiveRow is one row of collectives.csv: one call of a collective
// (an iteration; or one of an nccl_tests program's calls) over all its
// ranks.
type CollectiveRow struct {
	ID        int
	Op        string
	Algorithm string
	Ranks     int
	SizeBytes int64
	// StartNs is when the first rank made the call, EndNs when the last
	// finished it; TimeNs the difference. Empty (not Done) for a call
	// not finished on every rank.
	StartNs, EndNs, TimeNs int64
	// AlgBwGbps is size / time, in Gb/s; BusBwGbps that times nccl-tests'
	// factor for the operation (its doc/PERFORMANCE.md).
	AlgBwGbps, BusBwGbps float64
	// Status is completed, incomplete (started, not finished by the run's
	// end), not_started, or failed (a work request of it failed).
	Status  string
	Started bool
	// Protocol is the NCCL protocol the call ran (ll, ll128, simple: the
	// names protocol: takes), chosen by NCCL's tuning or forced; empty
	// for a call of 0 bytes, which NCCL discards without choosing one.
	Protocol string
}

// CollectivesHeader is collectives.csv's header: the contract's columns,
// then protocol (added last, so the contract's order holds).
var CollectivesHeader = []string{"id", "op", "algorithm", "ranks", "size_bytes", "start_ns", "end_ns", "time_ns", "algbw_gbps", "busbw_gbps", "status", "protocol"}

// CollectivesCSV renders collectives.csv.
func CollectivesCSV(rows []CollectiveRow) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(CollectivesHeader)
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, r := range rows {
		start, end, t, alg, bus := "", "", "", "", ""
		if r.Started {
			start = n(r.StartNs)
		}
		if r.Status == "completed" {
			end, t, alg, bus = n(r.EndNs), n(r.TimeNs), f(r.AlgBwGbps), f(r.BusBwGbps)
		}
		_ = w.Write([]string{strconv.Itoa(r.ID), r.Op, r.Algorithm, strconv.Itoa(r.Ranks), n(r.SizeBytes), start, end, t, alg, bus, r.Status, r.Protocol})
	}
	w.Flush()
	return b.Bytes()
}

// Collectives is summary.json's collectives: the calls of every
// collective (collectives.csv's rows), those completed, and the median
// and largest time of the completed.
type Collectives struct {
	Total     int   `json:"total"`
	Completed int   `json:"completed"`
	TimeNsP50 int64 `json:"time_ns_p50"`
	TimeNsMax int64 `json:"time_ns_max"`
	// BusbwGbpsMin is the lowest busbw of the completed calls
	// (collectives.csv's busbw_gbps, Gb/s; 0 when none completed).
	BusbwGbpsMin float64 `json:"busbw_gbps_min"`
	// ScaleUpBytes is what the GPU servers' scale-up domains carried
	// (their steps' bytes as the protocol puts them on the wire); the
	// network's bytes are in bytes.
	ScaleUpBytes int64 `json:"scaleup_bytes"`
}
