package scenario

import (
	"reflect"
	"strings"

	"github.com/lfsim/lfsim/sonic"
	"gopkg.in/yaml.v3"
)

// A layer: switch.sonic names a SONiC switch's configuration, whose QoS
// and buffer tables give switch keys (package sonic) under the ones the
// block writes beside it. The keys the file gives are decoded as if the
// block wrote them, where it does not: after the block's own keys (and
// those of its merge keys), as a merge key's are, and inside pfc, ecn and
// pfc.watchdog (fields tagged layer:"merge") key by key, so that
// `pfc: {xoff: 80KiB}` beside sonic: changes XOFF alone. `lfsim sonic
// FILE` prints the same keys (sonic.Text), so a block that pastes them in
// decodes the same.

// SonicV is switch.sonic: a config_db.json's path (relative to the
// scenario file's folder), or {file, port} to read one port's settings
// where the switch's ports differ.
type SonicV struct {
	File, Port StrV
	Pos        Pos
	// Node is the switch keys the file gives, each at Pos; nil when the
	// file could not be read.
	Node *yaml.Node
}

// LibraryFile, when set (package scenarios sets it), returns a file of
// the embedded library by its name as a scenario of the library names
// it ("examples/NAME/config_db.json"): the file a built-in example's
// sonic: names, where no file of that name is on disk. Only a scenario
// of the library (DecodeLibrary) reads it; a scenario on disk naming a
// file that is not there is refused.
var LibraryFile func(name string) ([]byte, bool)

// MaxSONiCBytes bounds a config_db.json: 64 MiB, a switch of thousands
// of ports with all its tables.
const MaxSONiCBytes = 64 << 20

func (s *SonicV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	s.Pos = d.pos(n)
	if n.Kind == yaml.MappingNode {
		var m struct {
			meta
			File StrV `yaml:"file" required:""`
			Port StrV `yaml:"port"`
		}
		d.decodeInto(n, &m, c)
		s.File, s.Port = m.File, m.Port
	} else {
		d.decodeInto(n, &s.File, c)
	}
	if !s.File.Set {
		return
	}
	if strings.TrimSpace(s.File.V) == "" {
		d.Errorf(s.File.Pos, c.path, "expected a config_db.json's path, found an empty name")
		return
	}
	res, first := d.readSonic(s.File.V, s.Port.V)
	if res == nil {
		if first {
			d.Errorf(s.File.Pos, c.path, "cannot read the SONiC configuration %s: %v", Show(s.File.V), d.sonicErr[s.File.V])
		}
		return
	}
	if first {
		// A file named again (by an alias, or by more switches) says
		// what it has to say once.
		for _, e := range res.Errors {
			d.Errorf(s.File.Pos, c.path, "%s", e.Format(res.File))
		}
		for _, w := range res.Warnings {
			d.Warnf(s.File.Pos, c.path, "%s", w.Format(res.File))
		}
	}
	d.InputAt(s.File.V, s.File.Pos)
	if res.Switch != nil {
		s.Node = copyAt(res.Switch, n.Line, n.Column)
	}
}

// readSonic reads a config_db.json named name, relative to the scenario
// file (or from the library, for a built-in scenario's: ReadInput), for
// port; first says whether this is the first time it is asked for.
func (d *Decoder) readSonic(name, port string) (res *sonic.Result, first bool) {
	key := name + "\x00" + port
	if r, ok := d.sonic[key]; ok {
		return r, false
	}
	if d.sonic == nil {
		d.sonic, d.sonicErr = map[string]*sonic.Result{}, map[string]error{}
	}
	d.sonic[key] = nil
	data, path, err := d.ReadInput(name, "SONiC configuration", MaxSONiCBytes)
	if err != nil {
		d.sonicErr[name] = err
		return nil, true
	}
	res = sonic.Read(path, data, port)
	d.sonic[key] = res
	return res, true
}

// copyAt copies a node tree, every node at line and col.
func copyAt(n *yaml.Node, line, col int) *yaml.Node {
	c := *n
	c.Line, c.Column = line, col
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = copyAt(k, line, col)
	}
	return &c
}

// layer decodes a struct's layer key first, when it has one (a field
// tagged layer:"source": switch.sonic), and adds the keys of the layer
// (that key's, or the one the caller passes down in c.under) after the
// mapping's own, as merged ones; it returns the pairs and the layer's
// values by key, for the fields that merge key by key.
func (d *Decoder) layer(pairs []pair, v reflect.Value, si *structInfo, c ctx) ([]pair, map[string]*yaml.Node) {
	under := c.under
	for _, f := range si.fields {
		if f.tag.Get("layer") != "source" {
			continue
		}
		for i := range pairs {
			if pairs[i].key.Value != f.name {
				continue
			}
			fv := v.FieldByIndex(f.index)
			d.decode(pairs[i].val, fv, c.child(f.name, d.pos(pairs[i].key), f.tag))
			pairs[i].done = true
			if sv, ok := fv.Addr().Interface().(*SonicV); ok && sv.Node != nil {
				under = sv.Node
			}
			break
		}
	}
	if under == nil || under.Kind != yaml.MappingNode {
		return pairs, nil
	}
	byName := map[string]*yaml.Node{}
	for _, p := range d.pairs(under, c) {
		p.merged, p.layered = true, true
		pairs = append(pairs, p)
		byName[p.key.Value] = p.val
	}
	return pairs, byName
}

func (*SonicV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	file := map[string]any{"type": "string", "description": "a SONiC config_db.json, relative to the scenario file"}
	return anyOf(file, map[string]any{"type": "object", "required": []string{"file"}, "additionalProperties": false,
		"properties": map[string]any{"file": file, "port": map[string]any{"type": "string", "description": "the port whose settings to read, such as Ethernet0"}}})
}
