package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// ErrExists is returned when an output directory holds an earlier run and
// overwriting was not asked for.
var ErrExists = errors.New("output directory holds an earlier run")

// PrepareDir makes dir ready for a run's files. A directory that already
// holds a summary.json is an earlier run: it is refused unless force.
func PrepareDir(dir string, force bool) error {
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil && !force {
		return fmt.Errorf("%s: %w; pass --force to overwrite it or -o to write elsewhere", dir, ErrExists)
	}
	return os.MkdirAll(dir, 0o755)
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

// Results are everything a run writes.
type Results struct {
	Summary *Summary
	Flows   []FlowRow
	Series  *Series  // nil: no timeseries.csv
	PFC     []PFCRow // pfc.csv
	// Extra holds further files by name (perftest.txt).
	Extra map[string][]byte
	// Captures are observe.pcap's ports, written as NAME.pcap.
	Captures []*Capture
	// SnapLen is the pcaps' snap length; 0 means DefaultSnapLen.
	SnapLen int
	// Topology, when not nil, is written as topology.json for the report.
	Topology *Topo
}

// WriteRun writes a run's files into dir: summary.json last, so that a
// summary.json on disk always has the other files beside it.
func WriteRun(dir string, r *Results) error {
	type file struct {
		name string
		fill func(w io.Writer) error
	}
	files := []file{
		{"flows.csv", bytesOf(FlowsCSV(r.Flows))},
		{"pfc.csv", func(w io.Writer) error { return WritePFCCSV(w, r.PFC) }},
	}
	if r.Series != nil {
		files = append(files, file{"timeseries.csv", r.Series.WriteCSV})
	}
	names := make([]string, 0, len(r.Extra))
	for name := range r.Extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		files = append(files, file{name, bytesOf(r.Extra[name])})
	}
	if r.Topology != nil {
		files = append(files, file{"topology.json", bytesOf(TopologyJSON(r.Topology))})
	}
	for _, c := range r.Captures {
		files = append(files, file{c.Name + ".pcap", func(w io.Writer) error {
			data, err := PcapFile(c, r.SnapLen)
			if err != nil {
				return fmt.Errorf("%s.pcap: %w", c.Name, err)
			}
			_, err = w.Write(data)
			return err
		}})
	}
	for _, f := range files {
		if err := WriteFileWith(dir, f.name, f.fill); err != nil {
			return err
		}
	}
	return WriteFileAtomic(dir, "summary.json", SummaryJSON(r.Summary))
}
