package scenario

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lfsim/lfsim/internal/userfile"
	"gopkg.in/yaml.v3"
)

// Input is a file a scenario names and lfsim read: switch.sonic's
// config_db.json, a poisson generator's CDF. A run copies each into its
// folder (RunCopies), so that the run's scenario.yaml runs again from
// there (OUTPUTS.md).
type Input struct {
	// Name is the path as the scenario writes it: relative to the
	// scenario file's folder, or absolute.
	Name string
	// Data is what was read.
	Data []byte
	// At is every place the scenario names it: the scalars' positions.
	At []Pos
	// Prefix is what those scalars hold when they name a set of files by
	// a prefix of their names (a Chakra trace's rank files, prefix.N.et;
	// InputAtPrefix), "" when they name the file.
	Prefix string
}

// ReadInput reads the file a scenario names (name, relative to the
// scenario file's folder unless absolute), at most limit bytes, what
// saying what it is for messages; path is where it was read. A built-in
// scenario (DecodeLibrary) reads the library's file of that name where
// no file of the name is on disk; any other reads only the disk. Record
// each place that names a file read with InputAt.
func (d *Decoder) ReadInput(name, what string, limit int64) (data []byte, path string, err error) {
	path = name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(d.File), path)
	}
	data, err = userfile.ReadFile(path, what, limit)
	if err != nil && d.library && LibraryFile != nil {
		if lib, ok := LibraryFile(filepath.ToSlash(path)); ok {
			data, err = lib, nil
		}
	}
	if err != nil {
		return nil, path, err
	}
	if d.inputs == nil {
		d.inputs = map[string]int{}
	}
	if _, ok := d.inputs[name]; !ok {
		d.inputs[name] = len(d.inputList)
		d.inputList = append(d.inputList, Input{Name: name, Data: data})
	}
	return data, path, nil
}

// InputAt records that the scalar at at names the input name (read
// with ReadInput).
func (d *Decoder) InputAt(name string, at Pos) {
	if i, ok := d.inputs[name]; ok {
		d.inputList[i].At = append(d.inputList[i].At, at)
	}
}

// InputAtPrefix records that the scalar at at names the input name
// (read with ReadInput) as one of a set of files whose names start with
// prefix, what the scalar holds: a run's copies of the set keep the
// part of their names after it, under one prefix of their own.
func (d *Decoder) InputAtPrefix(name, prefix string, at Pos) {
	if i, ok := d.inputs[name]; ok {
		d.inputList[i].At = append(d.inputList[i].At, at)
		d.inputList[i].Prefix = prefix
	}
}

// Inputs are the files the scenario names that were read, in the order
// first read.
func (d *Decoder) Inputs() []Input { return d.inputList }

// InputsDir is the folder of a run's folder that holds the copies of
// the files its scenario names outside its own folder (an absolute path,
// one through ..): scenario.yaml then names the copy.
const InputsDir = "inputs"

// Copy is a file to write into a run's folder: its name there (a local
// path, with / between its parts) and its bytes.
type Copy struct {
	Name string
	Data []byte
}

// RunCopies says how a run's folder holds the files the scenario names,
// so that its scenario.yaml runs again from there: a file named by a
// path inside the scenario's folder goes to the same path in the run's
// folder; one named otherwise (absolute, through .., or by the name of
// a file the run writes itself: taken, such as summary.json) goes to
// inputs/ under its base name (made unique), and moved maps each place
// that names it to the name it had and the copy's, for Relocate.
func RunCopies(inputs []Input, taken func(name string) bool) (copies []Copy, moved map[Pos]Move) {
	used := map[string]bool{}
	var later []Input
	for _, in := range inputs {
		name := filepath.ToSlash(filepath.Clean(in.Name))
		if filepath.IsAbs(in.Name) || !filepath.IsLocal(in.Name) || taken(strings.Split(name, "/")[0]) {
			later = append(later, in)
			continue
		}
		if used[name] {
			continue // the same file by another spelling ("./a.json")
		}
		used[name] = true
		copies = append(copies, Copy{name, in.Data})
	}
	prefixTo := map[string]string{}
	for _, in := range later {
		if in.Prefix != "" {
			to, ok := prefixTo[in.Prefix]
			if !ok {
				to = uniquePrefix(in.Prefix, later, used)
				prefixTo[in.Prefix] = to
			}
			name := to + strings.TrimPrefix(in.Name, in.Prefix)
			used[name] = true
			copies = append(copies, Copy{name, in.Data})
			if moved == nil {
				moved = map[Pos]Move{}
			}
			for _, at := range in.At {
				moved[Pos{Line: at.Line, Col: at.Col}] = Move{From: in.Prefix, To: to}
			}
			continue
		}
		base := filepath.Base(in.Name)
		ext := path.Ext(base)
		name := InputsDir + "/" + base
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s/%s-%d%s", InputsDir, strings.TrimSuffix(base, ext), i, ext)
		}
		used[name] = true
		copies = append(copies, Copy{name, in.Data})
		if moved == nil {
			moved = map[Pos]Move{}
		}
		for _, at := range in.At {
			moved[Pos{Line: at.Line, Col: at.Col}] = Move{From: in.Name, To: name}
		}
	}
	return copies, moved
}

// uniquePrefix is the prefix under inputs/ of the copies of the set of
// files named by prefix (among inputs): its base name, made unique so
// that none of the set's copies takes a name used.
func uniquePrefix(prefix string, inputs []Input, used map[string]bool) string {
	base := InputsDir + "/" + filepath.Base(prefix)
	for i := 1; ; i++ {
		to := base
		if i > 1 {
			to = fmt.Sprintf("%s-%d", base, i)
		}
		free := true
		for _, in := range inputs {
			if in.Prefix == prefix && used[to+strings.TrimPrefix(in.Name, prefix)] {
				free = false
				break
			}
		}
		if free {
			return to
		}
	}
}

// Move is a file's name in a scenario (From) and its copy's in the
// run's folder (To).
type Move struct{ From, To string }

// Relocate sets the scalars of the tree root at the positions of moved
// (RunCopies's) that name a moved file to their copies' names, and says
// whether it found them all.
func Relocate(root *yaml.Node, moved map[Pos]Move) bool {
	found := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if m, ok := moved[Pos{Line: n.Line, Col: n.Column}]; ok && n.Kind == yaml.ScalarNode && n.Value == m.From {
			n.Value, n.Style, n.Tag = m.To, 0, "!!str"
			found++
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return found == len(moved)
}

// RelocateText is Relocate on a scenario's text (src), for a run that
// writes the file it ran as its scenario.yaml: the text unchanged when
// nothing moved; else with each moved name replaced in place and a
// comment at its end saying so, every other byte kept (or, where a name
// is not written on one line as it reads, such as a folded scalar, the
// tree re-encoded).
func RelocateText(file string, src []byte, moved map[Pos]Move) ([]byte, error) {
	if len(moved) == 0 {
		return src, nil
	}
	const note = "# lfsim: the files this scenario names from outside its folder are copied into " + InputsDir + "/ of the run's folder, and named so here\n"
	if out, ok := spliceNames(src, moved); ok {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, note...), nil
	}
	root, err := ParseYAML(file, src)
	if err != nil {
		return nil, err
	}
	if !Relocate(root, moved) {
		return nil, fmt.Errorf("%s: cannot find the names of the files it names to point them at their copies in the run's folder", file)
	}
	return Encode(root, note)
}

// spliceNames replaces each name of moved in src where it is written at
// its position, plain or quoted on one line; ok is false when one is not.
func spliceNames(src []byte, moved map[Pos]Move) (out []byte, ok bool) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	type edit struct {
		off, n int
		to     string
	}
	var edits []edit
	for at, m := range moved {
		if at.Line < 1 || at.Line > len(lines) {
			return nil, false
		}
		off := 0
		for _, l := range lines[:at.Line-1] {
			off += len(l)
		}
		line := lines[at.Line-1]
		i := 0 // the column (runes, from 1) as a byte offset in line
		for c := 1; c < at.Col; c++ {
			if i >= len(line) {
				return nil, false
			}
			_, w := utf8.DecodeRune(line[i:])
			i += w
		}
		rest := string(line[i:])
		to := m.To
		if !plainName.MatchString(to) {
			to = strconv.Quote(to)
		}
		switch {
		case strings.HasPrefix(rest, `"`+m.From+`"`) && !strings.ContainsAny(m.From, `\"`):
			edits = append(edits, edit{off + i, len(m.From) + 2, to})
		case strings.HasPrefix(rest, "'"+m.From+"'") && !strings.Contains(m.From, "'"):
			edits = append(edits, edit{off + i, len(m.From) + 2, to})
		case strings.HasPrefix(rest, m.From) && m.From != "" && !strings.ContainsAny(m.From, "\"'"):
			edits = append(edits, edit{off + i, len(m.From), to})
		default:
			return nil, false
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.off - a.off })
	out = slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.off], []byte(e.to), out[e.off+e.n:])
	}
	return out, true
}

// plainName is a name that YAML reads as written, unquoted.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]*$`)

// Encode is a YAML tree as text, after head (comment lines, or "").
func Encode(root *yaml.Node, head string) ([]byte, error) {
	var b strings.Builder
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
