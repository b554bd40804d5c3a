package metamorphic

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The checks, by name. A failure names one; the shrinker keeps a
// scenario only while the same check fails on it.
const (
	CheckValid        = "valid"        // the loader and builder take the scenario
	CheckPanic        = "panic"        // no panic in building or running
	CheckWorkers      = "workers"      // the same bytes at 1, 2 and 3 workers
	CheckConservation = "conservation" // summary.json's conservation balances
	CheckLinear       = "linear"       // events(4L) <= LinearFactor × 4 × events(L)
	CheckObservers    = "observers"    // observers on or off: the same flows.csv
	CheckRelabel      = "relabel"      // hosts relabelled: outputs that map onto each other
	CheckCollectives  = "collectives"  // collectives.csv's calls, and every call done given the time
)

// Checks are the checks in the order Check runs them.
var Checks = []string{CheckValid, CheckPanic, CheckConservation, CheckCollectives, CheckWorkers, CheckObservers, CheckRelabel, CheckLinear}

// LinearFactor and PerHopFactor are the linearity relation's factors,
// for the steady variant of a scenario (Steady) run for L and for 4L
// (SteadyStop):
//
//	events(4L) <= LinearFactor × 4 × (events(L) + StartEvents)
//	events(4L) / hops(4L) <= PerHopFactor × events(L) / hops(L)   (when hops(L) >= MinHops)
//
// With every source busy from the start and a fixed number of them, the
// events per microsecond are bounded above by the links' packet rates; L
// is long enough for the first packets to cross the fabric and come back
// (SteadyStop). What is left are the changes of a run's rates, which go
// both ways: flows that all start at line rate fill a bottleneck and PFC
// stalls them for tens of microseconds before congestion control cuts
// them; congestion control then gives a link's share to flows of smaller
// packets (more events for the same bytes), or takes it away. Over 4,000
// generated scenarios (seeds 60000 to 63999) the first ratio,
// events(4L) / (4 (events(L) + StartEvents)), was at most 1.57 (seed
// 60939), and the second at most 1.18 (seed 60543); TestMetamorphic
// prints each campaign's largest with its seed. LinearFactor = 2.5 and
// PerHopFactor = 1.5 leave a margin over them. Scenarios with a
// bottleneck slower than the links that feed it (bottleneck) are held to
// the second only: the start's burst, every source at line rate, fills
// the buffers and PFC stalls the fabric until the bottleneck has drained
// them, which takes as long as the buffers are large and the bottleneck
// slow, not a round trip (seed 105865: 400 Gb/s hosts behind a 25 Gb/s
// uplink under DCQCN stall until 82 us, and then run 22 times as many
// events in 220 us as in 55 us, 3.0 events a hop throughout). So are
// iWARP and DCTCP: their windows grow by one segment per round trip
// after a cut (and iWARP's TCP slow-starts first), so their rates may
// grow over the whole of 4L while each packet costs the same events (up
// to 2.6 times 4× was measured on iWARP; 1.90 for a DCTCP incast at
// 400 Gb/s recovering over 75 us, seed 81249, with 2.95 events a hop
// throughout). So is every congestion control that cuts a rate and
// raises it again (DCQCN, HPCC, TIMELY, DCTCP, IB CC): DCQCN raises its
// rate at most every 55 us (its timer, Zhu et al. SIGCOMM 2015), past L.
// Seed 7007661: a 400 Gb/s leaf-spine under DCQCN with ECN at 5 KiB,
// whose first 25 us held 130 marks, ran 15.7 times the packet hops in
// 100 us as in 25 us (3.73 times 4× the events) at 3.26 and 3.47 events
// a hop: more work, each packet costing the same. The first inequality
// holds the scenarios without congestion control (PFC or credits only:
// about half).
// A cost that grows with time passes one or the other within a few
// multiples of L: events that grow as t² make the first ratio tend to 4
// (TestMetamorphicCatches: 3.96), and timers that come more often per
// packet make the second grow as the first does. Variants that let a
// backlog grow (a poisson generator offering a receiver more than it
// takes, whose waiting flows each keep timers) reached 1.99 and 1.44:
// Steady keeps the number of sources fixed for that reason.
const (
	LinearFactor = 2.5
	PerHopFactor = 1.5
)

// StartEvents is what a run does whatever its length (its QPs' set-up,
// its programs' start, its last samples): a few hundred events in the
// smallest generated scenarios, which the first inequality allows for so
// that a run with little to do is not held to a ratio of small counts.
// MinHops is the least work (packet hops in L) for which events per hop
// say something.
const (
	StartEvents = 1000
	MinHops     = 1000
)

// Failure is a check that failed on a scenario.
type Failure struct {
	Check string
	// Detail says what failed: the panic, the file that differs and
	// where, the conservation errors, the counts.
	Detail string
	// Known names the known defect (knownDefect) that explains it, if
	// one does; such a failure is counted, not reported.
	Known string
	// A and B are the files of the runs compared (B empty for a check of
	// one scenario), Relation what holds between them.
	A, B     string
	Relation string
	// Names maps a's names to b's (relabel).
	Names map[string]string
	// Rerun is the only argument of Check that runs what failed again
	// (a panic in a relation's variant is found by that relation's runs).
	Rerun string
}

func (f *Failure) String() string {
	s := f.Check + ": " + f.Detail
	if f.Known != "" {
		s += " [known defect: " + f.Known + "]"
	}
	return s
}

// Checker runs the checks.
type Checker struct {
	Runner *Runner
	// Workers are the worker counts compared with one (2 and 3).
	Workers []int
	// Ratios are the linearity relation's events(4L)/(4 events(L)), one
	// per scenario it ran on (but those bottleneck, iWARP and DCTCP
	// leave out), HopRatios its events per
	// packet hop at 4L over those at L; Relabelled counts the scenarios the
	// relabelling relation ran on, Serial those that ran on one worker
	// whatever was asked.
	Ratios    []float64
	HopRatios []float64
	// Largest and LargestPerHop are the seeds of the largest of each.
	Largest, LargestPerHop uint64
	Relabelled             int
	// FloodedNotRelabelled counts the scenarios relabelled whose runs
	// flooded, so not compared (relabel.go).
	FloodedNotRelabelled int
	Serial               int
	// Alone counts the scenarios whose collectives ran alone to their
	// end (CollectivesAlone), AloneExcused those of them with a call
	// unfinished, by why (a deadlock, a failed work request).
	Alone        int
	AloneExcused map[string]int
	// AloneTooLarge counts the scenarios whose collectives were too large
	// to run alone to their end (collectiveBytes).
	AloneTooLarge int
}

// Check runs every check (only, when not empty: that one) on s and
// returns what failed. A scenario the loader refuses, or that panics on
// one worker, is checked no further.
func (c *Checker) Check(s *Spec, only string) []Failure {
	do := func(check string) bool { return only == "" || only == check }
	var fails []Failure
	phase := "" // the run under way: its failures are found again by Check(s, phase)
	fail := func(f Failure) {
		f.Known = knownDefect(s, f.Check)
		f.Rerun = pick(phase == "", f.Check, phase)
		fails = append(fails, f)
	}
	src := s.Render(fmt.Sprintf("meta-%d", s.Seed))
	needBase := only != CheckLinear
	var one Outcome
	if needBase {
		one = c.Runner.Run(src, 1)
		if one.Refused != nil {
			fail(Failure{Check: CheckValid, Detail: one.Refused.Error(), A: src})
			return fails
		}
		if one.Panic != "" {
			fail(Failure{Check: CheckPanic, Detail: "1 worker: " + one.Panic, A: src})
			return fails
		}
		if do(CheckConservation) && !one.Summary.Conservation.OK {
			fail(Failure{Check: CheckConservation, Detail: strings.Join(one.Summary.Conservation.Errors, "; "), A: src})
		}
		if do(CheckCollectives) && s.hasCollectives() {
			phase = CheckCollectives
			if f := c.collectives(s, one); f != nil {
				if f.A == "" {
					f.A = src
				}
				fail(*f)
			}
			phase = ""
		}
	}
	if do(CheckWorkers) || do(CheckPanic) {
		phase = CheckWorkers
		for _, w := range c.Workers {
			o := c.Runner.Run(src, w)
			if o.Panic != "" {
				fail(Failure{Check: CheckPanic, Detail: fmt.Sprintf("%d workers: %s", w, o.Panic), A: src})
				break
			}
			if d := diffFiles(o.Files, one.Files, nil); d != "" && do(CheckWorkers) {
				fail(Failure{Check: CheckWorkers, Detail: fmt.Sprintf("%d workers against 1: %s", w, d), A: src, Relation: fmt.Sprintf("run at 1 and %d workers: the same bytes", w)})
				break
			}
			if o.Serial != "" {
				c.Serial++ // every worker count runs the one engine
				break
			}
		}
	}
	if do(CheckObservers) {
		phase = CheckObservers
		off := ObserversOff(s).Render(fmt.Sprintf("meta-%d", s.Seed))
		o := c.Runner.Run(off, 1)
		switch {
		case o.Panic != "":
			fail(Failure{Check: CheckPanic, Detail: "observers off: " + o.Panic, A: off})
		case o.Refused != nil:
			fail(Failure{Check: CheckValid, Detail: "observers off: " + o.Refused.Error(), A: off})
		case !bytes.Equal(o.Files["flows.csv"], one.Files["flows.csv"]):
			fail(Failure{Check: CheckObservers, Detail: "flows.csv: " + firstDiff(one.Files["flows.csv"], o.Files["flows.csv"]), A: src, B: off,
				Relation: "observers on (a) and off (b): the same flows.csv"})
		case !s.has("nccl_tests") && !bytes.Equal(o.Files["collectives.csv"], one.Files["collectives.csv"]):
			// nccl_tests' barriers are released at observation points,
			// which observers off moves; a collective's calls are not.
			fail(Failure{Check: CheckObservers, Detail: "collectives.csv: " + firstDiff(one.Files["collectives.csv"], o.Files["collectives.csv"]), A: src, B: off,
				Relation: "observers on (a) and off (b): the same collectives.csv"})
		}
	}
	if do(CheckRelabel) {
		phase = CheckRelabel
		if f := c.relabel(s, one); f != nil {
			fail(*f)
		}
	}
	if do(CheckLinear) {
		phase = CheckLinear
		if f := c.linear(s); f != nil {
			fail(*f)
		}
	}
	return fails
}

// linear runs the steady variant of s for L and 4L.
func (c *Checker) linear(s *Spec) *Failure {
	l := SteadyStop(s)
	short := Steady(s, l).Render(fmt.Sprintf("meta-%d-steady", s.Seed))
	long := Steady(s, 4*l).Render(fmt.Sprintf("meta-%d-steady", s.Seed))
	a := c.Runner.Run(short, 1)
	if a.Panic != "" || a.Refused != nil {
		return &Failure{Check: pick(a.Panic != "", CheckPanic, CheckValid), Detail: "steady variant: " + a.Panic + errText(a.Refused), A: short}
	}
	b := c.Runner.Run(long, 1)
	if b.Panic != "" || b.Refused != nil {
		return &Failure{Check: pick(b.Panic != "", CheckPanic, CheckValid), Detail: "steady variant at 4L: " + b.Panic + errText(b.Refused), A: long}
	}
	ea, eb := a.Summary.Events, b.Summary.Events
	ha, hb := a.Summary.PacketHops, b.Summary.PacketHops
	rel := fmt.Sprintf("events(b) <= %.1f × 4 × (events(a) + %d), and events(b)/hops(b) <= %.1f × events(a)/hops(a)", LinearFactor, StartEvents, PerHopFactor)
	if ha >= MinHops && !s.scaleUp() {
		perHop := (float64(eb) / float64(max(hb, 1))) / (float64(ea) / float64(ha))
		c.HopRatios = append(c.HopRatios, perHop)
		if perHop >= slices.Max(c.HopRatios) {
			c.LargestPerHop = s.Seed
		}
		if perHop > PerHopFactor {
			return &Failure{Check: CheckLinear, Detail: fmt.Sprintf("%d events for %d packet hops in %s, %d for %d in %s: %.2f times the events per hop, more than %.1f",
				ea, ha, Ns(l), eb, hb, Ns(4*l), perHop, PerHopFactor), A: short, B: long, Relation: rel}
		}
	}
	switch {
	case s.Transport == "iwarp":
		return nil // a window that grows a segment a round trip: rates grow for the whole run
	case or(get(s.HCA, "cc"), "none") != "none":
		return nil // a rate cut early and raised over tens of microseconds: rates grow past L
	case s.bottleneck():
		return nil // the start's burst stalls the fabric until the bottleneck drains it
	case s.hasCollectives():
		// A collective pays NCCL's base latency and a step latency per
		// step (8.4 and 14 us on Simple) and fills its pipeline a step
		// of up to 512 KiB at a time, rank after rank: its rates grow
		// past L (seed 31000790: a broadcast over 4 GPUs of two servers
		// at 200 Gb/s with 256-byte packets, 331 packet hops in its
		// first 25 us, 466 a microsecond from 100 us on, 3.0 events a
		// hop throughout).
		return nil
	}
	ratio := float64(eb) / (4 * float64(ea+StartEvents))
	c.Ratios = append(c.Ratios, ratio)
	if ratio >= slices.Max(c.Ratios) {
		c.Largest = s.Seed
	}
	if ratio > LinearFactor {
		return &Failure{Check: CheckLinear, Detail: fmt.Sprintf("%d events in %s, %d in %s: %.2f times 4 × (%d + %d), more than %.1f", ea, Ns(l), eb, Ns(4*l), ratio, ea, StartEvents, LinearFactor),
			A: short, B: long, Relation: rel}
	}
	return nil
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// diffFiles says where the files got differ from want ("" when they are
// the same), renaming got's file names by rename when it is not nil.
func diffFiles(got, want map[string][]byte, rename func(string) string) string {
	names := slices.Sorted(maps.Keys(want))
	gotNames := map[string]bool{}
	for name := range got {
		if rename != nil {
			name = rename(name)
		}
		gotNames[name] = true
	}
	var out []string
	for _, name := range names {
		if !gotNames[name] {
			out = append(out, name+" is missing")
		}
	}
	for name := range gotNames {
		if _, ok := want[name]; !ok {
			out = append(out, name+" is extra")
		}
	}
	slices.Sort(out)
	if len(out) > 0 {
		return strings.Join(out, "; ")
	}
	for name, b := range got {
		if rename != nil {
			name = rename(name)
		}
		if !bytes.Equal(b, want[name]) {
			out = append(out, name+": "+firstDiff(want[name], b))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// firstDiff shows the first line where got differs from want.
func firstDiff(want, got []byte) string {
	lw, lg := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := range max(len(lw), len(lg)) {
		var x, y []byte
		if i < len(lw) {
			x = lw[i]
		}
		if i < len(lg) {
			y = lg[i]
		}
		if !bytes.Equal(x, y) {
			return fmt.Sprintf("line %d is %q, want %q", i+1, clip(y), clip(x))
		}
	}
	return "(equal)"
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(b[:200:200], "..."...)
	}
	return b
}

// scaleUp says whether s has collectives on GPU servers: their steps
// between GPUs of one server are transfers of its scale-up domain,
// events without packet hops, which go on at NVLink's rate while the
// network's hops wait (seed 30000399: an all_to_all on two servers
// behind a slow receiver, 2.64 times the events per hop at 4L, all of
// them NVLink's), so the events per hop say nothing of the cost per
// event there.
func (s *Spec) scaleUp() bool { return s.Topo.HasServers() && s.hasCollectives() }

// bottleneck says whether some link or NIC of s is slower than the links
// that feed it: a fabric link slower than the hosts' (a dumbbell's
// bottleneck, a leaf-spine's fabric links, an explicit topology's links
// between switches), or a receiver slower than its link (hca.rx_rate, a
// slow-receiver fault).
func (s *Spec) bottleneck() bool {
	t := &s.Topo
	if t.Rate2 != "" && bitsPerSecond(t.Rate2) < bitsPerSecond(t.Rate) {
		return true
	}
	if v := get(s.HCA, "rx_rate"); v != "" && v != "line" && bitsPerSecond(v) < bitsPerSecond(t.Rate) {
		return true
	}
	for _, f := range s.Faults {
		if f.Action == "slow-receiver" {
			return true
		}
	}
	return false
}
