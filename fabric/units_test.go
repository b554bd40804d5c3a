package fabric

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
	}{
		{"100Gbps", 100 * Gbps},
		{"100Gb/s", 100 * Gbps},
		{"400G", 400 * Gbps},
		{"25Mbps", 25 * Mbps},
		{"1.5Tbps", 1500 * Gbps},
		{"5Mbps", 5 * Mbps},
		{"40 Gbps", 40 * Gbps},
		{"10gbps", 10 * Gbps},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("round trip %v via %q: %v %v", got, got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "100", "100 furlongs", "-1Gbps", "0Gbps", "Gbps", "1.0000000000001Kbps"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q): want error", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
	}{
		{"64", 64},
		{"4KiB", 4096},
		{"1MiB", 1 << 20},
		{"1.5MB", 1_500_000},
		{"96KiB", 96 * 1024},
		{"0", 0},
		{"12B", 12},
		{"2GiB", 2 << 30},
		{"1.5KiB", 1536}, // a fraction of a binary unit that is still whole bytes
		{"0.5MiB", 512 * 1024},
		{"1.25KB", 1250},
		{"1TiB", 1 << 40},
		{"1.5TiB", 3 << 39},
		{"2TB", 2_000_000_000_000},
		{"8388607TiB", 8388607 << 40},
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "1.5", "4 KiBs", "-3", "0.5KB0", "1.0001KB", "10Gbps"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): want error", bad)
		}
	}
}

// TestParseSizeTooLarge: TiB and TB are units (1TiB said "not a whole
// number of bytes"); a size past what an int64 holds says it is too large
// and gives the maximum, where it said it was not a whole number.
func TestParseSizeTooLarge(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"8388608TiB", `size "8388608TiB" is too large; a size is at most 9223372036854775807 bytes (just under 8388608TiB)`},
		{"9223372036854775808", `size "9223372036854775808" is too large; a size is at most 9223372036854775807 bytes`},
		{"1PiB", `size "1PiB" is not a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB = 1024-based; KB, MB, GB, TB = 1000-based)`},
	} {
		if _, err := ParseSize(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSize(%q): got %v, want %q", c.in, err, c.want)
		}
	}
	if s := (3 * TiB).String(); s != "3TiB" {
		t.Errorf("3 TiB prints as %s", s)
	}
}

func TestSerializationTime(t *testing.T) {
	for _, tc := range []struct {
		bytes int64
		rate  Rate
		want  sim.Time
	}{
		{1, 800 * Gbps, 10},        // DESIGN.md: 1 B at 800 Gb/s is 10 ps
		{4178, 100 * Gbps, 334240}, // one 4096-byte RoCEv2 packet at 100 Gb/s
		{84, 100 * Gbps, 6720},     // a PFC frame with preamble and gap
		{1, 3 * Gbps, 2667},        // 2666.67 ps rounds up
		{0, Gbps, 0},
		{1 << 40, 100 * Gbps, 87960930222080},
	} {
		if got := SerializationTime(tc.bytes, tc.rate); got != tc.want {
			t.Errorf("SerializationTime(%d, %v) = %d; want %d", tc.bytes, tc.rate, got, tc.want)
		}
	}
	if got := BytesIn(sim.Microsecond, 100*Gbps); got != 12500 {
		t.Errorf("BytesIn(1us, 100Gbps) = %d; want 12500", got)
	}
}
