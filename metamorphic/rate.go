package metamorphic

import (
	"fmt"
	"strconv"
	"strings"
)

// bitsPerSecond reads a link rate as the generator writes it: Ethernet's
// (100Gbps, 100Gb/s, 100G) or an InfiniBand speed by name (EDR, 4xHDR).
func bitsPerSecond(rate string) float64 {
	lane := map[string]float64{"SDR": 2, "DDR": 4, "QDR": 8, "FDR10": 10, "FDR": 13.64, "EDR": 25, "HDR": 50, "NDR": 100, "XDR": 200}
	width, name := 4.0, rate
	if i := strings.Index(rate, "x"); i > 0 {
		w, err := strconv.ParseFloat(rate[:i], 64)
		if err == nil {
			width, name = w, rate[i+1:]
		}
	}
	if g, ok := lane[name]; ok {
		return width * g * 1e9
	}
	num := strings.TrimRight(rate, "Gbps/")
	g, err := strconv.ParseFloat(num, 64)
	if err != nil {
		panic("metamorphic: a rate the generator does not write: " + rate)
	}
	return g * 1e9
}

// flowsPerHost is how many flows per host a poisson generator may make
// in a run: SCENARIO.md's poisson makes a flow per mean size × 8 / (load ×
// rate), and many thousand small flows make a run slow (each flow is a
// QP pair) without testing more.
const flowsPerHost = 200

// capLoad is load (a fraction), lowered so that flows of mean size mean
// bytes on a link of rate bits per second make at most flowsPerHost in
// durNs.
func capLoad(load, mean, rate float64, durNs int64) float64 {
	most := flowsPerHost * mean * 8 / (rate * float64(durNs) * 1e-9)
	return min(load, most)
}

// percent writes a fraction as a percentage, as people write loads.
func percent(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 3, 64) + "%"
}

// distMeans are the published flow-size distributions' mean sizes in
// bytes (scenario/data/flowsize/README.md; alistorage2019 and
// googlerpc2008 computed from their files the same way).
var distMeans = map[string]float64{"websearch": 1711250, "hadoop": 120421, "alistorage2019": 40869, "googlerpc2008": 2891}

// meanSize is the mean flow size of a poisson sizes: value.
func meanSize(sizes string) float64 {
	if m, ok := distMeans[sizes]; ok {
		return m
	}
	return float64(parseBytes(sizes))
}

// parseBytes reads a size as Bytes writes it.
func parseBytes(v string) int64 {
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			x, _ := strconv.ParseInt(n, 10, 64)
			return x * u.n
		}
	}
	x, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("metamorphic: a size the generator does not write: %q", v))
	}
	return x
}

// parseLoad reads a load as the generator writes it (50%, 0.5).
func parseLoad(v string) float64 {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		x, _ := strconv.ParseFloat(p, 64)
		return x / 100
	}
	x, _ := strconv.ParseFloat(v, 64)
	return x
}
