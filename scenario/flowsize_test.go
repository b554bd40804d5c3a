package scenario

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestParseCDFErrors: a CDF file's mistakes are errors at its line.
func TestParseCDFErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"0 0\n1e19 100\n", "f.cdf:2: size 1e19 is too large; a CDF's sizes are at most 2^53 bytes (8 PiB)"},
		{"0 0\n9007199254740994 100\n", "f.cdf:2: size 9007199254740994 is too large"},
		{"0 0\n100\n", `f.cdf:2: expected "<size in bytes> <cumulative percent>", found "100"`},
		{"0 0\nx 100\n", `f.cdf:2: expected two numbers, found "x 100"`},
		{"0 0\n-1 100\n", `f.cdf:2: sizes are at least 0 and percents 0..100, found "-1 100"`},
		{"0 0\n100 50\n50 100\n", "f.cdf:3: the points must ascend"},
		{"0 0\n100 90\n", "f.cdf: the last point's percent must be 100, not 90"},
		{"0 100\n", "f.cdf: a CDF needs at least two points"},
		{"0 0\n0 100\n", "f.cdf: every size is 0"},
	} {
		_, err := ParseCDF("f.cdf", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
	d, err := ParseCDF("f.cdf", []byte("0 0\n9007199254740992 100\n"))
	if err != nil || d.Max() != 1<<53 {
		t.Errorf("2^53 as the largest size: %v, max %d", err, d.Max())
	}
}

// FuzzParseCDF: any file given as a CDF is an error at its line or a
// distribution whose every draw lies between 1 byte and its largest size,
// with a finite mean.
func FuzzParseCDF(f *testing.F) {
	for _, name := range SizeDists {
		data, err := flowSizeFS.ReadFile("data/flowsize/" + name + ".txt")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "0 0\n1e19 100\n", "# c\n0 0\n1 100", "5 5\n5 100\n", "0 0\nNaN 100\n", "0 0\n1 1e-300\n2 100\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseCDF("f.cdf", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.cdf") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if m := d.Mean(); math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			t.Fatalf("mean %v", m)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 64 {
			if x := d.Sample(rng); x < 1 || x > max(1, d.Max()) {
				t.Fatalf("draw %d outside [1, %d]", x, d.Max())
			}
		}
	})
}
