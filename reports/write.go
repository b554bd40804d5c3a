package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ErrExists is returned when an output directory holds an earlier run and
// overwriting was not asked for.
var ErrExists = errors.New("output directory holds an earlier run")

// PrepareDir makes dir ready for a run's files, before the run, so that
// a folder the run cannot write is found before the simulation, not after
// it. A directory that already holds a summary.json is an earlier run: it
// is refused unless force, and with force its files go, summary.json
// first (a summary never stands beside a half-cleared run), then the
// others a run writes (RunFiles, and the captures its topology.json
// names: HOST.pcap, NODE_pN.pcap), so that none of the earlier run's (a
// capture the new scenario does not take) is mistaken for the new one's.
// Temporary files a killed run left (WriteFileWith's, of those names)
// go too. Every other file in dir is left alone. A caller that reads its
// scenario from dir reads it before.
func PrepareDir(dir string, force bool) error {
	summary := filepath.Join(dir, "summary.json")
	_, err := os.Stat(summary)
	earlier := err == nil
	if earlier && !force {
		return fmt.Errorf("%s: %w; pass --force to overwrite it or -o to write elsewhere", dir, ErrExists)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if earlier {
		captures := earlierCaptures(dir)
		if err := os.Remove(summary); err != nil {
			return err
		}
		for _, name := range append(RunFiles, captures...) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	for _, name := range append([]string{"summary.json", "probe"}, RunFiles...) {
		if err := removeGlob(dir, "."+name+".tmp-*"); err != nil {
			return err
		}
	}
	if err := removeGlob(dir, ".*.pcap.tmp-*"); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, ".probe.tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// RunFiles are the files a run writes beside summary.json and its
// captures (NAME.pcap).
var RunFiles = []string{"flows.csv", "pfc.csv", "uplinks.csv", "events.csv", "timeseries.csv", "topology.json", "perftest.txt", "collectives.csv", "nccl_tests.txt", "trace.json", "asyncwatch.txt", "lfts.txt", "scenario.yaml", "report.html"}

// IsRunFile says whether name is a file a run writes in its folder
// (summary.json, RunFiles, a capture), which a copy of a file its
// scenario names must not take (scenario.RunCopies).
func IsRunFile(name string) bool {
	return name == "summary.json" || slices.Contains(RunFiles, name) || strings.HasSuffix(name, ".pcap")
}

// WriteInput writes a copy of a file a run's scenario names into the
// run's folder dir at name (a local path, / between its parts), making
// the folders it is in, as WriteFileAtomic writes.
func WriteInput(dir, name string, data []byte) error {
	sub := filepath.Join(dir, filepath.Dir(filepath.FromSlash(name)))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(sub, filepath.Base(name), data)
}

// earlierCaptures are the pcap files an earlier run in dir may have
// written: one per host (HOST.pcap) and per port (NODE_pN.pcap) of the
// topology.json it left, those that exist.
func earlierCaptures(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "topology.json"))
	if err != nil {
		return nil
	}
	var t Topo
	if json.Unmarshal(data, &t) != nil {
		return nil
	}
	names := map[string]bool{}
	for _, n := range t.Nodes {
		// A host's capture is named for it with '/' as '_' (observe's
		// Capturer: s0/g1.pcap would be a folder).
		names[strings.ReplaceAll(n.Name, "/", "_")] = true
	}
	var out []string
	files, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".pcap")
		node := base
		if i := strings.LastIndex(base, "_p"); i > 0 && isDigits(base[i+2:]) {
			node = base[:i]
		}
		if names[node] {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// removeGlob removes the files of dir that match pattern.
func removeGlob(dir, pattern string) error {
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// WriteFileAtomic writes data to dir/name through a temporary file in the
// same directory and a rename, so that a reader never sees half a file.
func WriteFileAtomic(dir, name string, data []byte) error {
	return WriteFileWith(dir, name, bytesOf(data))
}

// bytesOf fills a file with data (WriteFileWith).
func bytesOf(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(data); return err }
}

// WriteFileWith writes dir/name as WriteFileAtomic does, with what fill
// writes through a buffer: a large file is written as it is rendered,
// never held whole in memory.
func WriteFileWith(dir, name string, fill func(w io.Writer) error) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 256<<10)
	werr := fill(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp)
		return errors.Join(werr, cerr)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// SummaryJSON renders summary.json: indented, with a trailing newline.
// encoding/json writes map keys sorted, so the output is deterministic.
func SummaryJSON(s *Summary) []byte {
	if s.Packets.DropReasons == nil {
		s.Packets.DropReasons = map[string]int64{}
	}
	if s.Bytes.DropReasons == nil {
		s.Bytes.DropReasons = map[string]int64{}
	}
	if s.Conservation.Errors == nil {
		s.Conservation.Errors = []string{}
	}
	if s.Expect == nil {
		s.Expect = []CheckResult{}
	}
	if s.Deadlock.Cycle == nil {
		s.Deadlock.Cycle = []string{}
	}
	if s.PFC.Spread == nil {
		s.PFC.Spread = []PFCSpread{}
	}
	if s.FCTBuckets == nil {
		s.FCTBuckets = []FCTBucket{}
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err) // Summary holds only plain values
	}
	return append(b, '\n')
}

// EachPFC yields pfc.csv's rows in time order: PFCLog's, or PFC's.
func (r *Results) EachPFC(yield func(PFCRow) bool) {
	if r.PFCLog != nil {
		r.PFCLog.EachPFC(yield)
		return
	}
	for _, p := range r.PFC {
		if !yield(p) {
			return
		}
	}
}

// PFCRows returns pfc.csv's rows (EachPFC) as a slice.
func (r *Results) PFCRows() []PFCRow { return slices.Collect(iter.Seq[PFCRow](r.EachPFC)) }

// SpooledFlows are a run's flows.csv rows when its finished flows went
// to a spool: the spool's, and those of the flows that had not finished
// (Tail), merged by id.
type SpooledFlows struct {
	Spool *FlowSpool
	Tail  []FlowRecord
	// Order and CM are the optional columns the rows need (FlowColumns).
	Order, CM bool
}

// EachFlow yields flows.csv's rows in order of id, from SpooledFlows or
// from Flows, until yield returns false; the error is the spool's.
func (r *Results) EachFlow(yield func(FlowRow) bool) error {
	if s := r.SpooledFlows; s != nil {
		return s.Spool.Each(s.Tail, func(f *FlowRecord) bool { return yield(f.FlowRow) })
	}
	for _, f := range r.Flows {
		if !yield(f) {
			return nil
		}
	}
	return nil
}

// writeFlows writes flows.csv.
func (r *Results) writeFlows(w io.Writer) error {
	s := r.SpooledFlows
	if s == nil {
		order, cm := FlowColumns(slices.Values(r.Flows))
		return WriteFlowsCSV(w, order, cm, slices.Values(r.Flows))
	}
	var err error
	werr := WriteFlowsCSV(w, s.Order, s.CM, func(yield func(FlowRow) bool) {
		err = r.EachFlow(yield)
	})
	return errors.Join(err, werr)
}

// Results are everything a run writes.
type Results struct {
	Summary *Summary
	Flows   []FlowRow
	// SpooledFlows, when set, gives flows.csv's rows instead of Flows: a
	// run that streamed its finished flows to a spool.
	SpooledFlows *SpooledFlows
	Series       *Series  // nil: no timeseries.csv
	PFC          []PFCRow // pfc.csv, when its rows are held
	// PFCLog, when set, gives pfc.csv's rows instead of PFC, as they are
	// written (a run's PFC log: millions of frames are not held twice).
	PFCLog PFCSource
	// Events are the HCAs' asynchronous events (events.csv, written
	// when there is one).
	Events []EventRow
	// Extra holds further files by name (perftest.txt).
	Extra map[string][]byte
	// Streamed are further files by name that are written as they are
	// made, not held (lfts.txt: 85 MB for a k=8 fat tree with LMC 7).
	Streamed map[string]func(w io.Writer) error
	// Captures are observe.pcap's ports, written as NAME.pcap.
	Captures []*Capture
	// SnapLen is the pcaps' snap length; 0 means DefaultSnapLen.
	SnapLen int
	// Topology, when not nil, is written as topology.json for the report.
	Topology *Topo
	// Uplinks are uplinks.csv's rows, written when there are some.
	Uplinks []UplinkRow
}

// WriteRun writes a run's files into dir: summary.json last, so that a
// summary.json on disk always has the other files beside it. A run that
// adds files of its own (scenario.yaml, report.html) writes them between
// WriteRunFiles and WriteSummary instead.
func WriteRun(dir string, r *Results) error {
	if err := WriteRunFiles(dir, r); err != nil {
		return err
	}
	return WriteSummary(dir, SummaryJSON(r.Summary))
}

// WriteSummary writes summary.json (SummaryJSON's bytes): the last file
// of a run, whose presence says the others are there.
func WriteSummary(dir string, summary []byte) error {
	return WriteFileAtomic(dir, "summary.json", summary)
}

// WriteRunFiles writes every file of a run but summary.json.
func WriteRunFiles(dir string, r *Results) error {
	type file struct {
		name string
		fill func(w io.Writer) error
	}
	files := []file{
		{"flows.csv", r.writeFlows},
		{"pfc.csv", func(w io.Writer) error { return writePFCRows(w, r.EachPFC) }},
	}
	if len(r.Uplinks) > 0 {
		files = append(files, file{"uplinks.csv", bytesOf(UplinksCSV(r.Uplinks))})
	}
	if len(r.Events) > 0 {
		files = append(files, file{"events.csv", bytesOf(EventsCSV(r.Events))})
	}
	if r.Series != nil {
		files = append(files, file{"timeseries.csv", r.Series.WriteCSV})
	}
	names := make([]string, 0, len(r.Extra)+len(r.Streamed))
	for name := range r.Extra {
		names = append(names, name)
	}
	for name := range r.Streamed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if fill, ok := r.Streamed[name]; ok {
			files = append(files, file{name, fill})
		} else {
			files = append(files, file{name, bytesOf(r.Extra[name])})
		}
	}
	if r.Topology != nil {
		files = append(files, file{"topology.json", bytesOf(TopologyJSON(r.Topology))})
	}
	for _, c := range r.Captures {
		files = append(files, file{c.Name + ".pcap", func(w io.Writer) error {
			if err := WritePcap(w, c, r.SnapLen); err != nil {
				return fmt.Errorf("%s.pcap: %w", c.Name, err)
			}
			return nil
		}})
	}
	for _, f := range files {
		if err := WriteFileWith(dir, f.name, f.fill); err != nil {
			return err
		}
	}
	return nil
}
