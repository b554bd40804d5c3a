package kind

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

type testParams struct {
	R fabric.Rate
	T sim.Time
	S int64
	I int
	F float64
	B bool
	X string
	G int
}

// TestParamSetAndValue: each constructor writes the format's Go value of
// its type into the field it names, converted to the field's type, and
// reads it back as the format's type.
func TestParamSetAndValue(t *testing.T) {
	type P = testParams
	for _, c := range []struct {
		p  Param
		v  any
		ok func(*P) bool
	}{
		{Rate("r", func(p *P) *fabric.Rate { return &p.R }), 5 * fabric.Mbps, func(p *P) bool { return p.R == 5*fabric.Mbps }},
		{Time("t", func(p *P) *sim.Time { return &p.T }), 3 * sim.Microsecond, func(p *P) bool { return p.T == 3*sim.Microsecond }},
		{Size("s", func(p *P) *int64 { return &p.S }), fabric.Size(4096), func(p *P) bool { return p.S == 4096 }},
		{Int("i", func(p *P) *int { return &p.I }), int64(7), func(p *P) bool { return p.I == 7 }},
		{Frac("f", func(p *P) *float64 { return &p.F }), 0.25, func(p *P) bool { return p.F == 0.25 }},
		{Bool("b", func(p *P) *bool { return &p.B }), true, func(p *P) bool { return p.B }},
		{Text("x", func(p *P) *string { return &p.X }, "a", "b"), "b", func(p *P) bool { return p.X == "b" }},
		{Num("g", func(p *P, v float64) { p.G = int(v) }, func(p *P) float64 { return float64(p.G) }), 1019.0, func(p *P) bool { return p.G == 1019 }},
	} {
		var p P
		c.p.Set(&p, c.v)
		if !c.ok(&p) {
			t.Errorf("%s: set %v, got %+v", c.p.Key, c.v, p)
		}
		if got := c.p.Value(&p); got != c.v {
			t.Errorf("%s: value %v (%T), want %v (%T)", c.p.Key, got, got, c.v, c.v)
		}
	}
}

// TestRegisterCC: a row is in the table, in order, until unregistered;
// a second row of the same name panics.
func TestRegisterCC(t *testing.T) {
	before, g := len(CCs()), Generation()
	undo := RegisterCC(CC{Name: "kind-test-a"})
	undoB := RegisterCC(CC{Name: "kind-test-b"})
	rows := CCs()
	if len(rows) != before+2 || rows[before].Name != "kind-test-a" || rows[before+1].Name != "kind-test-b" || Generation() == g {
		t.Fatalf("table %v after two registrations", rows)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second kind-test-a did not panic")
			}
		}()
		RegisterCC(CC{Name: "kind-test-a"})
	}()
	undo()
	undoB()
	if _, ok := LookupCC("kind-test-a"); ok || len(CCs()) != before {
		t.Errorf("table %v after unregistering", CCs())
	}
}

// TestRegisterTopology: a generator is in the table, in order, until
// unregistered; a second row of the same name, one named explicit (the
// format's own kind), or one whose keys do not hold together panics. MulSat saturates where the product
// would overflow.
func TestRegisterTopology(t *testing.T) {
	before, g := len(Topologies()), Generation()
	undo := RegisterTopology(Topology{Name: "kind-test-line"})
	rows := Topologies()
	if len(rows) != before+1 || rows[before].Name != "kind-test-line" || Generation() == g {
		t.Fatalf("table %v after a registration", rows)
	}
	type P struct{ A, B fabric.LinkSpec }
	a := Link("a", func(p *P) *fabric.LinkSpec { return &p.A })
	b := Link("b", func(p *P) *fabric.LinkSpec { return &p.B })
	for _, bad := range []Topology{
		{Name: "kind-test-line"}, {Name: "explicit"}, {},
		{Name: "kind-test-x", Params: []Param{a.Over("b"), b}},
		{Name: "kind-test-x", Params: []Param{a.Needed()}},
		{Name: "kind-test-x", Params: []Param{a}, SizeKey: "c"},
		{Name: "kind-test-x", Params: []Param{a}, LimitAt: "c"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %+v did not panic", bad)
				}
			}()
			RegisterTopology(bad)
		}()
	}
	undoX := RegisterTopology(Topology{Name: "kind-test-x", Params: []Param{a, b.Over("a")}, SizeKey: "a", LimitAt: "b"})
	undoX()
	undo()
	if _, ok := LookupTopology("kind-test-line"); ok || len(Topologies()) != before {
		t.Errorf("table %v after unregistering", Topologies())
	}
	for _, c := range []struct {
		xs   []int64
		want int64
	}{{[]int64{3, 4}, 12}, {[]int64{0, math.MaxInt64}, 0}, {[]int64{1 << 32, 1 << 32}, math.MaxInt64}, {nil, 1}} {
		if got := MulSat(c.xs...); got != c.want {
			t.Errorf("MulSat(%v) = %d, want %d", c.xs, got, c.want)
		}
	}
}
