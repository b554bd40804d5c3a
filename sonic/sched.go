package sonic

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Scheduling and marking: a port's queues' schedulers (QUEUE's scheduler,
// a SCHEDULER entry) and WRED profiles (QUEUE's wred_profile, a
// WRED_PROFILE entry), as SAI defines them (saischeduler.h, saiwred.h)
// and lfsim's switch.scheduler and switch.ecn take them.

// sched is a SCHEDULER entry a queue uses.
type sched struct {
	e      *entry
	strict bool
	weight int64
}

// schedulerOf reads the scheduler that ref's field names; queue says
// whether a queue's (a port's scheduler has no type or weight that lfsim
// could use).
func (r *reader) schedulerOf(ref *entry, field string, queue bool) *sched {
	name, at, _ := ref.field(field)
	name = refName(name, "SCHEDULER")
	key := fmt.Sprint(name, queue)
	if s, ok := r.scheds[key]; ok {
		return s
	}
	r.scheds[key] = nil
	e := r.entry("SCHEDULER", name)
	if e == nil {
		r.errorf(at, ref.where(), "%s: SCHEDULER has no scheduler %q", field, name)
		return nil
	}
	errs := r.nerr
	s := &sched{e: e}
	for _, f := range []string{"cir", "pir"} {
		if n, fat, ok := r.intField(e, f, 0, 1<<62); ok && n > 0 {
			what := "a queue's"
			if !queue {
				what = "a port's"
			}
			r.errorf(fat, e.where(), "%s: shaping (%s rate limit) is not modelled; lfsim's queues and ports send at their link's rate", f, what)
		}
	}
	if !queue {
		return s
	}
	typ, tat, given := e.field("type")
	switch {
	case !given:
		r.errorf(e.at, e.where(), "type: not given, so WRR (sonic-scheduler.yang's default): weighted round robin counting packets is not modelled; lfsim's weighted scheduler is DWRR, counting bytes: give type DWRR (the same shares while every packet is one size) or STRICT")
	case typ == "WRR":
		r.errorf(tat, e.where(), "type WRR: weighted round robin counting packets (saischeduler.h, SAI_SCHEDULING_TYPE_WRR) is not modelled; lfsim's weighted scheduler is DWRR, counting bytes: give DWRR (the same shares while every packet is one size)")
	case typ == "STRICT":
		s.strict = true
	case typ == "DWRR":
	default:
		r.errorf(tat, e.where(), "type: unknown scheduler type %q; SONiC's are DWRR, WRR and STRICT (sonic-scheduler.yang), of which lfsim models DWRR and STRICT", typ)
	}
	s.weight = 1 // sonic-scheduler.yang's default
	if w, _, ok := r.intField(e, "weight", 1, 100); ok {
		s.weight = w
	}
	if _, pat, ok := e.field("priority"); ok {
		r.errorf(pat, e.where(), "priority: an order among strict queues other than their numbers is not modelled; lfsim serves strict queues highest first")
	}
	if r.nerr > errs {
		return nil
	}
	r.scheds[key] = s
	return s
}

// schedule sets scheduler and ecn from the port's queues.
func (r *reader) schedule(o *portOut, pe *portEntries, c *class) {
	if q := c.qos; q != nil && q.fields["scheduler"] != nil {
		if s := r.schedulerOf(q, "scheduler", false); s != nil {
			_, at, _ := q.field("scheduler")
			r.warnf(at, q.where(), "scheduler: no effect: a port's scheduler (%s) without cir or pir weighs the port among others at the ASIC; lfsim's port sends at its link's rate", s.e.where())
		}
	}
	if r.tables["QUEUE"] == nil {
		return
	}
	var idx []int
	for qu := range pe.queue {
		idx = append(idx, qu)
	}
	sort.Ints(idx)
	for _, qu := range idx {
		if qu > 7 {
			e := pe.queue[qu]
			r.warnf(e.at, e.where(), "no effect: lfsim's ports have queues 0..7, one per priority, and no traffic class of the port goes to queue %d", qu)
		}
	}
	weights := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	var strict, unscheduled []int
	sum := int64(0)
	var first *entry
	for qu := range 8 {
		e := pe.queue[qu]
		if e == nil || e.fields["scheduler"] == nil {
			if c.reached[qu] || c.isLL[qu] {
				unscheduled = append(unscheduled, qu)
			}
			continue
		}
		s := r.schedulerOf(e, "scheduler", true)
		if s == nil {
			continue
		}
		if first == nil {
			first = e
		}
		if s.strict {
			strict = append(strict, qu)
			continue
		}
		weights.Content = append(weights.Content, intNode(int64(qu)), intNode(s.weight))
		sum += s.weight
	}
	if len(unscheduled) > 0 {
		r.warnf(r.tables["QUEUE"].at, "QUEUE", "gives queue%s %s of %s, which carr%s traffic, no scheduler: SAI leaves such a queue to the ASIC's default scheduler; lfsim serves it strict, before the weighted queues", plural(len(unscheduled)), ints(unscheduled), o.port, map[bool]string{true: "y", false: "ies"}[len(unscheduled) > 1])
	}
	if first != nil {
		_, at, _ := first.field("scheduler")
		from := first.where() + " scheduler"
		switch {
		case len(weights.Content) == 0:
			o.set("scheduler", scalar("strict"), from, at)
		default:
			// Weights summing to 100 are ETS's percentages (SONiC's
			// template: 5 queues of 14 and 2 of 15); else DWRR's weights.
			// lfsim serves both by DWRR, in the same shares.
			kind := "dwrr"
			if sum == 100 {
				kind = "ets"
			}
			n := flowMap(kind, weights)
			if len(strict) > 0 {
				n.Content = append(n.Content, scalar("strict"), intsNode(strict))
			}
			o.set("scheduler", n, from, at)
		}
	}
	r.marking(o, pe)
}

// wred is a WRED_PROFILE entry a queue uses.
type wred struct {
	e          *entry
	marks      bool // ECN-marks green packets
	kmin, kmax int64
	pct        int64
}

func (w *wred) same(o *wred) bool {
	return w.marks == o.marks && w.kmin == o.kmin && w.kmax == o.kmax && w.pct == o.pct
}

var ecnModes = map[string]bool{"ecn_none": false, "ecn_green": true, "ecn_yellow": false, "ecn_red": false,
	"ecn_green_yellow": true, "ecn_green_red": true, "ecn_yellow_red": false, "ecn_all": true}

// wredOf reads the WRED profile queue entry ref names.
func (r *reader) wredOf(ref *entry) *wred {
	name, at, _ := ref.field("wred_profile")
	name = refName(name, "WRED_PROFILE")
	if w, ok := r.wreds[name]; ok {
		return w
	}
	r.wreds[name] = nil
	e := r.entry("WRED_PROFILE", name)
	if e == nil {
		r.errorf(at, ref.where(), "wred_profile: WRED_PROFILE has no profile %q", name)
		return nil
	}
	errs := r.nerr
	w := &wred{e: e}
	mode, mat, _ := e.field("ecn")
	if mode == "" {
		mode = "ecn_none" // sonic-wred-profile.yang's default
	}
	marks, known := ecnModes[mode]
	if !known {
		r.errorf(mat, e.where(), "ecn: %q is not one of ecn_none, ecn_green, ecn_yellow, ecn_red, ecn_green_yellow, ecn_green_red, ecn_yellow_red, ecn_all (sonic-wred-profile.yang)", mode)
		return nil
	}
	enabled := map[string]bool{}
	for _, f := range []string{"wred_green_enable", "wred_yellow_enable", "wred_red_enable"} {
		v, fat, ok := e.field(f)
		if ok && v != "true" && v != "false" {
			r.errorf(fat, e.where(), "%s: expected true or false, found %q", f, v)
		}
		enabled[f] = v == "true"
	}
	w.marks = marks
	if marks {
		var okMin, okMax bool
		w.kmin, _, okMin = r.intField(e, "green_min_threshold", 0, maxBytes)
		w.kmax, _, okMax = r.intField(e, "green_max_threshold", 0, maxBytes)
		for i, f := range []string{"green_min_threshold", "green_max_threshold"} {
			if _, given := e.fields[f]; !given && ![]bool{okMin, okMax}[i] {
				r.errorf(e.at, e.where(), "%s: not given; marking green packets needs both thresholds, in bytes", f)
			}
		}
		if okMin && okMax && w.kmin > w.kmax {
			_, a, _ := e.field("green_min_threshold")
			r.errorf(a, e.where(), "green_min_threshold (%d) is above green_max_threshold (%d)", w.kmin, w.kmax)
		}
		w.pct = 100 // sonic-wred-profile.yang's default
		if p, _, ok := r.intField(e, "green_drop_probability", 0, 100); ok {
			w.pct = p
		}
	}
	if r.nerr > errs {
		return nil
	}
	switch {
	case !marks && enabled["wred_green_enable"]:
		r.errorf(mat, e.where(), "ecn %s with wred_green_enable: WRED dropping green packets without marking them is not modelled; lfsim's RED marks ECN (switch.ecn)", mode)
		return nil
	case !marks:
		r.warnf(mat, e.where(), "ecn %s: no effect: the profile marks and drops no green packet, and every packet in lfsim is green (no policer colours one): switch.ecn is off", mode)
	case enabled["wred_green_enable"]:
		_, gat, _ := e.field("wred_green_enable")
		r.warnf(gat, e.where(), "wred_green_enable: SONiC drops the packets that are not ECN-capable where it marks those that are; lfsim marks ECN-capable packets and drops none: the same while every packet is ECN-capable (an hca.cc that uses ECN)")
	}
	var colours []string
	for _, f := range e.order {
		if strings.HasPrefix(f, "yellow_") || strings.HasPrefix(f, "red_") || f == "wred_yellow_enable" || f == "wred_red_enable" {
			colours = append(colours, f)
		}
	}
	if len(colours) > 0 {
		r.warnf(e.at, e.where(), "%s: no effect: yellow and red packets are those a policer colours, and lfsim has none; every packet is green", strings.Join(colours, ", "))
	}
	r.wreds[name] = w
	return w
}

// marking sets ecn from the port's queues' WRED profiles: one profile
// for every queue that has one, marking only those queues' priorities.
func (r *reader) marking(o *portOut, pe *portEntries) {
	var w *wred
	var first *entry
	var marked []int
	for qu := range 8 {
		e := pe.queue[qu]
		if e == nil || e.fields["wred_profile"] == nil {
			continue
		}
		p := r.wredOf(e)
		if p == nil {
			continue
		}
		if w != nil && !w.same(p) {
			_, at, _ := e.field("wred_profile")
			r.errorf(at, e.where(), "wred_profile: queues of %s use different WRED profiles (%s, %s); lfsim's switch marks with one (switch.ecn)", o.port, w.e.key, p.e.key)
			continue
		}
		if w == nil {
			w, first = p, e
		}
		marked = append(marked, qu)
	}
	if w == nil || !w.marks {
		if len(pe.queue) > 0 {
			at, from := r.tables["QUEUE"].at, "QUEUE"
			if w != nil {
				_, at, _ = first.field("wred_profile")
				from = w.e.where() + " ecn"
			}
			o.set("ecn", scalar("off"), from, at)
		}
		return
	}
	// WRED decides on a packet as it joins the queue (Floyd and Jacobson,
	// 1993: RED computes on each arrival), on the queue's length itself
	// (saiwred.h, SAI_WRED_ATTR_WEIGHT, which SONiC does not set,
	// defaults to 0: no averaging).
	n := flowMap("kmin", intNode(w.kmin), "kmax", intNode(w.kmax),
		"pmax", scalar(fmt.Sprintf("%d%%", w.pct)), "mark", scalar("enqueue"))
	if len(marked) < 8 {
		n.Content = append(n.Content, scalar("priorities"), intsNode(marked))
	}
	_, at, _ := first.field("wred_profile")
	o.set("ecn", n, first.where()+" wred_profile", at)
}
