package chakra

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
)

// RankFile is the file of rank r of the trace named prefix: ASTRA-sim's
// Workload opens et_filename + "." + id + ".et".
func RankFile(prefix string, r int) string { return prefix + "." + strconv.Itoa(r) + ".et" }

// ReadFunc returns the bytes of the file of a name (Load's names:
// the rank files and the communicator-group file); for a file that is
// not there, an error that errors.Is(err, fs.ErrNotExist) holds.
type ReadFunc func(name string) ([]byte, error)

// FS reads from fsys (slash-separated names).
func FS(fsys fs.FS) ReadFunc {
	return func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) }
}

// Load reads the trace prefix for ranks ranks, rank r's from
// RankFile(prefix, r), and the communicator-group file groups ("" for
// none), and assembles them (Assemble). Every rank file from 0 to
// ranks-1 must be there, and none for rank ranks: a trace for more
// ranks than given.
func Load(read ReadFunc, prefix string, ranks int, groups string) (*Job, error) {
	if ranks < 1 {
		return nil, fmt.Errorf("%s: no ranks: expected one host per rank file", prefix)
	}
	traces := make([]*Trace, ranks)
	for r := range ranks {
		name := RankFile(prefix, r)
		data, err := read(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				has := ""
				if r > 0 {
					has = fmt.Sprintf(" (the trace has ranks 0 to %d)", r-1)
				}
				return nil, fmt.Errorf("%s: no such file%s: expected one file per rank, %s to %s, for the %d ranks given (the hosts)", name, has, RankFile(prefix, 0), RankFile(prefix, ranks-1), ranks)
			}
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if traces[r], err = Read(name, data); err != nil {
			return nil, err
		}
	}
	// A file beyond the ranks, or one that cannot be read (over the size
	// limit, say), is refused; only its absence passes.
	if _, err := read(RankFile(prefix, ranks)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %v: expected no rank file beyond the %d ranks given (the hosts)", RankFile(prefix, ranks), err, ranks)
	} else if err == nil {
		return nil, fmt.Errorf("%s: a rank file beyond the %d ranks given (the hosts): expected one file per rank, %s to %s, and no more",
			RankFile(prefix, ranks), ranks, RankFile(prefix, 0), RankFile(prefix, ranks-1))
	}
	var g Groups
	if groups != "" {
		data, err := read(groups)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", groups, err)
		}
		if g, err = ReadGroups(groups, data, ranks); err != nil {
			return nil, err
		}
	}
	return Assemble(traces, g)
}

// Groups are the communicator groups: a process group's name (pg_name)
// to its ranks, in the order given.
type Groups map[string][]int

// ReadGroups reads a communicator-group file as ASTRA-sim reads one
// (Workload::initialize_comm_groups, --comm-group-configuration): a JSON
// object whose keys are group ids (integers) and whose values list the
// group's ranks, {"1": [0, 1], "2": [2, 3]}. Group 0 and the empty name
// are every rank and cannot be defined.
func ReadGroups(file string, data []byte, ranks int) (Groups, error) {
	var raw map[string][]int
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: byte %d: %v: expected a JSON object of group ids to lists of ranks", file, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: %v: expected a JSON object of group ids to lists of ranks, {\"1\": [0, 1]}", file, err)
	}
	g := Groups{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range raw {
			if !yield(k) {
				return
			}
		}
	}) {
		id, err := strconv.Atoi(name)
		if err != nil {
			return nil, fmt.Errorf("%s: group %q: expected an integer id, as ASTRA-sim reads them", file, name)
		}
		if id == 0 {
			return nil, fmt.Errorf("%s: group \"0\": group 0 is every rank (ASTRA-sim's default group) and cannot be defined", file)
		}
		list := raw[name]
		if len(list) == 0 {
			return nil, fmt.Errorf("%s: group %q has no ranks: expected one or more of 0 to %d", file, name, ranks-1)
		}
		seen := map[int]bool{}
		for _, r := range list {
			if r < 0 || r >= ranks {
				return nil, fmt.Errorf("%s: group %q: rank %d: expected a rank from 0 to %d (the trace's %d ranks)", file, name, r, ranks-1, ranks)
			}
			if seen[r] {
				return nil, fmt.Errorf("%s: group %q lists rank %d twice", file, name, r)
			}
			seen[r] = true
		}
		key := strconv.Itoa(id)
		if _, dup := g[key]; dup {
			return nil, fmt.Errorf("%s: group %q: a second group of id %d", file, name, id)
		}
		g[key] = slices.Clone(list)
	}
	return g, nil
}
