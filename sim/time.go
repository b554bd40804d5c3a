// Package sim is lfsim's discrete-event core: simulated time in integer
// picoseconds, the event queue and run loop, deterministic random streams
// and progress callbacks. It imports nothing else of lfsim's.
package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Time is simulated time in integer picoseconds. At 800 Gb/s one byte takes
// 10 ps, so picoseconds keep every serialization time exact; an int64 holds
// about 106 days of simulated time.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	// Never is later than any time a run reaches.
	Never Time = math.MaxInt64
)

// Nanoseconds returns t in whole nanoseconds, rounded toward zero.
func (t Time) Nanoseconds() int64 { return int64(t / Nanosecond) }

// Seconds returns t in seconds as a float, for reports only.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

var timeUnits = []struct {
	suffix string
	unit   Time
}{
	// Longest suffixes first so that "ms" is not read as "s".
	{"ps", Picosecond},
	{"ns", Nanosecond},
	{"us", Microsecond},
	{"µs", Microsecond},
	{"μs", Microsecond}, // Greek mu, as some keyboards type it
	{"ms", Millisecond},
	{"s", Second},
}

// ParseTime reads a duration such as "500ns", "2us", "2µs", "1.5ms", "1s" or
// "0". A number other than zero needs a unit; the value must be a whole
// number of picoseconds and not negative.
func ParseTime(s string) (Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty time; expected a duration such as 500ns, 2us, 1.5ms")
	}
	for _, u := range timeUnits {
		if !strings.HasSuffix(s, u.suffix) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(s, u.suffix))
		return scaleDecimal(num, int64(u.unit), s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && v == 0 {
		return 0, nil
	}
	if err != nil {
		if i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789.+- ", r) }); i > 0 {
			return 0, fmt.Errorf("time %q has an unknown unit %q; expected ps, ns, us, µs, ms or s, as in 500ns, 2us, 1.5ms", s, strings.TrimSpace(s[i:]))
		}
	}
	return 0, fmt.Errorf("time %q has no unit; expected a duration such as 500ns, 2us, 2µs, 1.5ms or 1s", s)
}

// scaleDecimal reads num × unit picoseconds, with time's messages.
func scaleDecimal(num string, unit int64, whole string) (Time, error) {
	v, err := ScaleDecimal(num, unit)
	switch err {
	case nil:
		return Time(v), nil
	case ErrNegative:
		return 0, fmt.Errorf("time %q is negative; expected zero or more", whole)
	case ErrRange:
		return 0, fmt.Errorf("time %q is too large", whole)
	case ErrNotWhole:
		return 0, fmt.Errorf("time %q is finer than one picosecond", whole)
	}
	return 0, fmt.Errorf("time %q is not a number followed by a unit (ps, ns, us, µs, ms, s)", whole)
}

// printUnits are the units String and Short print in, largest first
// (picoseconds are the fallback).
var printUnits = []struct {
	name string
	unit Time
}{{"s", Second}, {"ms", Millisecond}, {"us", Microsecond}, {"ns", Nanosecond}}

// String prints t with the largest unit that keeps it short and exact to
// three decimals, e.g. "1.5us", "10ms", "0", "1234ps".
func (t Time) String() string {
	if t == 0 {
		return "0"
	}
	if t == Never {
		return "never"
	}
	neg := ""
	if t < 0 {
		neg, t = "-", -t
	}
	for _, u := range printUnits {
		if t >= u.unit && t%(u.unit/1000) == 0 {
			whole, rest := t/u.unit, t%u.unit
			if rest == 0 {
				return fmt.Sprintf("%s%d%s", neg, whole, u.name)
			}
			fr := strings.TrimRight(fmt.Sprintf("%03d", rest/(u.unit/1000)), "0")
			return fmt.Sprintf("%s%d.%s%s", neg, whole, fr, u.name)
		}
	}
	return fmt.Sprintf("%s%dps", neg, int64(t))
}

// Short prints t rounded to about four significant digits in the largest
// fitting unit, for people: "2.743ms", "18.75ms", "500ns".
func (t Time) Short() string {
	if t == 0 {
		return "0"
	}
	neg := ""
	if t < 0 {
		neg, t = "-", -t
	}
	for _, u := range printUnits {
		if t >= u.unit {
			v := float64(t) / float64(u.unit)
			s := strconv.FormatFloat(v, 'f', max(0, 3-int(math.Log10(v))), 64)
			if strings.Contains(s, ".") {
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			}
			return neg + s + u.name
		}
	}
	return fmt.Sprintf("%s%dps", neg, int64(t))
}
