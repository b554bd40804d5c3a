package main

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// labNumber is a figure in a claim's text: a number (thousands with
// commas) not part of a name (h0, s1), and the unit after it, if any.
var labNumber = regexp.MustCompile(`(?:^|[^\w.])(\d[\d,]*(?:\.\d+)?)\s*(ms|µs|us|ns|KB|MB|%|million)?`)

// labUnit is what one of a text's units is in summary.json's units (time
// in ns, bytes, fractions).
var labUnit = map[string]float64{"": 1, "ms": 1e6, "µs": 1e3, "us": 1e3, "ns": 1, "KB": 1e3, "MB": 1e6, "%": 0.01, "million": 1e6}

// textHolds says whether one of the figures text quotes is want, read at
// the text's rounding (half a unit of its last digit): a claim's want is
// typed beside its text, and nothing else ties the two. A figure without
// a unit is read as a bare number and in each unit the text gives another
// figure ("3.4 ms against 2.7", "542 of 662 µs").
func textHolds(text string, want float64) (found bool, ok bool) {
	figures := labNumber.FindAllStringSubmatch(text, -1)
	for _, m := range figures {
		digits := strings.ReplaceAll(m[1], ",", "")
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil {
			continue
		}
		found = true
		places := 0
		if _, frac, dot := strings.Cut(digits, "."); dot {
			places = len(frac)
		}
		units := []string{m[2]}
		if m[2] == "" {
			for _, other := range figures {
				units = append(units, other[2])
			}
		}
		for _, u := range units {
			f := labUnit[u]
			if math.Abs(v*f-want) <= 0.5*math.Pow(10, -float64(places))*f*(1+1e-9) {
				return true, true
			}
		}
	}
	return found, false
}

// TestLabClaimsAgreeWithTheirText: each claim's want is a figure its own
// text quotes, at the text's rounding (review E, finding 7: a claim whose
// want disagreed with its text passed as long as the text was in the
// README and the run gave want). Claims of a line of a file carry the
// line itself, claims of a string (a deadlock's cycle) the string, and
// claims in words ("about three quarters") quote no number to check. No
// run: the usual tier.
func TestLabClaimsAgreeWithTheirText(t *testing.T) {
	checked := 0
	for _, lab := range slices.Sorted(maps.Keys(labClaims)) {
		for _, c := range labClaims[lab] {
			if c.file != "" || c.line != "" {
				continue
			}
			found, ok := textHolds(c.text, c.want)
			switch {
			case !found:
			case !ok:
				t.Errorf("%s: claim %q wants %g at %s, which its text does not say", lab, c.text, c.want, c.json)
			default:
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no claim checked")
	}
	t.Logf("%d claims' figures checked against their text", checked)
	// The check can fail: a want that is not the text's figure.
	for _, c := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"`lax` 382 KB", 382e3, true},
		{"`lax` 382 KB", 383e3, false},
		{"p99 FCT is 12.76 ms", 12.764e6, true},
		{"p99 FCT is 12.76 ms", 12.77e6, false},
		{"3,161 of the 3,183 UD datagrams", 3183, true},
		{"paused 86% of the run", 0.86, true},
		{"paused 86% of the run", 0.87, false},
		{"(3.4 ms against 2.7)", 2.7e6, true},
		{"(3.4 ms against 2.7)", 2.8e6, false},
		{"542 of 662 µs, 82%", 542e3, true},
		{"542 of 662 µs, 82%", 543e3, false},
		{"about 1.7 million sprayed", 1.7e6, true},
		{"about 1.7 million sprayed", 1.8e6, false},
	} {
		if _, ok := textHolds(c.text, c.want); ok != c.ok {
			t.Errorf("textHolds(%q, %g) = %v, want %v", c.text, c.want, ok, c.ok)
		}
	}
}
