package scenario

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sonic"
	"gopkg.in/yaml.v3"
)

// This file is the one schema-driven decoder. The schema is a tree of Go
// structs (schema.go) whose fields carry tags:
//
//	yaml:"key"          the key's name in the file
//	required:""         the key must be given
//	enum:"a|b|c"        a text value must be one of these
//	todoval:"b|c"       these enum values parse but are not modelled yet:
//	                    an error at the key, with the hint in use:
//	todo:"X is"         giving the key at all is an error: "X is not
//	                    modelled yet in this version; <use>"
//	use:"..."           the hint for todo/todoval
//	todowarn:"..."      giving the key is a warning with this text
//	min:"..." max:"..." bounds, in the field's own units ("1", "1ps", "1KiB")
//	oneof:"a|b"         an integer must be one of these
//
// A struct decodes from a YAML mapping: keys are matched against the tags
// (unknown keys are errors with a did-you-mean), a key given twice is an
// error, merge keys (<<: *anchor) and aliases work, and required keys are
// checked. A slice decodes from a YAML list. Everything else (the leaves:
// numbers, sizes, rates, times, fractions, text, and the values that take
// more than one shape, such as "xoff: 96KiB" or "xoff: {alpha: 1}")
// implements nodeDecoder and reads its node itself. Every leaf records
// where it was found, so that later checks can point at it.

// nodeDecoder is implemented by schema types that read a YAML node
// themselves.
type nodeDecoder interface {
	decodeNode(d *Decoder, n *yaml.Node, c ctx)
}

// ctx is where in the schema a value is being decoded.
type ctx struct {
	path    string            // dotted path of the value, e.g. "switch.pfc.xoff"
	key     Pos               // where the key holding the value is
	tag     reflect.StructTag // the schema field's tag
	section string            // extra words for unknown-key messages ("for kind star")
	// under is the mapping a layer (switch.sonic) gives for this value:
	// its keys count where the file's own do not give them (layer.go).
	under *yaml.Node
}

func (c ctx) child(key string, keyPos Pos, tag reflect.StructTag) ctx {
	p := Show(key)
	if c.path != "" {
		p = c.path + "." + p
	}
	return ctx{path: p, key: keyPos, tag: tag}
}

func (c ctx) index(i int, pos Pos) ctx {
	return ctx{path: fmt.Sprintf("%s[%d]", c.path, i), key: pos, tag: c.tag}
}

// keyName is the last element of the path, for hints ("use cc: none").
func (c ctx) keyName() string {
	p := c.path
	if i := strings.LastIndexByte(p, '['); i >= 0 && strings.HasSuffix(p, "]") {
		p = p[:i]
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		p = p[i+1:]
	}
	return p
}

// meta, embedded in a schema struct, records whether the mapping was given,
// where, and where each of its keys is.
type meta struct {
	Set  bool
	Pos  Pos            // the mapping (or, for an empty value, its key)
	Keys map[string]Pos // position of each key given
}

// Has reports whether key was given.
func (m *meta) Has(key string) bool { _, ok := m.Keys[key]; return ok }

// KeyPos is the position of key if given, else of the mapping.
func (m *meta) KeyPos(key string) Pos {
	if p, ok := m.Keys[key]; ok {
		return p
	}
	return m.Pos
}

func (m *meta) metaPtr() *meta { return m }

// hasMeta is every written schema struct that embeds meta.
type hasMeta interface{ metaPtr() *meta }

var metaType = reflect.TypeOf(meta{})

// Decoder walks a YAML node tree against a schema and collects
// diagnostics.
type Decoder struct {
	File   string
	errs   []Diagnostic
	warns  []Diagnostic
	budget int // node visits left: aliases could otherwise expand exponentially
	// aliasBudget is the node visits left below an alias or a merge key
	// (inAlias > 0): what a file writes once and uses again is bounded far
	// tighter than what it writes out, since nested aliases multiply.
	aliasBudget int
	inAlias     int
	exhausted   bool
	depth       int // nesting of decode and of merge keys: an alias can refer to itself
	dropped     int // errors beyond maxErrors
	// sonic holds the SONiC configurations read (layer.go), by name and
	// port; sonicErr why one could not be.
	sonic    map[string]*sonic.Result
	sonicErr map[string]error
	// library says the scenario is the library's (DecodeLibrary): the
	// files it names come from the library where not on disk.
	library bool
	// inputs are the files the scenario names that were read
	// (inputs.go), inputs their indexes by name.
	inputList []Input
	inputs    map[string]int
}

// Decode decodes a parsed YAML document (root; nil for an empty file)
// into the schema, checking every key and value against it (visiting at
// most budget nodes) and then what else needs only the file (check.go).
// The problems found are in the decoder, where the resolution of the
// scenario (package resolve) adds its own.
func Decode(file string, root *yaml.Node, budget int) (*File, *Decoder) {
	return decode(file, root, budget, false)
}

// DecodeLibrary is Decode for a scenario of the embedded library (a
// built-in example, a lab's scenario): a file it names (switch.sonic's)
// that is not on disk is read from the library (LibraryFile).
func DecodeLibrary(file string, root *yaml.Node, budget int) (*File, *Decoder) {
	return decode(file, root, budget, true)
}

func decode(file string, root *yaml.Node, budget int, library bool) (*File, *Decoder) {
	d := &Decoder{File: file, budget: budget, aliasBudget: min(budget, MaxAliasVisits), library: library}
	var f File
	if root == nil {
		d.Errorf(Pos{File: file, Line: 1, Col: 1}, "", "the file is empty; a scenario needs at least topology: and traffic:")
	} else {
		d.decodeInto(root, &f, ctx{key: d.pos(root)})
		f.check(d)
	}
	return &f, d
}

// Err is nil, or an Errors holding every error found, sorted by
// position, with a last line saying how many more were not kept.
func (d *Decoder) Err() error {
	if len(d.errs) == 0 {
		return nil
	}
	errs := sortDiags(d.errs)
	if d.dropped > 0 {
		errs = append(errs, Diagnostic{File: d.File, Msg: fmt.Sprintf("too many errors: %d more not shown", d.dropped)})
	}
	return Errors(errs)
}

// ErrorCount is how many errors have been found so far (a check that
// depends on others passing compares it before and after them).
func (d *Decoder) ErrorCount() int { return len(d.errs) }

// Warnings are the warnings found, sorted by position.
func (d *Decoder) Warnings() []Diagnostic { return sortDiags(d.warns) }

// maxDepth is deeper than any scenario nests (the schema is about ten
// levels deep; merges of merges add a few).
const maxDepth = 64

// enter counts one level of nesting; it reports false, once, when an
// alias that contains itself makes the nesting endless.
func (d *Decoder) enter(n *yaml.Node, c ctx) bool {
	if d.depth >= maxDepth {
		d.Errorf(d.pos(n), c.path, "nested too deeply (does an alias or merge key refer to itself?)")
		return false
	}
	d.depth++
	return true
}

func (d *Decoder) pos(n *yaml.Node) Pos { return Pos{d.File, n.Line, n.Column} }

// MaxErrors is how many errors one pass reports; after that the rest of
// the file is still read but its errors are counted, not kept.
const MaxErrors = 200

// Full reports whether no more errors are kept.
func (d *Decoder) Full() bool { return len(d.errs) >= MaxErrors }

// Suggest is didYouMean, skipped once errors are no longer kept (a list of
// many unknown names among many hosts would otherwise take quadratic time).
func (d *Decoder) Suggest(word string, candidates []string) string {
	if d.Full() {
		return ""
	}
	return DidYouMean(word, candidates)
}

func (d *Decoder) Errorf(p Pos, path, format string, args ...any) {
	if d.Full() {
		d.dropped++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	d.errs = append(d.errs, Diagnostic{File: d.File, Line: p.Line, Col: p.Col, Msg: msg})
}

func (d *Decoder) Warnf(p Pos, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	d.warns = append(d.warns, Diagnostic{File: d.File, Line: p.Line, Col: p.Col, Msg: msg})
}

// MaxAliasVisits bounds the nodes a document's aliases and merge keys
// may bring in, counted each time: 200,000, far more than sharing a few
// defaults takes, and at most some tens of megabytes of decoding; a
// nest of aliases that would expand to billions (an "alias bomb") stops
// there.
const MaxAliasVisits = 200_000

// spend takes one node visit from the budget (and from the alias budget
// below an alias or merge key).
func (d *Decoder) spend(n *yaml.Node) bool {
	if d.inAlias > 0 {
		if d.aliasBudget <= 0 {
			if !d.exhausted {
				d.exhausted = true
				d.Errorf(d.pos(n), "", "the aliases expand too much (over %d nodes through aliases and merge keys); stopped checking here", MaxAliasVisits)
			}
			return false
		}
		d.aliasBudget--
	}
	if d.budget <= 0 {
		if !d.exhausted {
			d.exhausted = true
			d.Errorf(d.pos(n), "", "the document is too large (or its aliases expand too much); stopped checking here")
		}
		return false
	}
	d.budget--
	return true
}

// resolve follows aliases.
func (d *Decoder) resolve(n *yaml.Node) *yaml.Node {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode; hops++ {
		if n.Alias == nil || hops > 100 {
			d.Errorf(d.pos(n), "", "alias *%s cannot be resolved", Show(n.Value))
			return nil
		}
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return d.resolve(n.Content[0])
	}
	return n
}

// decodeInto decodes n into the schema value that ptr points to.
func (d *Decoder) decodeInto(n *yaml.Node, ptr any, c ctx) {
	d.decode(n, reflect.ValueOf(ptr).Elem(), c)
}

func (d *Decoder) decode(n *yaml.Node, v reflect.Value, c ctx) {
	if n != nil && n.Kind == yaml.AliasNode {
		d.inAlias++
		defer func() { d.inAlias-- }()
	}
	n = d.resolve(n)
	if n == nil || !d.spend(n) || !d.enter(n, c) {
		return
	}
	defer func() { d.depth-- }()
	if v.CanAddr() {
		if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
			nd.decodeNode(d, n, c)
			return
		}
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, c)
	case reflect.Slice:
		d.decodeSlice(n, v, c)
	case reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		d.decode(n, nv.Elem(), c)
		v.Set(nv)
	default:
		panic("scenario: schema type " + v.Type().String() + " has no decoder")
	}
}

// Describe says what a node is, for "expected X, found Y".
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!int", "!!float":
			return "the number " + Show(n.Value)
		case "!!bool":
			return n.Value
		}
		return Quote(n.Value)
	}
	return "something else"
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// fieldInfo is one key of a schema struct.
type fieldInfo struct {
	name     string
	index    []int
	tag      reflect.StructTag
	required bool
	// section, for a key a table of kinds gives (a congestion control's
	// parameters), is the struct it decodes into, in the CCSectionsV at
	// index; defName is its name in the JSON Schema's $defs.
	section reflect.Type
	defName string
}

type structInfo struct {
	fields    []fieldInfo
	byName    map[string]*fieldInfo
	names     []string
	meta      bool  // the struct embeds meta
	metaIndex []int // where
	gen       uint64
}

var structInfos sync.Map // reflect.Type -> *structInfo

// schemaOf is struct t's keys, read from its tags (and, where a field
// says so, from the tables of kinds: kinds.go), made again when a table
// has changed.
func schemaOf(t reflect.Type) *structInfo {
	gen := kind.Generation()
	if si, ok := structInfos.Load(t); ok && si.(*structInfo).gen == gen {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]*fieldInfo{}, gen: gen}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			idx := append(append([]int(nil), prefix...), i)
			if f.Type == metaType {
				si.meta, si.metaIndex = true, idx
				continue
			}
			if fs, ok := kindFields(f, idx); ok {
				si.fields = append(si.fields, fs...)
				continue
			}
			name, ok := f.Tag.Lookup("yaml")
			if !ok {
				if f.Anonymous && f.Type.Kind() == reflect.Struct {
					walk(f.Type, idx) // shared keys, flattened
				}
				continue
			}
			_, req := f.Tag.Lookup("required")
			si.fields = append(si.fields, fieldInfo{name: name, index: idx, tag: f.Tag, required: req})
		}
	}
	walk(t, nil)
	for i := range si.fields {
		f := &si.fields[i]
		if si.byName[f.name] != nil {
			panic("scenario: key " + f.name + " twice in " + t.String())
		}
		si.byName[f.name] = f
		si.names = append(si.names, f.name)
	}
	structInfos.Store(t, si)
	return si
}

// pair is one key: value of a mapping; merged pairs come from merge keys.
type pair struct {
	key, val *yaml.Node
	merged   bool
	layered  bool // from a layer (switch.sonic), under the file's own keys
	done     bool // decoded already (the layer's own key)
}

// pairs lists a mapping's entries with merge keys (<<) expanded: the
// mapping's own keys first, then merged ones (which the caller skips when
// a key is already present, as YAML's merge semantics say).
func (d *Decoder) pairs(n *yaml.Node, c ctx) []pair {
	var own, merged []pair
	var merge func(v *yaml.Node, depth int)
	merge = func(v *yaml.Node, depth int) {
		d.inAlias++
		defer func() { d.inAlias-- }()
		v = d.resolve(v)
		if v == nil || depth > 8 || !d.spend(v) || !d.enter(v, c) {
			return
		}
		defer func() { d.depth-- }()
		switch v.Kind {
		case yaml.MappingNode:
			for _, p := range d.pairs(v, c) {
				if !d.spend(p.key) {
					return // merges of merges can grow exponentially
				}
				p.merged = true
				merged = append(merged, p)
			}
		case yaml.SequenceNode:
			for _, e := range v.Content {
				merge(e, depth+1)
			}
		default:
			d.Errorf(d.pos(v), c.path, "a merge key (<<) takes a mapping or a list of mappings, not %s", Describe(v))
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.resolve(n.Content[i])
		if k == nil {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.Errorf(d.pos(k), c.path, "a key must be a plain name, not %s", Describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merge(n.Content[i+1], 0)
			continue
		}
		own = append(own, pair{key: k, val: n.Content[i+1]})
	}
	return append(own, merged...)
}

func (d *Decoder) decodeStruct(n *yaml.Node, v reflect.Value, c ctx) {
	si := schemaOf(v.Type())
	var m *meta
	if si.meta {
		if hm, ok := v.Addr().Interface().(hasMeta); ok {
			m = hm.metaPtr()
		} else { // a struct a table of kinds gives: meta is its field Meta
			m = v.FieldByIndex(si.metaIndex).Addr().Interface().(*meta)
		}
		m.Keys = map[string]Pos{}
	}
	if isNull(n) && c.under != nil { // "pfc:" alone beside a layer's pfc
		n, c.under = c.under, nil
	}
	if isNull(n) { // "switch:" with nothing after it: an empty block
		if m != nil {
			m.Set, m.Pos = true, c.key
		}
		d.checkRequired(si, map[string]Pos{}, c)
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping (key: value, ...), found %s", Describe(n))
		return
	}
	if m != nil {
		m.Set, m.Pos = true, d.pos(n)
	}
	seen := map[string]Pos{}
	suggested := map[string]bool{}
	pairs := d.pairs(n, c)
	var layer map[string]*yaml.Node
	pairs, layer = d.layer(pairs, v, si, c)
	for _, p := range pairs {
		name, kp := p.key.Value, d.pos(p.key)
		if first, dup := seen[name]; dup {
			if !p.merged {
				d.Errorf(kp, c.path, "key %s is given twice (first at %s)", Show(name), FirstAt(first, kp))
			}
			continue
		}
		seen[name] = kp
		f := si.byName[name]
		if f == nil {
			if c.path == "" && strings.HasPrefix(name, "x-") {
				continue // a top-level extension key, a place for anchors
			}
			if s := d.unknownKey(kp, name, si.names, c); s != "" {
				suggested[s] = true // no "missing key" for the key it names
			}
			continue
		}
		if m != nil {
			m.Keys[name] = kp
		}
		cc := c.child(name, kp, f.tag)
		if under := layer[name]; under != nil && !p.layered && f.tag.Get("layer") == "merge" {
			cc.under = under // the file's pfc: over the layer's, key by key
		}
		if p.done {
			continue // the layer's own key, decoded first
		}
		if what, ok := f.tag.Lookup("todo"); ok {
			d.todo(cc, what)
		}
		if w, ok := f.tag.Lookup("todowarn"); ok {
			d.Warnf(kp, cc.path, "%s", w)
		}
		if f.section != nil {
			sections := v.FieldByIndex(f.index).Addr().Interface().(*CCSectionsV)
			d.decode(p.val, sections.at(name, f.section), cc)
			continue
		}
		d.decode(p.val, v.FieldByIndex(f.index), cc)
	}
	for k := range suggested {
		if _, given := seen[k]; !given {
			seen[k] = Pos{}
		}
	}
	d.checkRequired(si, seen, c)
}

func (d *Decoder) checkRequired(si *structInfo, seen map[string]Pos, c ctx) {
	for _, f := range si.fields {
		if _, ok := seen[f.name]; !ok && f.required {
			msg := "missing key " + f.name
			if e := f.tag.Get("enum"); e != "" {
				msg += " (one of " + strings.ReplaceAll(e, "|", ", ") + ")"
			}
			if c.section != "" {
				msg += " " + c.section
			}
			d.Errorf(c.key, c.path, "%s", msg)
		}
	}
}

// unknownKey reports an unknown key and returns the key it suggests.
func (d *Decoder) unknownKey(kp Pos, name string, allowed []string, c ctx) string {
	sug, _ := Suggest(name, allowed)
	if c.path == "" {
		d.Errorf(kp, "", "unknown top-level key %s%s; allowed keys are %s (and x-... keys, for anchors)", Show(name), d.Suggest(name, allowed), strings.Join(allowed, ", "))
		return sug
	}
	where := ""
	if c.section != "" {
		where = " " + c.section
	}
	d.Errorf(kp, c.path, "unknown key %s%s%s; allowed keys are %s", Show(name), where, d.Suggest(name, allowed), strings.Join(allowed, ", "))
	return sug
}

// todo reports a feature that parses but is not modelled yet, at the key.
func (d *Decoder) todo(c ctx, what string) {
	use := c.tag.Get("use")
	if use == "" {
		use = "remove " + c.keyName() + ":"
	}
	d.Errorf(c.key, c.path, "%s not modelled yet in this version; %s", what, use)
}

func (d *Decoder) decodeSlice(n *yaml.Node, v reflect.Value, c ctx) {
	if isNull(n) {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.Errorf(d.pos(n), c.path, "expected a list, found %s", Describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, e := range n.Content {
		d.decode(e, s.Index(i), c.index(i, d.pos(e)))
	}
	v.Set(s)
}

// scalar checks that n is a value rather than a mapping, list or nothing.
func (d *Decoder) scalar(n *yaml.Node, c ctx, what string) bool {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		return true
	}
	d.Errorf(d.pos(n), c.path, "expected %s, found %s", what, Describe(n))
	return false
}

// enumCheck checks v against the enum tag and reports values not
// modelled yet (todoval). It returns false when v is not allowed.
func (d *Decoder) enumCheck(n *yaml.Node, v string, c ctx) bool {
	enum := c.tag.Get("enum")
	if enum == "" {
		return true
	}
	opts := strings.Split(enum, "|")
	found := false
	for _, o := range opts {
		found = found || o == v
	}
	if !found {
		d.Errorf(d.pos(n), c.path, "unknown value %s%s; expected one of %s", Show(v), d.Suggest(v, opts), strings.Join(opts, ", "))
		return false
	}
	if tv := c.tag.Get("todoval"); tv != "" {
		for _, o := range strings.Split(tv, "|") {
			if o == v {
				d.todo(c, v+" is")
			}
		}
	}
	return true
}
