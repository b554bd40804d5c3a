// Package fabric holds what every node shares: packets and their RoCEv2
// headers, ports with per-priority queues, links with serialization and
// propagation in integer picoseconds, PFC frames, topology graphs and their
// generators, and routing tables. It imports only sim of lfsim's; the
// switch and the HCA build on it, and it knows neither.
package fabric

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/sim"
)

// Rate is a link or sending rate in bits per second.
type Rate int64

// Common rates.
const (
	BitPerSecond Rate = 1
	Kbps         Rate = 1000
	Mbps         Rate = 1000 * Kbps
	Gbps         Rate = 1000 * Mbps
	Tbps         Rate = 1000 * Gbps
)

// String prints the rate with the largest unit that keeps it exact to three
// decimals, e.g. "100Gbps", "1.5Tbps", "40Mbps".
func (r Rate) String() string {
	for _, u := range []struct {
		name string
		unit Rate
	}{{"Tbps", Tbps}, {"Gbps", Gbps}, {"Mbps", Mbps}, {"Kbps", Kbps}} {
		if r >= u.unit && r%(u.unit/1000) == 0 {
			return trimDecimal(int64(r), int64(u.unit)) + u.name
		}
	}
	return strconv.FormatInt(int64(r), 10) + "bps"
}

// Gbps returns the rate in Gb/s as a float, for reports.
func (r Rate) Gbps() float64 { return float64(r) / float64(Gbps) }

func trimDecimal(v, unit int64) string {
	whole, rest := v/unit, v%unit
	if rest == 0 {
		return strconv.FormatInt(whole, 10)
	}
	return fmt.Sprintf("%d.%s", whole, strings.TrimRight(fmt.Sprintf("%03d", rest/(unit/1000)), "0"))
}

// ParseRate reads a rate: "100Gbps", "100Gb/s", "400G", "25Mbps",
// "1.5Tbps", "5Mbps". The unit is required and the value must be positive
// and a whole number of bits per second.
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	lower := strings.ToLower(in)
	for _, suf := range []string{"bps", "b/s", "bit/s", ""} {
		for _, p := range []struct {
			prefix string
			unit   Rate
		}{{"t", Tbps}, {"g", Gbps}, {"m", Mbps}, {"k", Kbps}} {
			if suf == "" && p.prefix == "" {
				continue
			}
			tail := p.prefix + suf
			if !strings.HasSuffix(lower, tail) {
				continue
			}
			num := strings.TrimSpace(in[:len(in)-len(tail)])
			v, err := exactDecimal(num, int64(p.unit))
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("rate %q is not a positive number followed by a unit (Tbps, Gbps, Mbps, Kbps, or G, M, K)", s)
			}
			return Rate(v), nil
		}
	}
	return 0, fmt.Errorf("rate %q has no unit; expected a rate such as 100Gbps, 100Gb/s, 400G or 25Mbps", s)
}

// Size is a number of bytes.
type Size int64

// Size units: SCENARIO.md's KiB = 1024 and KB = 1000.
const (
	Byte Size = 1
	KB   Size = 1000
	MB   Size = 1000 * KB
	GB   Size = 1000 * MB
	TB   Size = 1000 * GB
	KiB  Size = 1024
	MiB  Size = 1024 * KiB
	GiB  Size = 1024 * MiB
	TiB  Size = 1024 * GiB
)

// String prints a size in the largest binary unit that divides it, else in
// bytes: "4MiB", "96KiB", "1500".
func (s Size) String() string {
	for _, u := range []struct {
		name string
		unit Size
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if s >= u.unit && s%u.unit == 0 {
			return strconv.FormatInt(int64(s/u.unit), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// ParseSize reads a size: "64" (bytes), "4KiB", "1MiB", "1.5MB", "9KB",
// "2GiB", "1TiB". KiB, MiB, GiB, TiB are powers of 1024; KB, MB, GB, TB
// powers of 1000; "B" alone means bytes. The result must be a whole
// number of bytes, zero or more, and at most 2^63-1 (what an int64
// holds, about 8 EiB; each field has its own limit below that).
func ParseSize(s string) (Size, error) {
	in := strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		unit   Size
	}{{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB}, {"TiB", TiB}, {"KB", KB}, {"MB", MB}, {"GB", GB}, {"TB", TB}, {"B", Byte}, {"", Byte}} {
		if !strings.HasSuffix(in, u.suffix) {
			continue
		}
		num := strings.TrimSpace(in[:len(in)-len(u.suffix)])
		v, err := exactDecimal(num, int64(u.unit))
		if err == sim.ErrRange {
			return 0, fmt.Errorf("size %q is too large; a size is at most %d bytes (just under 8388608TiB)", s, int64(math.MaxInt64))
		}
		if err != nil {
			break
		}
		return Size(v), nil
	}
	return 0, fmt.Errorf("size %q is not a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB = 1024-based; KB, MB, GB, TB = 1000-based)", s)
}

// exactDecimal returns num × unit when that is a whole number that fits
// in an int64 (sim.ScaleDecimal).
func exactDecimal(num string, unit int64) (int64, error) {
	if num == "" {
		return 0, sim.ErrSyntax
	}
	return sim.ScaleDecimal(num, unit)
}

// SerializationTime is how long size bytes take on the wire at rate r. The
// rounding rule, used everywhere: round up to the next whole picosecond, so
// that a link never carries more than its rate. At 100, 200, 400 and
// 800 Gb/s and 25, 40, 50 Gb/s every byte count is exact.
func SerializationTime(size int64, r Rate) sim.Time {
	if size <= 0 {
		return 0
	}
	// size × 8 × 10^12 / r, in 128-bit arithmetic so that large sizes
	// cannot overflow.
	hi, lo := bits.Mul64(uint64(size), 8_000_000_000_000)
	if hi >= uint64(r) {
		return sim.Never
	}
	q, rem := bits.Div64(hi, lo, uint64(r))
	if rem != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return sim.Never
	}
	return sim.Time(q)
}

// BytesIn is how many whole bytes rate r carries in d, rounded down.
func BytesIn(d sim.Time, r Rate) int64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(r))
	q, _ := bits.Div64(hi%8_000_000_000_000, lo, 8_000_000_000_000)
	return int64(q)
}

// InfiniBand link speeds by generation: the signalling rate of one lane
// and the data rate left after line encoding (8b/10b up to QDR, 64b/66b
// from FDR10 on; HDR and later signal PAM4 and carry their FEC in the
// line rate). A link is 1, 2, 4, 8 or 12 lanes wide; 4x is the width
// switches and HCAs use, and the default here. Sources: the InfiniBand
// Trade Association's roadmap and the IBTA specification, vol. 2 (the
// physical layer); the per-lane data rates are those the roadmap gives
// as SDR 2.5, DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100
// and XDR 200 Gb/s of signalling per 1x lane before encoding where it
// applies.
//
// FDR's data rate is 14.0625 Gbaud × 64/66 = 13.6363... Gb/s a lane; an
// integer Rate holds it rounded down to the bit per second.
var ibSpeeds = []struct {
	Name string
	// Lane is one lane's data rate after encoding, bits per second.
	Lane Rate
	// Signal describes the lane's signalling, for documentation.
	Signal string
}{
	{"SDR", 2 * Gbps, "2.5 Gbaud, 8b/10b"},
	{"DDR", 4 * Gbps, "5 Gbaud, 8b/10b"},
	{"QDR", 8 * Gbps, "10 Gbaud, 8b/10b"},
	{"FDR10", 10 * Gbps, "10.3125 Gbaud, 64b/66b"},
	{"FDR", 13_636_363_636, "14.0625 Gbaud, 64b/66b"},
	{"EDR", 25 * Gbps, "25.78125 Gbaud, 64b/66b"},
	{"HDR", 50 * Gbps, "26.5625 Gbaud PAM4 (53.125 Gb/s), 64b/66b with FEC"},
	{"NDR", 100 * Gbps, "53.125 Gbaud PAM4 (106.25 Gb/s), with FEC"},
	{"XDR", 200 * Gbps, "106.25 Gbaud PAM4 (212.5 Gb/s), with FEC"},
}

// ibWidths are the lane counts an InfiniBand link may have.
var ibWidths = []int{1, 2, 4, 8, 12}

// IBSpeedNames lists the generations ParseIBRate knows, oldest first.
func IBSpeedNames() []string {
	var out []string
	for _, s := range ibSpeeds {
		out = append(out, s.Name)
	}
	return out
}

// ParseIBRate reads an InfiniBand link speed by name: a generation
// (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR), optionally after a
// width (1x, 2x, 4x, 8x, 12x; 4x when none is given), as "EDR",
// "4xHDR" or "12xQDR" (any case). It returns the link's data rate after
// encoding: 4xEDR is 100 Gb/s, 4xHDR 200 Gb/s. ok is false when s is no
// such name.
func ParseIBRate(s string) (r Rate, ok bool, err error) {
	in := strings.ToUpper(strings.TrimSpace(s))
	width := 4
	if i := strings.IndexByte(in, 'X'); i > 0 && i < len(in)-1 {
		if w, err := strconv.Atoi(in[:i]); err == nil {
			found := false
			for _, x := range ibWidths {
				found = found || x == w
			}
			if !found {
				return 0, true, fmt.Errorf("width %dx: an InfiniBand link is 1x, 2x, 4x, 8x or 12x", w)
			}
			width, in = w, in[i+1:]
		}
	}
	for _, sp := range ibSpeeds {
		if in == sp.Name {
			return sp.Lane * Rate(width), true, nil
		}
	}
	return 0, false, nil
}
