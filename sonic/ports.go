package sonic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The map tables (NAME: {from: to}), and the tables keyed by port: read
// into each port's entries, so that a port's settings are computed from
// its own (port.go).

// qmap is one map of a map table: each listed number to its value, and
// where each is written.
type qmap struct {
	table, name string
	at          int
	to          map[int]int
	toAt        map[int]int
}

func (m *qmap) where() string { return m.table + "|" + m.name }

// get is m's value for from, and whether m lists it.
func (m *qmap) get(from int) (int, bool) {
	v, ok := m.to[from]
	return v, ok
}

// mapSpec is what a map table maps, with the bounds sonic-yang-models
// gives (sonic-types' tc_type is 0..15; queue indices are 0..9 in
// sonic-tc-queue-map.yang, priority groups and PFC priorities 0..7).
type mapSpec struct {
	from, to       string
	fromMax, toMax int
}

var mapSpecs = map[string]mapSpec{
	"DSCP_TO_TC_MAP":                     {"DSCP", "traffic class", 63, 15},
	"DOT1P_TO_TC_MAP":                    {"802.1p priority", "traffic class", 7, 15},
	"TC_TO_QUEUE_MAP":                    {"traffic class", "queue", 15, 9},
	"TC_TO_PRIORITY_GROUP_MAP":           {"traffic class", "priority group", 15, 7},
	"MAP_PFC_PRIORITY_TO_QUEUE":          {"PFC priority", "queue", 7, 7},
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"PFC priority", "priority group", 7, 7},
	"TC_TO_DSCP_MAP":                     {"traffic class", "DSCP", 15, 63},
	"DSCP_TO_FC_MAP":                     {"DSCP", "forwarding class", 63, 7},
	"EXP_TO_FC_MAP":                      {"MPLS EXP", "forwarding class", 7, 7},
	"MPLS_TC_TO_TC_MAP":                  {"MPLS TC", "traffic class", 7, 15},
}

// loadMaps reads the map tables and CABLE_LENGTH.
func (r *reader) loadMaps() {
	r.maps = map[string]map[string]*qmap{}
	for _, t := range qosTables { // in a fixed order: messages come in it
		spec, isMap := mapSpecs[t]
		tv := r.tables[t]
		if !isMap || tv == nil {
			continue
		}
		r.maps[t] = map[string]*qmap{}
		for i, name := range tv.keys {
			mv := tv.vals[i]
			m := &qmap{table: t, name: name, at: tv.keyAt[i], to: map[int]int{}, toAt: map[int]int{}}
			r.maps[t][name] = m
			if mv.kind != kObject {
				r.errorf(mv.at, m.where(), "expected an object of %s: %s, found %s", spec.from, spec.to, mv.kind)
				continue
			}
			for j, k := range mv.keys {
				from, err := strconv.Atoi(k)
				if err != nil || from < 0 || from > spec.fromMax || strconv.Itoa(from) != k {
					r.errorf(mv.keyAt[j], m.where(), "%q is not a %s (0..%d)", k, spec.from, spec.fromMax)
					continue
				}
				v := mv.vals[j]
				to, ok := r.number(v, m.where(), spec.to, 0, int64(spec.toMax))
				if !ok {
					continue
				}
				m.to[from], m.toAt[from] = int(to), v.at
			}
		}
	}
	if tv := r.tables["CABLE_LENGTH"]; tv != nil {
		for i, name := range tv.keys {
			cv := tv.vals[i]
			where := "CABLE_LENGTH|" + name
			if cv.kind != kObject {
				r.errorf(cv.at, where, "expected an object of port: length, found %s", cv.kind)
				continue
			}
			for j, p := range cv.keys {
				if v := cv.vals[j]; v.kind != kString || !cableLength.MatchString(v.text) {
					r.errorf(v.at, where, "%s: expected a length such as \"5m\" (sonic-cable-length.yang), found %s", p, show(v))
				}
			}
			r.warnf(tv.keyAt[i], where, "no effect: SONiC's buffermgrd picks a port's lossless profile by its cable length and speed (pg_profile_lookup.ini); lfsim reads the profile BUFFER_PG names, and takes a cable's delay from the scenario's link")
		}
	}
}

var cableLength = regexp.MustCompile(`^[0-9]+m$`)

// show quotes a value for a message.
func show(v *value) string {
	if v.kind == kString {
		return strconv.Quote(v.text)
	}
	return v.text
}

// number reads v as a whole number from lo to hi (what names it).
func (r *reader) number(v *value, where, what string, lo, hi int64) (int64, bool) {
	if v.kind != kString && v.kind != kNumber {
		r.errorf(v.at, where, "%s: expected a number, found %s", what, v.kind)
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v.text), 10, 64)
	if err != nil {
		r.errorf(v.at, where, "%s: expected a whole number, found %s", what, show(v))
		return 0, false
	}
	if n < lo || n > hi {
		r.errorf(v.at, where, "%s %d is out of range %d..%d", what, n, lo, hi)
		return 0, false
	}
	return n, true
}

// field reads entry e's field as a whole number from lo to hi: its
// value, where it is, and whether it was given (and valid).
func (r *reader) intField(e *entry, field string, lo, hi int64) (int64, int, bool) {
	v, ok := e.fields[field]
	if !ok {
		return 0, e.at, false
	}
	n, ok := r.number(v, e.where(), field, lo, hi)
	return n, v.at, ok
}

// portEntries are the entries of the tables keyed by port that name one
// port.
type portEntries struct {
	qos    *entry         // PORT_QOS_MAP
	pg     map[int]*entry // BUFFER_PG, by priority group
	bq     map[int]*entry // BUFFER_QUEUE, by queue
	queue  map[int]*entry // QUEUE, by queue
	wd     *entry         // PFC_WD
	inList *entry         // BUFFER_PORT_INGRESS_PROFILE_LIST
	egList *entry         // BUFFER_PORT_EGRESS_PROFILE_LIST
}

// loadPorts files the entries of the tables keyed by port under each
// port they name ("Ethernet0", "Ethernet0,Ethernet4", with "|3-4" for an
// index range where the table has one).
func (r *reader) loadPorts() {
	r.byPort = map[string]*portEntries{}
	of := func(p string) *portEntries {
		pe := r.byPort[p]
		if pe == nil {
			pe = &portEntries{pg: map[int]*entry{}, bq: map[int]*entry{}, queue: map[int]*entry{}}
			r.byPort[p] = pe
			r.ports = append(r.ports, p)
		}
		return pe
	}
	one := func(slot **entry, e *entry, p string) {
		if *slot != nil {
			r.errorf(e.at, e.where(), "port %s is also in %s; give each port one entry", p, (*slot).where())
			return
		}
		*slot = e
	}
	for _, e := range r.entries["PORT_QOS_MAP"] {
		if e.key == "global" {
			r.global = e
			continue
		}
		for _, p := range r.portList(e, e.key) {
			one(&of(p).qos, e, p)
		}
	}
	for _, e := range r.entries["PFC_WD"] {
		if e.key == "GLOBAL" {
			r.wdAll = e
			continue
		}
		for _, p := range r.portList(e, e.key) {
			one(&of(p).wd, e, p)
		}
	}
	for _, t := range []string{"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} {
		for _, e := range r.entries[t] {
			for _, p := range r.portList(e, e.key) {
				pe := of(p)
				if t == "BUFFER_PORT_INGRESS_PROFILE_LIST" {
					one(&pe.inList, e, p)
				} else {
					one(&pe.egList, e, p)
				}
			}
		}
	}
	indexed := []struct {
		table, what string
		max         int
		slot        func(*portEntries) map[int]*entry
	}{
		{"BUFFER_PG", "priority group", 7, func(pe *portEntries) map[int]*entry { return pe.pg }},
		{"BUFFER_QUEUE", "queue", 15, func(pe *portEntries) map[int]*entry { return pe.bq }},
		{"QUEUE", "queue", 15, func(pe *portEntries) map[int]*entry { return pe.queue }},
	}
	for _, x := range indexed {
		for _, e := range r.entries[x.table] {
			parts := strings.Split(e.key, "|")
			if len(parts) != 2 {
				if x.table == "QUEUE" && len(parts) == 4 {
					r.errorf(e.at, e.where(), "a VOQ chassis's queue (hostname|asic|port|queue); lfsim models a switch's own ports' queues")
					continue
				}
				r.errorf(e.at, e.where(), "expected a key PORT|%s such as Ethernet0|3-4", strings.ToUpper(strings.ReplaceAll(x.what, " ", "_")))
				continue
			}
			lo, hi, ok := r.indexRange(e, parts[1], x.what, x.max)
			if !ok {
				continue
			}
			for _, p := range r.portList(e, parts[0]) {
				m := x.slot(of(p))
				for i := lo; i <= hi; i++ {
					if prev := m[i]; prev != nil {
						r.errorf(e.at, e.where(), "%s %d of %s is also in %s", x.what, i, p, prev.where())
						continue
					}
					m[i] = e
				}
			}
		}
	}
	sortPorts(r.ports)
}

// portList is the ports a key names: one, or several joined by commas.
func (r *reader) portList(e *entry, s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			r.errorf(e.at, e.where(), "expected a port name, or port names joined by commas")
			return nil
		}
		out = append(out, p)
	}
	return out
}

// indexRange reads "3" or "3-4", each from 0 to max.
func (r *reader) indexRange(e *entry, s, what string, max int) (int, int, bool) {
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if errA != nil || errB != nil || a < 0 || b > max || a > b {
		r.errorf(e.at, e.where(), "%q is not a %s or a range of them (0..%d, such as 3-4)", s, what, max)
		return 0, 0, false
	}
	return a, b, true
}

// lookup is map table t's map name, as entry e's field binds it (nil
// when the field does not bind one; an error when there is no such map).
func (r *reader) lookup(e *entry, field, t string) *qmap {
	if e == nil {
		return nil
	}
	name, at, ok := e.field(field)
	if !ok {
		return nil
	}
	m := r.maps[t][name]
	if m == nil {
		r.errorf(at, e.where(), "%s: %s has no map %q", field, t, name)
	}
	return m
}

// list reads a comma list of numbers 0..7 ("3,4", as pfc_enable).
func (r *reader) list(e *entry, field string) ([]int, int, bool) {
	s, at, ok := e.field(field)
	if !ok {
		return nil, at, false
	}
	var out []int
	seen := map[int]bool{}
	if strings.TrimSpace(s) == "" {
		return out, at, true
	}
	for _, x := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 || n > 7 {
			r.errorf(at, e.where(), "%s: %q is not a list of priorities 0..7 such as \"3,4\"", field, s)
			return nil, at, false
		}
		if seen[n] {
			r.errorf(at, e.where(), "%s: priority %d is listed twice", field, n)
			return nil, at, false
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, at, true
}

// plural is "s" for n other than 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ints joins numbers with commas.
func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
