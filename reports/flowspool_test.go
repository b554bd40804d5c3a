package reports

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// spoolRecord is flow id's record, every field set from id, so that a
// field the spool drops or mixes up shows.
func spoolRecord(id int) FlowRecord {
	r := FlowRecord{FlowRow: FlowRow{ID: id, Src: "h" + string(rune('a'+id%7)), Dst: "h" + string(rune('a'+id%5)),
		QP: "rc", Op: []string{"write", "read", "send"}[id%3], SizeBytes: int64(id)*1000 + 7, DeliveredBytes: int64(id) * 999,
		StartNs: int64(id) * 13, EndNs: int64(id)*13 + 5000, FCTNs: 5000, Slowdown: 1 + float64(id)/3, Retransmits: int64(id % 4),
		Status: []string{"success", "incomplete", "retry_exceeded"}[id%3]}}
	if id%2 == 0 {
		r.Order = &FlowOrder{Paths: id % 9, ReorderMax: int64(id), ReorderMean: float64(id) / 7}
	}
	if id%5 == 0 {
		r.CM, r.ConnectNs = true, int64(id)+1
	}
	if id%3 == 0 {
		r.Completed, r.FCT = true, 5_000_123+int64(id)
	}
	return r
}

// TestFlowSpoolMergesByID: records added in a scrambled order, with a
// batch of 16 (so that most are written out as runs of the file and
// some stay in memory), come back from Each in order of id, merged with
// a tail of records kept apart, each field as it went in; twice over;
// an early stop stops; Close removes the file.
func TestFlowSpoolMergesByID(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	s, err := NewFlowSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Batch = 16
	var tail []FlowRecord
	for i := 0; i < n; i++ {
		id := (i * 389) % n // every id once, scrambled
		if id%11 == 0 {
			tail = append(tail, spoolRecord(id))
			continue
		}
		s.Add(spoolRecord(id))
	}
	if len(s.runs) < 50 || len(s.batch) == 0 {
		t.Fatalf("%d runs and %d records in memory: the test does not merge runs with a batch", len(s.runs), len(s.batch))
	}
	for pass := 0; pass < 2; pass++ {
		next := 0
		err := s.Each(tail, func(r *FlowRecord) bool {
			if want := spoolRecord(next); !reflect.DeepEqual(*r, want) {
				t.Fatalf("pass %d: record %d is\n%+v (order %+v)\nwant\n%+v (order %+v)", pass, next, *r, r.Order, want, want.Order)
			}
			next++
			return true
		})
		if err != nil || next != n {
			t.Fatalf("pass %d: %d records, error %v; want %d", pass, next, err, n)
		}
	}
	k := 0
	if err := s.Each(tail, func(*FlowRecord) bool { k++; return k < 10 }); err != nil || k != 10 {
		t.Errorf("stopped after %d records (error %v), want 10", k, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after Close the folder holds %d files, want none", len(left))
	}
}

// TestSpooledFlowsCSV: flows.csv written from a spool is the same bytes
// as FlowsCSV of the same rows held in memory, with the order and
// connect_ns columns.
func TestSpooledFlowsCSV(t *testing.T) {
	s, err := NewFlowSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Batch = 8
	var rows []FlowRow
	for id := 0; id < 100; id++ {
		rows = append(rows, spoolRecord(id).FlowRow)
	}
	for id := 99; id >= 10; id-- {
		s.Add(spoolRecord(id))
	}
	var tail []FlowRecord
	for id := 0; id < 10; id++ {
		tail = append(tail, spoolRecord(id))
	}
	order, cm := FlowColumns(slices.Values(rows))
	r := &Results{SpooledFlows: &SpooledFlows{Spool: s, Tail: tail, Order: order, CM: cm}}
	var got bytes.Buffer
	if err := r.writeFlows(&got); err != nil {
		t.Fatal(err)
	}
	if want := FlowsCSV(rows); !bytes.Equal(got.Bytes(), want) || !order || !cm {
		t.Errorf("spooled flows.csv (order %v, cm %v):\n%s\nwant\n%s", order, cm, got.Bytes(), want)
	}
}

// TestFlowSpoolWriteError: a spool whose file cannot be written keeps
// the error, and Each and writing flows.csv return it rather than rows
// short of the lost ones.
func TestFlowSpoolWriteError(t *testing.T) {
	dir := t.TempDir()
	s, err := NewFlowSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Batch = 4
	s.f.Close() // the next run's write fails
	for id := 0; id < 10; id++ {
		s.Add(spoolRecord(id))
	}
	if s.Err() == nil || s.Len() != 10 {
		t.Fatalf("error %v, %d records; want an error and 10", s.Err(), s.Len())
	}
	if err := s.Each(nil, func(*FlowRecord) bool { return true }); err == nil {
		t.Error("Each read a spool that lost records without an error")
	}
	r := &Results{SpooledFlows: &SpooledFlows{Spool: s}}
	if err := WriteFileWith(dir, "flows.csv", r.writeFlows); err == nil {
		t.Error("flows.csv was written from a spool that lost records")
	}
	if _, err := os.Stat(filepath.Join(dir, "flows.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("flows.csv exists (%v)", err)
	}
	os.Remove(s.f.Name())
}
