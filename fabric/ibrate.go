package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

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
