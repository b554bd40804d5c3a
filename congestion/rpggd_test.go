package congestion

import (
	"fmt"

	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestDCQCNRpgGd: rpg_gd is log2 of Gd in NVIDIA's cut R_C = (1 -
// alpha/Gd) R_C with alpha in 1/1024ths ("DCQCN Parameters",
// community.mellanox.com DOC-2790; DOCA's "DCQCN CC Parameters": values
// 10..11, default 11): from line rate with initial_alpha_value 256
// (alpha 1/4) the first CNP leaves 100 × (1 - 256/2048) = 87.5 Gb/s at
// rpg_gd 11 and 100 × (1 - 256/1024) = 75 Gb/s at 10. Both are above
// rpg_min_dec_fac's bound (50 Gb/s), so that bound does not hide the key.
func TestDCQCNRpgGd(t *testing.T) {
	for _, c := range []struct {
		variant string
		gd      int
		want    float64
	}{
		{"nvidia", 11, 87.5e9},
		{"nvidia", 10, 75e9},
		{"paper", 11, 87.5e9},
		{"paper", 10, 75e9},
	} {
		p := DCQCNNvidia()
		if c.variant == "paper" {
			p = DCQCNPaper()
		}
		p.InitialAlpha, p.GD = 256, c.gd
		var a applied
		d := NewDCQCN(sim.NewEngine(1), p, path100, a.apply)
		d.OnCNP(0)
		near(t, fmt.Sprintf("%s R_C after the first CNP at rpg_gd %d", c.variant, c.gd), float64(d.State(0).Rate), c.want, 1e-12)
		if a.rate != d.State(0).Rate {
			t.Errorf("%s rpg_gd %d: applied %v, state %v", c.variant, c.gd, a.rate, d.State(0).Rate)
		}
	}
}

// TestDCQCNMinDecFac: rpg_min_dec_fac bounds one cut to at least that
// percentage of the current rate ("DCQCN Parameters",
// community.mellanox.com DOC-2790: "setting min_dec_fac = 25 will bound
// a reduction of current_rate to values above 25%*current_rate ...
// Setting min_dec_fac = 100 will prevent rate reductions at all"). From
// line rate with initial_alpha_value 1023 and rpg_gd 11 the unbounded
// cut leaves 100 × (1 - 1023/2048) = 50.049 Gb/s: a bound of 25% or 50%
// leaves it, 75% holds the rate at 75 Gb/s and 100% at the line. Read
// the other way round (a cut keeps (100 - fac)%), 25 would give 75 and
// 75 would give 50.049.
func TestDCQCNMinDecFac(t *testing.T) {
	unbounded := 100e9 * (1 - 1023.0/2048)
	for _, c := range []struct {
		fac  int
		want float64
	}{
		{0, unbounded},
		{25, unbounded},
		{50, unbounded},
		{75, 75e9},
		{100, 100e9},
	} {
		for _, variant := range []string{"nvidia", "paper"} {
			p := DCQCNNvidia()
			if variant == "paper" {
				p = DCQCNPaper()
			}
			p.InitialAlpha, p.GD, p.MinDecFac = 1023, 11, c.fac
			var a applied
			d := NewDCQCN(sim.NewEngine(1), p, path100, a.apply)
			d.OnCNP(0)
			near(t, fmt.Sprintf("%s R_C after the first CNP at rpg_min_dec_fac %d", variant, c.fac), float64(d.State(0).Rate), c.want, 1e-12)
		}
	}
}
