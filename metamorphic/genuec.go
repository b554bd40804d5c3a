package metamorphic

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/kind"
)

// Issue 53's Ultra Ethernet: its link layer on Ethernet switches
// (switch.cbfc, switch.trim, switch.llr) and its transport
// (hca.transport: uet, with hca.uet's cc and spray and NSCC's keys),
// each drawn within what SCENARIO.md's "Ultra Ethernet's link layer"
// and resolve/uec.go and resolve/uet.go refuse: none of them on
// InfiniBand or a mixed network; cbfc without switch.pfc and without
// trust: dscp; trim not with cbfc, nor where priority 7's traffic class
// has a scheduler weight (priority 7 is never lossless here: PFC's
// priorities are drawn from 0, 3 and 4); llr with no fault that cuts a
// link; UET without overlays, captures or atomics, and not with
// go-back-0 (its direct placement).

// uet says the transport is Ultra Ethernet's.
func (g *gen) uet() bool { return g.s.Transport == "uet" }

// uetWeight is UET's weight among the Ethernet transports (rocev2 60,
// rocev1 20, iwarp 20): about 8% of the Ethernet scenarios but the
// mixed networks', where a VPI adapter's Ethernet ports run RoCEv2.
const uetWeight = 11

// uecSwitch draws the top-level switch block's Ultra Ethernet keys
// (kv adds one), after the rest of an Ethernet switch's: cbfc drawn in a
// tenth of them (a quarter under UET) and kept where no PFC is given and
// DSCP is not trusted, trim in 3% (35% under UET, which its NACKs are
// for) where cbfc is not, llr in 4%.
func (g *gen) uecSwitch(kv func(k, v string)) {
	s := g.s
	if s.Mixed() {
		return
	}
	_, pfc := Get(s.Switch, "pfc")
	cbfc := false
	if g.chance(pick(g.uet(), 0.25, 0.1)) {
		switch {
		case pfc:
			g.refuse("cbfc runs without switch.pfc")
		case get(s.Switch, "trust") == "dscp":
			g.refuse("cbfc's credits are a frame's 802.1p class: not with trust: dscp")
		default:
			cbfc = true
			// A class's buffer holds the largest frame (4,218 bytes at
			// MTU 4096 under UET): 16 KiB grants a few frames at a time.
			kv("cbfc", one(g, "true", "true", "{buffer: 16KiB}", "{buffer: 64KiB}", "{buffer: 1MiB}"))
		}
	}
	if g.chance(pick(g.uet(), 0.35, 0.03)) {
		switch {
		case cbfc:
			g.refuse("trim: nothing is dropped under cbfc")
		case g.trimWeighted():
			g.refuse("trim: priority 7's traffic class stays strict")
		default:
			kv("trim", "true")
		}
	}
	if g.chance(0.04) {
		kv("llr", "true")
	}
}

// trimWeighted says whether the top-level scheduler drawn gives priority
// 7's traffic class (7, or what prio2tc maps it to) a weight (DWRR's or
// ETS's), which trim refuses.
func (g *gen) trimWeighted() bool {
	sch := get(g.s.Switch, "scheduler")
	if sch == "" || sch == "strict" {
		return false
	}
	tc := "7"
	if m := get(g.s.Switch, "prio2tc"); m != "" {
		for _, kv := range strings.Split(strings.Trim(m, "{}"), ", ") {
			if k, v, _ := strings.Cut(kv, ": "); k == "7" {
				tc = v
			}
		}
	}
	// The weights' maps are {tc: weight, ...}; strict: [...] lists none.
	w := sch
	if i := strings.Index(w, "strict:"); i >= 0 {
		w = w[:i]
	}
	return strings.Contains(w, "{"+tc+": ") || strings.Contains(w, " "+tc+": ")
}

// llr says whether the switches' links resend what they lose.
func (g *gen) llr() bool { return get(g.s.Switch, "llr") == "true" }

// uetCC draws UET's congestion control and its own keys: NSCC in about
// half of them, given as hca.cc or as hca.uet.cc; hca.uet's spray
// (ecmp, oblivious or REPS) in 70%; receiver_credits: true (RCCC) in
// 35%.
func (g *gen) uetCC() {
	s := g.s
	// UET's frames carry no INT (its transport row's): HPCC is not
	// drawn.
	cc := g.weighted(ccChoices(func(r kind.CC) bool { return r.RDMA && r.Ethernet && !r.INT }, func(d ccDraw) int { return or(d.uet, defaultWeight) }, defaultWeight, "", 10, "none", 10)...)
	var u []KV
	switch {
	case cc == "":
	case g.chance(0.5):
		u = append(u, KV{"cc", cc})
	default:
		s.HCA = append(s.HCA, KV{"cc", cc})
	}
	if cc != "" {
		g.ccParams(cc)
	}
	if g.chance(0.7) {
		u = append(u, KV{"spray", g.weighted("ecmp", 20, "oblivious", 40, "reps", 40)})
	}
	// RCCC (congestion/rccc.go) in about a third, beside the control
	// drawn; false, the default, given at times.
	if rc := g.weighted("", 60, "true", 35, "false", 5); rc != "" {
		u = append(u, KV{"receiver_credits", rc})
	}
	if len(u) > 0 {
		s.HCA = append(s.HCA, KV{"uet", flowMap(u)})
	}
}

// ueWindowParams draws hca.nscc's keys, half the time.
func ueWindowParams(g *gen) []KV {
	if !g.chance(0.5) {
		return nil
	}
	var d []KV
	if g.chance(0.5) {
		d = append(d, KV{"target_qdelay", one(g, "2us", "10us", "30us")})
	}
	if g.chance(0.3) {
		d = append(d, KV{"qa_gate", fmt.Sprint(one(g, 0, 3, 8))})
	}
	if g.chance(0.3) {
		d = append(d, KV{"gamma", one(g, "0.5", "0.8")})
	}
	if g.chance(0.2) {
		d = append(d, KV{"delay_alpha", one(g, "0.0125", "0.1")})
	}
	if g.chance(0.3) {
		d = append(d, KV{"quick_adapt", one(g, "true", "false")})
	}
	if len(d) == 0 {
		d = append(d, KV{"quick_adapt", "true"})
	}
	return d
}

// uetSpray is hca.uet.spray as drawn ("" when not given).
func (s *Spec) uetSpray() string {
	v := get(s.HCA, "uet")
	if i := strings.Index(v, "spray: "); i >= 0 {
		sp, _, _ := strings.Cut(v[i+len("spray: "):], ",")
		return strings.TrimSuffix(sp, "}")
	}
	return ""
}
