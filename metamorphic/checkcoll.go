package metamorphic

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The collectives' check (issue 48): collectives.csv has a row for every
// call the scenario makes, each row says what its status claims, and the
// scenario's collectives alone (CollectivesAlone), given the time, finish
// every call, or the run says why not.

// AloneStopNs is the stop of a scenario's collectives alone: far more
// than the largest drawn takes (a collective of 4 MiB over 16 ranks at
// 25 Gb/s five times, about 13 ms of all_reduce).
const AloneStopNs = 100_000_000

// hasCollectives says whether s has a collective or an nccl_tests item.
func (s *Spec) hasCollectives() bool {
	return slices.ContainsFunc(s.Traffic, func(it Item) bool { return collectiveKind(it.Kind) })
}

// CollectivesAlone is s with only its collectives and nccl_tests
// programs (their after: renumbered), no faults and no expectations,
// stopped when every call is done, at a deadlock, or at AloneStopNs.
func CollectivesAlone(s *Spec) *Spec {
	c := s.Clone()
	c.StopNs, c.When, c.Expect, c.Faults = AloneStopNs, []string{"flows-done", "deadlock"}, nil, nil
	for i := len(c.Traffic) - 1; i >= 0; i-- {
		if !collectiveKind(c.Traffic[i].Kind) {
			c.deleteItem(i)
		}
	}
	return c
}

// deleteItem takes traffic item i away, and with it every after: that
// names it; later items' indices move down by one.
func (s *Spec) deleteItem(i int) {
	s.Traffic = slices.Delete(s.Traffic, i, i+1)
	for k := range s.Traffic {
		it := &s.Traffic[k]
		var after []int
		for _, a := range it.After {
			switch {
			case a < i:
				after = append(after, a)
			case a > i:
				after = append(after, a-1)
			}
		}
		it.After = after
	}
}

// collectiveCalls is how many calls (collectives.csv's rows) s's
// collectives and nccl_tests programs make, as assembly queues them.
func (s *Spec) collectiveCalls() int {
	n := 0
	for _, it := range s.Traffic {
		switch it.Kind {
		case "collective":
			n += or(atoi(get(it.Opts, "iterations")), 1)
		case "nccl_tests":
			// nccl-tests' defaults where a key is not given (the
			// shrinker takes keys away): 32 MiB, 1 MiB steps, 20
			// iterations after 1 warm-up.
			lo, hi := sizeOr(it.Opts, "minbytes", 32<<20), sizeOr(it.Opts, "maxbytes", 32<<20)
			warm := 1
			if v, ok := Get(it.Opts, "warmup_iters"); ok {
				warm = atoi(v)
			}
			for size := lo; size <= hi; size *= 2 {
				n += warm
				if size == 0 {
					break
				}
			}
			factor, step := or(atoi(get(it.Opts, "stepfactor")), 1), sizeOr(it.Opts, "stepbytes", 1<<20)
			iters := or(atoi(get(it.Opts, "iters")), 20)
			for size := lo; size <= hi; {
				n += 2 * (1 + iters)
				next := size + step
				if factor > 1 {
					next = size * int64(factor)
				}
				if next <= size {
					break
				}
				size = next
			}
		}
	}
	return n
}

// sizeOr is key k's size, def when it is not given.
func sizeOr(kvs []KV, k string, def int64) int64 {
	if v, ok := Get(kvs, k); ok {
		return parseBytes(v)
	}
	return def
}

// collectiveBytes is about what s's collectives move: every call's size
// (a lower bound on what a rank sends or receives, within a factor of
// two, for all_reduce).
func (s *Spec) collectiveBytes() float64 {
	var sum float64
	for _, it := range s.Traffic {
		switch it.Kind {
		case "collective":
			sum += float64(sizeOr(it.Opts, "size", 0)) * float64(or(atoi(get(it.Opts, "iterations")), 1))
		case "nccl_tests":
			// Each call at least minbytes, or its largest size: the
			// calls times maxbytes is above it.
			one := Spec{Traffic: []Item{it}}
			sum += float64(one.collectiveCalls()) * float64(sizeOr(it.Opts, "maxbytes", 32<<20))
		}
	}
	return sum
}

// collectiveRow is what the check reads of a row of collectives.csv.
type collectiveRow struct {
	start, end, time int64
	status           string
	line             string
}

// collectiveRows reads collectives.csv's rows (nil when there is none).
func collectiveRows(b []byte) ([]collectiveRow, error) {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(b) == 0 {
		return nil, nil
	}
	// The columns by name (OUTPUTS.md), wherever they are.
	names := strings.Split(lines[0], ",")
	col := map[string]int{}
	for _, n := range []string{"id", "start_ns", "end_ns", "time_ns", "status"} {
		col[n] = slices.Index(names, n)
		if col[n] < 0 {
			return nil, fmt.Errorf("collectives.csv's header %q has no %s", lines[0], n)
		}
	}
	var rows []collectiveRow
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(names) || f[col["id"]] != strconv.Itoa(i) {
			return nil, fmt.Errorf("collectives.csv row %d: %q", i+1, l)
		}
		num := func(s string) int64 {
			n, _ := strconv.ParseInt(s, 10, 64)
			return n
		}
		rows = append(rows, collectiveRow{start: num(f[col["start_ns"]]), end: num(f[col["end_ns"]]), time: num(f[col["time_ns"]]), status: f[col["status"]], line: l})
	}
	return rows, nil
}

// collectives checks the base run's collectives.csv against s, and runs
// s's collectives alone: every call completes, unless the run found a
// deadlock, a rank's work request failed (summary.json's warnings
// name it), or packets were dropped (recovered by timeouts that may
// take longer than AloneStopNs).
func (c *Checker) collectives(s *Spec, base Outcome) *Failure {
	rows, err := collectiveRows(base.Files["collectives.csv"])
	if err != nil {
		return &Failure{Check: CheckCollectives, Detail: err.Error()}
	}
	if want := s.collectiveCalls(); len(rows) != want {
		return &Failure{Check: CheckCollectives, Detail: fmt.Sprintf("collectives.csv has %d calls, want %d (the scenario's collectives' iterations and nccl_tests' calls)", len(rows), want)}
	}
	completed := 0
	for i, r := range rows {
		switch r.status {
		case "completed":
			completed++
			if r.time != r.end-r.start || r.end > s.StopNs || r.start < 0 {
				return &Failure{Check: CheckCollectives, Detail: fmt.Sprintf("collectives.csv row %d: %q: its time is not its end less its start, or it ends after stop.at (%s)", i+1, r.line, Ns(s.StopNs))}
			}
		case "incomplete", "not_started", "failed":
		default:
			return &Failure{Check: CheckCollectives, Detail: fmt.Sprintf("collectives.csv row %d: %q: no such status", i+1, r.line)}
		}
	}
	if sum := base.Summary.Collectives; sum == nil || sum.Total != len(rows) || sum.Completed != completed {
		return &Failure{Check: CheckCollectives, Detail: fmt.Sprintf("summary.json's collectives %+v, collectives.csv %d calls, %d completed", sum, len(rows), completed)}
	}
	if s.collectiveBytes()*8 > bitsPerSecond("10Gbps")*AloneStopNs/1e9/8 {
		// More than an eighth of what 10 Gb/s carries in AloneStopNs
		// (the shrinker, taking an nccl_tests' minbytes away, leaves
		// nccl-tests' default of 32 MiB, 43 calls).
		c.AloneTooLarge++
		return nil
	}
	alone := CollectivesAlone(s)
	src := alone.Render(fmt.Sprintf("meta-%d-alone", s.Seed))
	o := c.Runner.Run(src, 1)
	switch {
	case o.Panic != "":
		return &Failure{Check: CheckPanic, Detail: "collectives alone: " + o.Panic, A: src}
	case o.Refused != nil:
		return &Failure{Check: CheckValid, Detail: "collectives alone: " + o.Refused.Error(), A: src}
	case !o.Summary.Conservation.OK:
		return &Failure{Check: CheckConservation, Detail: "collectives alone: " + strings.Join(o.Summary.Conservation.Errors, "; "), A: src}
	}
	c.Alone++
	i, r, why, err := unfinished(o)
	if err == nil && i >= 0 && why == "" && s.goBack0Reordered() {
		why = "go-back-0 on a fabric that reorders a QP's packets (spray, adaptive): a message starts over at each reordering"
	}
	if err == nil && i >= 0 && why == "" && stillMoving(c.Runner, src, o) {
		why = "slow, not stuck: more delivered by twice the time"
	}
	switch {
	case err != nil:
		return &Failure{Check: CheckCollectives, Detail: "collectives alone: " + err.Error(), A: src}
	case i < 0:
		return nil
	case why != "":
		if c.AloneExcused == nil {
			c.AloneExcused = map[string]int{}
		}
		c.AloneExcused[why]++
		return nil
	}
	return &Failure{Check: CheckCollectives, Detail: fmt.Sprintf("collectives alone: call %d is %s at %s (stopped by %s), with no deadlock, no failed work request and no drop: %q",
		i, r.status, Ns(AloneStopNs), o.Summary.StopReason, r.line), A: src,
		Relation: "the scenario's collectives alone, to the end: every call completes"}
}

// goBack0Reordered says whether s retransmits by go-back-0 on a fabric
// that sprays a QP's packets or routes each adaptively: the responder
// discards the partial message at the first packet out of order and the
// requester starts it over (early RoCE NICs; SCENARIO.md), so a message
// of many packets over several paths may never arrive whole. Seed
// 31004375: an all_to_all of 1,730 KiB over 4 GPUs of a rail-optimized
// fabric with two spines, sprayed, with nothing completed at 100 ms, and
// both calls done with ECMP or go-back-N. No defect: a configuration no
// message of many packets gets through, which the check cannot hold to
// completing.
func (s *Spec) goBack0Reordered() bool {
	lb := get(s.Switch, "load_balance")
	return get(s.HCA, "retransmit") == "go-back-0" && (lb == "spray" || lb == "adaptive")
}

// stillMoving says whether a run of collectives alone that left a call
// unfinished at AloneStopNs (o, of src) delivers more when run for twice
// as long: slow, not stuck. Seed 31002768: under TIMELY, an nccl_tests
// all_reduce's warm-up calls fell to 0.017 Gb/s of algbw (no drop, no
// resend) and its tenth call took 236 ms, done at 273 ms; a call that
// never ends delivers nothing more.
func stillMoving(r *Runner, src string, o Outcome) bool {
	longer := strings.Replace(src, "stop: {at: "+Ns(AloneStopNs), "stop: {at: "+Ns(2*AloneStopNs), 1)
	if longer == src {
		return false
	}
	l := r.Run(longer, 1)
	return l.Panic == "" && l.Refused == nil && l.Summary.Bytes.Delivered > o.Summary.Bytes.Delivered
}

// unfinished finds the first call of a run of collectives alone that did
// not complete (i -1 when every one did), and what excuses it: a
// deadlock, a failed work request, or drops ("" for nothing).
func unfinished(o Outcome) (i int, r collectiveRow, why string, err error) {
	rows, err := collectiveRows(o.Files["collectives.csv"])
	if err != nil {
		return -1, r, "", err
	}
	for i, r := range rows {
		if r.status == "completed" {
			continue
		}
		why := ""
		switch {
		case o.Summary.Deadlock.Detected:
			why = "a deadlock"
		case r.status == "failed" || bytes.Contains(o.Files["summary.json"], []byte("a work request of traffic[")):
			why = "a failed work request"
		case o.Summary.Packets.Dropped > 0:
			// An RC requester finds a lost tail by its ack timeout: at
			// the default ack_timeout (14), 4.096 us × 2^14 = 67 ms
			// each (seed 30000054: a PFC watchdog's drops, the call done
			// at 134 ms).
			why = "packets dropped (RC recovers a lost tail by its ack timeout, 67 ms by default)"
		}
		return i, r, why, nil
	}
	return -1, r, "", nil
}
