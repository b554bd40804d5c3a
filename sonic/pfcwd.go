package sonic

import "fmt"

// The PFC watchdog: PFC_WD's entry for a port (action, detection_time,
// restoration_time, in ms) and its GLOBAL entry (POLL_INTERVAL,
// BIG_RED_SWITCH), as sonic-utilities' pfcwd writes them (pfcwd/main.py:
// `pfcwd start_default` gives every port with pfc_enable detection and
// restoration of 200 ms times one more for each 32 ports past the first
// 32, action drop, and polls as often) and lfsim's switch.pfc.watchdog
// takes them (SCENARIO.md, "Deadlocks, storms and watchdogs").

// wdGlobalFields are the fields of PFC_WD|GLOBAL.
var wdGlobalFields = map[string]bool{"POLL_INTERVAL": true, "BIG_RED_SWITCH": true}

// watchdog sets pfc.watchdog from the port's PFC_WD entry.
func (r *reader) watchdog(o *portOut, pe *portEntries, c *class) {
	q := c.qos
	var sw []int
	var swAt int
	swGiven := false
	if q != nil {
		sw, swAt, swGiven = r.list(q, "pfcwd_sw_enable")
	}
	e := pe.wd
	if e == nil {
		if swGiven && len(sw) > 0 {
			r.warnf(swAt, q.where(), "pfcwd_sw_enable: no effect: PFC_WD starts no watchdog on %s", o.port)
		}
		return
	}
	errs := r.nerr
	for _, f := range e.order {
		if wdGlobalFields[f] {
			_, at, _ := e.field(f)
			r.errorf(at, e.where(), "%s: a field of PFC_WD|GLOBAL, not of a port's entry", f)
		}
	}
	action, aat, ok := e.field("action")
	if !ok {
		action = "drop" // pfcwd's default (pfcwd/main.py, CONFIG_DESCRIPTION)
	}
	switch action {
	case "drop", "forward":
	case "alert":
		r.errorf(aat, e.where(), "action alert: a watchdog that only reports a storm is not modelled; lfsim's drops (drop) or sends ignoring PAUSE (forward)")
	default:
		r.errorf(aat, e.where(), "action: %q is not drop, forward or alert (sonic-pfcwd.yang)", action)
	}
	detect, dat, dOK := r.intField(e, "detection_time", 100, 5000)
	if _, given := e.fields["detection_time"]; !given {
		r.errorf(e.at, e.where(), "detection_time: not given; the watchdog needs one, in ms")
	}
	restore, _, rOK := r.intField(e, "restoration_time", 100, 60000)
	if _, given := e.fields["restoration_time"]; !given {
		r.errorf(e.at, e.where(), "restoration_time: not given, so SONiC's watchdog never restores the queue (pfcwd show config: infinite); lfsim's restores after pfc.watchdog.restore: give one, in ms")
	}
	if h, hat, ok := e.field("pfc_stat_history"); ok {
		switch h {
		case "enable":
			r.warnf(hat, e.where(), "pfc_stat_history: no effect: a history of PFC counters the switch keeps for `pfcstat`")
		case "disable":
		default:
			r.errorf(hat, e.where(), "pfc_stat_history: %q is not enable or disable", h)
		}
	}
	if swGiven {
		for _, p := range c.lossless {
			if !contains(sw, p) {
				r.errorf(swAt, q.where(), "pfcwd_sw_enable %s leaves out lossless priority %d; lfsim's watchdog watches every lossless priority (pfc.priorities)", ints(sw), p)
				break
			}
		}
	}
	if r.nerr > errs || !dOK || !rOK {
		return
	}
	if g := r.wdAll; g != nil {
		if _, pat, ok := g.field("POLL_INTERVAL"); ok {
			n, _, _ := r.intField(g, "POLL_INTERVAL", 100, 1000)
			r.warnf(pat, g.where(), "POLL_INTERVAL: SONiC's watchdog looks at the queues every %d ms, so it finds a storm up to that much after detection_time; lfsim's finds it at detection_time", n)
		}
	}
	o.set("pfc.watchdog", flowMap("detect", scalar(fmt.Sprintf("%dms", detect)), "restore", scalar(fmt.Sprintf("%dms", restore)), "action", scalar(action)),
		e.where()+" detection_time, restoration_time, action", dat)
}

// checkWatchdogGlobal checks PFC_WD|GLOBAL's fields.
func (r *reader) checkWatchdogGlobal() {
	g := r.wdAll
	if g == nil {
		return
	}
	for _, f := range g.order {
		if !wdGlobalFields[f] {
			_, at, _ := g.field(f)
			r.errorf(at, g.where(), "%s: a port's field; PFC_WD|GLOBAL holds POLL_INTERVAL and BIG_RED_SWITCH", f)
		}
	}
	r.intField(g, "POLL_INTERVAL", 100, 1000)
	if b, at, ok := g.field("BIG_RED_SWITCH"); ok {
		switch b {
		case "enable":
			r.errorf(at, g.where(), "BIG_RED_SWITCH enable: the watchdog's emergency mode, which treats every lossless queue as stormed, is not modelled")
		case "disable":
		default:
			r.errorf(at, g.where(), "BIG_RED_SWITCH: %q is not enable or disable", b)
		}
	}
}
