package scenario

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The leaf types of the schema. Each records its value, where it was
// found and whether it was given (Set); a value with an error stays unset.

// rangeText is "a..b", "at least a" or "at most b".
func rangeText(lo, hi string) string {
	switch {
	case lo != "" && hi != "":
		return lo + ".." + hi
	case lo != "":
		return "at least " + lo
	}
	return "at most " + hi
}

// inRange checks v against the min and max tags, which cmp parses into
// the same units (returning false when a tag does not parse, a schema
// bug caught by the tests).
func inRange[T int64 | uint64 | float64 | fabric.Size | fabric.Rate | sim.Time](d *Decoder, n *yaml.Node, c ctx, v T, parse func(string) (T, bool)) bool {
	lo, hi := c.tag.Get("min"), c.tag.Get("max")
	bad := false
	if lo != "" {
		if m, ok := parse(lo); !ok {
			panic("scenario: bad min tag " + lo)
		} else if v < m {
			bad = true
		}
	}
	if hi != "" {
		if m, ok := parse(hi); !ok {
			panic("scenario: bad max tag " + hi)
		} else if v > m {
			bad = true
		}
	}
	if bad {
		d.Errorf(d.pos(n), c.path, "%s is out of range; expected %s", Show(n.Value), rangeText(lo, hi))
	}
	return !bad
}

// StrV is a text value, optionally one of an enum.
type StrV struct {
	V   string
	Pos Pos
	Set bool
}

func (s *StrV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	what := "text"
	if e := c.tag.Get("enum"); e != "" {
		what = "one of " + strings.ReplaceAll(e, "|", ", ")
	}
	if !d.scalar(n, c, what) || !d.enumCheck(n, n.Value, c) {
		return
	}
	s.V, s.Pos, s.Set = n.Value, d.pos(n), true
}

// IntV is a whole number (YAML int), with optional min, max, oneof.
type IntV struct {
	V   int64
	Pos Pos
	Set bool
}

func (iv *IntV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "a whole number") {
		return
	}
	var v int64
	if n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		if n.ShortTag() == "!!int" {
			d.Errorf(d.pos(n), c.path, "%s is too large", Show(n.Value))
		} else {
			d.Errorf(d.pos(n), c.path, "expected a whole number, found %s", Describe(n))
		}
		return
	}
	if !inRange(d, n, c, v, func(s string) (int64, bool) {
		x, err := strconv.ParseInt(s, 10, 64)
		return x, err == nil
	}) {
		return
	}
	if oneof := c.tag.Get("oneof"); oneof != "" {
		ok := false
		for _, o := range strings.Split(oneof, "|") {
			ok = ok || o == strconv.FormatInt(v, 10)
		}
		if !ok {
			d.Errorf(d.pos(n), c.path, "%s is not allowed; expected one of %s", Show(n.Value), strings.ReplaceAll(oneof, "|", ", "))
			return
		}
	}
	iv.V, iv.Pos, iv.Set = v, d.pos(n), true
}

// u64V is a whole number from 0 to 2^64-1 (seeds).
type u64V struct {
	V   uint64
	Pos Pos
	Set bool
}

func (u *u64V) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "a whole number") {
		return
	}
	var v uint64
	if n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		d.Errorf(d.pos(n), c.path, "expected a whole number from 0 to 18446744073709551615, found %s", Describe(n))
		return
	}
	u.V, u.Pos, u.Set = v, d.pos(n), true
}

// numV is a finite real number, with optional min and max.
type numV struct {
	V   float64
	Pos Pos
	Set bool
}

func (x *numV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "a number") {
		return
	}
	var v float64
	t := n.ShortTag()
	if (t != "!!int" && t != "!!float") || n.Decode(&v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.Errorf(d.pos(n), c.path, "expected a number, found %s", Describe(n))
		return
	}
	if !inRange(d, n, c, v, func(s string) (float64, bool) {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}) {
		return
	}
	x.V, x.Pos, x.Set = v, d.pos(n), true
}

// boolV is true or false.
type boolV struct {
	V   bool
	Pos Pos
	Set bool
}

func (b *boolV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "true or false") {
		return
	}
	var v bool
	if n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		d.Errorf(d.pos(n), c.path, "expected true or false, found %s", Describe(n))
		return
	}
	b.V, b.Pos, b.Set = v, d.pos(n), true
}

// SizeV is a size in bytes, read by fabric.ParseSize ("64", "4KiB").
type SizeV struct {
	V   fabric.Size
	Pos Pos
	Set bool
}

func (s *SizeV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if v, ok := decodeUnit(d, n, c, "a size such as 4KiB or 1MiB", fabric.ParseSize); ok {
		s.V, s.Pos, s.Set = v, d.pos(n), true
	}
}

// decodeUnit reads a scalar with parse and checks it against the field's
// min/max tags (written in the same units).
func decodeUnit[T fabric.Size | sim.Time](d *Decoder, n *yaml.Node, c ctx, want string, parse func(string) (T, error)) (T, bool) {
	if !d.scalar(n, c, want) {
		return 0, false
	}
	v, err := parse(n.Value)
	if err != nil {
		d.Errorf(d.pos(n), c.path, "%s", err)
		return 0, false
	}
	return v, inRange(d, n, c, v, func(s string) (T, bool) {
		x, err := parse(s)
		return x, err == nil
	})
}

// TimeV is a duration, read by sim.ParseTime ("500ns", "1.5ms", "0").
type TimeV struct {
	V   sim.Time
	Pos Pos
	Set bool
}

func (t *TimeV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if v, ok := decodeUnit(d, n, c, "a time such as 500ns or 1.5ms", sim.ParseTime); ok {
		t.V, t.Pos, t.Set = v, d.pos(n), true
	}
}

// RateV is a rate in bits per second, read by fabric.ParseRate.
type RateV struct {
	V   fabric.Rate
	Pos Pos
	Set bool
	// IBName: the rate was given as an InfiniBand speed (EDR, 4xHDR),
	// whose data rate V is.
	IBName bool
}

func (r *RateV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if !d.scalar(n, c, "a rate such as 100Gbps") {
		return
	}
	if v, ok, err := fabric.ParseIBRate(n.Value); ok {
		// An InfiniBand speed by name (EDR, 4xHDR): its data rate.
		if err != nil {
			d.Errorf(d.pos(n), c.path, "%s", err)
			return
		}
		r.V, r.Pos, r.Set, r.IBName = v, d.pos(n), true, true
		return
	}
	v, err := fabric.ParseRate(n.Value)
	if err != nil {
		d.Errorf(d.pos(n), c.path, "%s", err)
		return
	}
	r.V, r.Pos, r.Set = v, d.pos(n), true
}

// fracV is a fraction from 0 to 1, written 0.5 or 50%.
type fracV struct {
	V   float64
	Pos Pos
	Set bool
}

func (f *fracV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	const expect = "a fraction such as 0.5 or 50%"
	if !d.scalar(n, c, expect) {
		return
	}
	var v float64
	var err error
	t := n.ShortTag()
	switch {
	case t == "!!str" && strings.HasSuffix(n.Value, "%"):
		v, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(n.Value, "%")), 64)
		v /= 100
	case t == "!!int" || t == "!!float":
		err = n.Decode(&v)
	default:
		d.Errorf(d.pos(n), c.path, "expected %s, found %s", expect, Describe(n))
		return
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.Errorf(d.pos(n), c.path, "expected %s, found %s", expect, Describe(n))
		return
	}
	if v < 0 || v > 1 {
		d.Errorf(d.pos(n), c.path, "%s is out of range; expected 0..1 (or 0%%..100%%)", Show(n.Value))
		return
	}
	f.V, f.Pos, f.Set = v, d.pos(n), true
}

// keyword reports whether n is the plain word w (as "auto", "all").
func keyword(n *yaml.Node, w string) bool {
	return n.Kind == yaml.ScalarNode && n.Value == w
}

// Get returns the value and whether the file gave it (Set), for the
// code that lays a given value over a default (resolve's override).
func (s StrV) Get() (string, bool) { return s.V, s.Set }

// Get returns the value and whether the file gave it.
func (iv IntV) Get() (int64, bool) { return iv.V, iv.Set }

// Get returns the value and whether the file gave it.
func (u u64V) Get() (uint64, bool) { return u.V, u.Set }

// Get returns the value and whether the file gave it.
func (x numV) Get() (float64, bool) { return x.V, x.Set }

// Get returns the value and whether the file gave it.
func (b boolV) Get() (bool, bool) { return b.V, b.Set }

// Get returns the value and whether the file gave it.
func (s SizeV) Get() (fabric.Size, bool) { return s.V, s.Set }

// Get returns the value and whether the file gave it.
func (t TimeV) Get() (sim.Time, bool) { return t.V, t.Set }

// Get returns the value and whether the file gave it.
func (r RateV) Get() (fabric.Rate, bool) { return r.V, r.Set }

// Get returns the value and whether the file gave it.
func (f fracV) Get() (float64, bool) { return f.V, f.Set }
