package sonic

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// Diag is one finding in a config_db.json: where it is (line and column,
// 1-based, columns in characters), what it is about (TABLE|KEY and a
// field, as SONiC's `redis-cli hgetall TABLE|KEY` names an entry), and
// the message.
type Diag struct {
	Line, Col int
	Where     string
	Msg       string
}

// Format is "file:line:col: where: msg".
func (d Diag) Format(file string) string {
	s := fmt.Sprintf("%s:%d:%d: ", file, d.Line, d.Col)
	if d.Where != "" {
		s += d.Where + ": "
	}
	return s + d.Msg
}

// Result is what Read makes of a config_db.json.
type Result struct {
	// File is the name messages give the file.
	File string
	// Port is the port whose settings Switch holds when one was asked
	// for; Ports are the ports the QoS and buffer tables configure, in
	// SONiC's order (Ethernet2 before Ethernet10).
	Port  string
	Ports []string
	// Switch is lfsim's switch keys the file gives (a YAML mapping whose
	// keys are in SCENARIO.md's order), nil when there are Errors.
	Switch *yaml.Node
	// Warnings are settings read with no effect on what lfsim models,
	// or read as lfsim's model approximates them (each says when the two
	// agree); Errors what lfsim cannot read or honour.
	Warnings, Errors []Diag
}

// Err is nil, or an error listing Errors one per line.
func (r *Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	lines := make([]string, len(r.Errors))
	for i, d := range r.Errors {
		lines[i] = d.Format(r.File)
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

// maxErrors is how many errors Read lists; a file wrong throughout says
// how many more there are.
const maxErrors = 40

// Read reads data, the config_db.json that messages call file, into
// lfsim's switch keys: those of port when port is not empty, else those
// every port the QoS and buffer tables configure agrees on (an error
// names two ports that differ).
func Read(file string, data []byte, port string) *Result {
	r := &reader{file: file, data: data, warned: map[string]int{}, erred: map[string]bool{},
		pools: map[string]*bpool{}, profiles: map[string]*bprofile{}, scheds: map[string]*sched{}, wreds: map[string]*wred{}}
	res := &Result{File: file, Port: port}
	defer func() {
		res.Warnings, res.Errors = r.warns, r.errs
		if r.dropped > 0 {
			res.Errors = append(res.Errors, Diag{Line: 1, Col: 1, Msg: fmt.Sprintf("and %d more errors not listed", r.dropped)})
		}
		if len(res.Errors) > 0 {
			res.Switch = nil
		}
	}()
	root, err := parseJSON(data)
	if err != nil {
		se := err.(*syntaxError)
		r.errorf(se.at, "", "%s", se.msg)
		return res
	}
	if root.kind != kObject {
		r.errorf(root.at, "", "expected an object of tables ({\"PORT_QOS_MAP\": {...}, ...}), found %s", root.kind)
		return res
	}
	r.root = root
	r.load()
	res.Ports = r.ports
	if len(r.errs) > 0 {
		return res
	}
	res.Switch = r.settings(port)
	return res
}

// reader reads one file.
type reader struct {
	file string
	data []byte
	root *value

	errs, warns []Diag
	nerr        int // errors found, those given again or past maxErrors too
	dropped     int
	erred       map[string]bool // errors already given, by place and text
	warned      map[string]int  // warnings already given, by text: their index
	quiet       bool            // a port other than the one whose warnings are given

	tables  map[string]*value
	entries map[string][]*entry // the QoS tables' entries, by table
	maps    map[string]map[string]*qmap
	ports   []string
	byPort  map[string]*portEntries
	global  *entry // PORT_QOS_MAP|global
	wdAll   *entry // PFC_WD|GLOBAL

	// the entries read so far, by name (nil: read, with an error)
	pools    map[string]*bpool
	profiles map[string]*bprofile
	scheds   map[string]*sched
	wreds    map[string]*wred
}

// errorf records an error at byte at: once for one place and text.
func (r *reader) errorf(at int, where, format string, args ...any) {
	r.nerr++
	msg := fmt.Sprintf(format, args...)
	key := fmt.Sprint(at, where, msg)
	if r.erred[key] {
		return
	}
	r.erred[key] = true
	if len(r.errs) >= maxErrors {
		r.dropped++
		return
	}
	line, col := lineCol(r.data, at)
	r.errs = append(r.errs, Diag{Line: line, Col: col, Where: printable(where), Msg: printable(msg)})
}

// printable is s with what a terminal or a YAML comment cannot show (a
// control character in a name the file gives) escaped, as Go writes it.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// warnf records a warning at byte at, once for its text (a port's
// warning is the same on the ports that agree with it), and none while
// quiet.
func (r *reader) warnf(at int, where, format string, args ...any) {
	if r.quiet {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if _, dup := r.warned[where+msg]; dup {
		return
	}
	r.warned[where+msg] = len(r.warns)
	line, col := lineCol(r.data, at)
	r.warns = append(r.warns, Diag{Line: line, Col: col, Where: printable(where), Msg: printable(msg)})
}

// entry is one entry of a table: TABLE|KEY and its fields.
type entry struct {
	table, key string
	at         int // where its key is
	fields     map[string]*value
	order      []string
}

func (e *entry) where() string { return e.table + "|" + e.key }

// field is the text of field name and where it is, or "" and the
// entry's place when it is not given.
func (e *entry) field(name string) (string, int, bool) {
	if v, ok := e.fields[name]; ok {
		return v.text, v.at, true
	}
	return "", e.at, false
}

// load reads the tables: each QoS table's entries, checked field by
// field against what SONiC defines, and a warning for each table lfsim
// neither reads nor knows.
func (r *reader) load() {
	r.tables = map[string]*value{}
	read := map[string]bool{}
	for _, t := range qosTables {
		read[t] = true
	}
	for i, name := range r.root.keys {
		v := r.root.vals[i]
		switch {
		case read[name]:
			if v.kind != kObject {
				r.errorf(v.at, name, "expected an object of entries, found %s", v.kind)
				continue
			}
			r.tables[name] = v
		case nonQoSTables[name]:
		default:
			r.warnf(r.root.keyAt[i], name, "not read: a table lfsim does not know; it is neither one of the QoS and buffer tables lfsim reads (%s) nor one it knows to configure no QoS", strings.Join(qosTables, ", "))
		}
	}
	r.entries = map[string][]*entry{}
	for _, t := range qosTables {
		if tv := r.tables[t]; tv != nil && fieldsOf[t] != nil {
			r.entries[t] = r.readEntries(t, tv)
		}
	}
	r.loadMaps()
	r.loadPorts()
	r.checkWatchdogGlobal()
	r.noEffectTables()
}

// fieldsOf are each table's fields as sonic-yang-models defines them
// (src/sonic-yang-models/yang-models/sonic-<table>.yang); a field not
// listed is an error. The map tables and CABLE_LENGTH, whose entries map
// numbers or ports, are read by loadMaps.
var fieldsOf = map[string][]string{
	"PORT_QOS_MAP": {"dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map",
		"pfc_to_pg_map", "tc_to_dscp_map", "dscp_to_fc_map", "exp_to_fc_map", "mpls_tc_to_tc_map",
		"pfc_enable", "pfcwd_sw_enable", "pfc_asym", "scheduler"},
	"BUFFER_POOL": {"type", "mode", "size", "xoff", "percentage"},
	"BUFFER_PROFILE": {"pool", "size", "xon", "xoff", "xon_offset", "dynamic_th", "static_th",
		"headroom_type", "packet_discard_action"},
	"BUFFER_PG":                         {"profile"},
	"BUFFER_QUEUE":                      {"profile"},
	"BUFFER_PORT_INGRESS_PROFILE_LIST":  {"profile_list"},
	"BUFFER_PORT_EGRESS_PROFILE_LIST":   {"profile_list"},
	"DEFAULT_LOSSLESS_BUFFER_PARAMETER": {"default_dynamic_th", "over_subscribe_ratio"},
	"LOSSLESS_TRAFFIC_PATTERN":          {"mtu", "small_packet_percentage"},
	"SCHEDULER":                         {"type", "weight", "priority", "meter_type", "cir", "pir", "cbs", "pbs"},
	"QUEUE":                             {"scheduler", "wred_profile"},
	"WRED_PROFILE": {"ecn", "wred_green_enable", "wred_yellow_enable", "wred_red_enable",
		"green_min_threshold", "green_max_threshold", "green_drop_probability",
		"yellow_min_threshold", "yellow_max_threshold", "yellow_drop_probability",
		"red_min_threshold", "red_max_threshold", "red_drop_probability"},
	"PFC_WD":          {"action", "detection_time", "restoration_time", "pfc_stat_history", "POLL_INTERVAL", "BIG_RED_SWITCH"},
	"SWITCH_TRIMMING": nil, // read whole: a warning (trim.go)
}

// readEntries reads table t's entries: each an object of fields whose
// values are strings (or numbers, or a list for profile_list), every
// field one SONiC defines.
func (r *reader) readEntries(t string, tv *value) []*entry {
	known := map[string]bool{}
	for _, f := range fieldsOf[t] {
		known[f] = true
	}
	var out []*entry
	for i, key := range tv.keys {
		ev := tv.vals[i]
		e := &entry{table: t, key: key, at: tv.keyAt[i], fields: map[string]*value{}}
		if ev.kind != kObject {
			r.errorf(ev.at, e.where(), "expected an object of fields, found %s", ev.kind)
			continue
		}
		for j, f := range ev.keys {
			fv := ev.vals[j]
			switch {
			case t == "SWITCH_TRIMMING":
			case !known[f]:
				r.errorf(ev.keyAt[j], e.where(), "unknown field %s; %s's fields are %s (sonic-yang-models)", f, t, strings.Join(fieldsOf[t], ", "))
				continue
			case fv.kind == kArray && f == "profile_list":
				names := make([]string, 0, len(fv.vals))
				for _, x := range fv.vals {
					names = append(names, x.text)
				}
				fv = &value{kind: kString, text: strings.Join(names, ","), at: fv.at}
			case fv.kind != kString && fv.kind != kNumber:
				r.errorf(fv.at, e.where(), "%s: expected a string, found %s", f, fv.kind)
				continue
			}
			e.fields[f] = fv
			e.order = append(e.order, f)
		}
		out = append(out, e)
	}
	return out
}

// entry returns table t's entry with key, or nil.
func (r *reader) entry(t, key string) *entry {
	for _, e := range r.entries[t] {
		if e.key == key {
			return e
		}
	}
	return nil
}

// noEffectTables warns of the tables read that configure nothing lfsim
// models.
func (r *reader) noEffectTables() {
	for _, t := range []string{"DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN"} {
		for _, e := range r.entries[t] {
			r.warnf(e.at, e.where(), "no effect: the dynamic buffer model's parameters, from which SONiC's buffermgrd computes the lossless profiles (sonic-yang-models doc/Configuration.md); lfsim reads the profiles BUFFER_PG names")
		}
	}
	for _, e := range r.entries["SWITCH_TRIMMING"] {
		r.warnf(e.at, e.where(), "no effect: packet trimming's settings; a buffer profile with packet_discard_action: trim, which lfsim refuses, is what trims")
	}
}

// settings are lfsim's switch keys from the file: port's, or those the
// ports agree on.
func (r *reader) settings(port string) *yaml.Node {
	ports := r.ports
	if port != "" {
		if r.byPort[port] == nil {
			some := ports
			if len(some) > 8 {
				some = some[:8]
			}
			at := 0
			if tv := r.tables["PORT_QOS_MAP"]; tv != nil {
				at = tv.at
			}
			r.errorf(at, "", "no QoS or buffer table configures port %s; the ports it configures are %s%s", port, strings.Join(some, ", "), more(len(ports)-len(some)))
			return nil
		}
		ports = []string{port}
	}
	if len(ports) == 0 {
		ports = []string{""} // the tables that are the switch's (pools, maps bound globally)
	}
	var first *portOut
	for i, p := range ports {
		r.quiet = i > 0
		o := r.port(p)
		if i == 0 {
			first = o
			continue
		}
		r.agree(first, o)
	}
	r.quiet = false
	if len(r.errs) > 0 {
		return nil
	}
	return first.node()
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// agree reports the first key on which port o's settings differ from
// first's.
func (r *reader) agree(first, o *portOut) {
	keys := append([]string(nil), first.order...)
	for _, k := range o.order {
		if _, ok := first.vals[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		a, b := first.vals[k], o.vals[k]
		if a != nil && b != nil && a.text == b.text {
			continue
		}
		src := b
		if src == nil {
			src = a
		}
		r.errorf(src.at, src.from, "ports %s and %s differ in %s (%s against %s): lfsim's switch profile is one for all its ports; give sonic: {file: %s, port: %s} to read one port's settings",
			first.port, o.port, k, a.show(), b.show(), r.file, first.port)
		return
	}
}

// sortPorts sorts port names as SONiC lists them: by their letters, then
// by their number (Ethernet2 before Ethernet10).
func sortPorts(ps []string) {
	sort.SliceStable(ps, func(i, j int) bool {
		ai, an := splitNum(ps[i])
		bi, bn := splitNum(ps[j])
		if ai != bi {
			return ai < bi
		}
		if an != bn {
			return an < bn
		}
		return ps[i] < ps[j]
	})
}

// splitNum splits a port name into its letters and its trailing number.
func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n := 0
	for _, c := range s[i:] {
		if n > 1e8 {
			break
		}
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}
