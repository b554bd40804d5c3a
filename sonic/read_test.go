package sonic

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// dellS6100 is the repository's real configuration: a Dell S6100 ToR's
// config_db.json as SONiC writes it (scenarios/examples/sonic-dell-s6100/
// README.md says from where).
const dellS6100 = "../scenarios/examples/sonic-dell-s6100/config_db.json"

// keys flattens Read's mapping into each key's YAML text ("pfc.xoff":
// "{alpha: 1}").
func keys(t *testing.T, n *yaml.Node) map[string]string {
	t.Helper()
	out := map[string]string{}
	if n == nil || n.Kind != yaml.MappingNode {
		t.Fatalf("not a mapping: %v", n)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if k == "pfc" {
			for j := 0; j+1 < len(v.Content); j += 2 {
				out["pfc."+v.Content[j].Value] = encode(v.Content[j+1])
			}
			continue
		}
		out[k] = encode(v)
	}
	return out
}

func readFile(t *testing.T, path, port string) (*Result, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Read("config_db.json", data, port), data
}

// TestDellS6100: the real configuration's settings, each from where
// SONiC's templates and daemons put it: the numbers are the file's.
func TestDellS6100(t *testing.T) {
	res, _ := readFile(t, dellS6100, "")
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Ports) != 44 || res.Ports[0] != "Ethernet0" || res.Ports[43] != "Ethernet58" {
		t.Errorf("ports %v, want the 44 the templates configure, Ethernet0 .. Ethernet58", res.Ports)
	}
	got := keys(t, res.Switch)
	for _, c := range []struct{ key, want, from string }{
		{"buffer", "{shared: 6680960}", "BUFFER_POOL|ingress_lossless_pool size 10875072 less its xoff, the shared headroom pool, 4194112"},
		{"reserved", "1248", "pg_lossless_40000_5m_profile's size: pg_profile_lookup.ini's 40000 5m row, as buffermgrd writes it"},
		{"ingress_threshold", "10875072", "ingress_lossy_profile's static_th (buffers_config.j2's)"},
		{"egress_threshold", "{alpha: 8}", "egress_lossy_profile's dynamic_th 3: 2^3"},
		{"pfc.priorities", "[3, 4]", "PORT_QOS_MAP pfc_enable \"3,4\" (qos_config.j2's LOSSLESS_TC)"},
		{"pfc.xoff", "{alpha: 1}", "pg_lossless_40000_5m_profile's dynamic_th 0: 2^0"},
		{"pfc.xon", "{offset: 2288}", "its xon_offset"},
		{"pfc.headroom", "66560", "its xoff"},
		{"pfc.watchdog", "{detect: 400ms, restore: 400ms, action: drop}", "pfcwd start_default for 44 ports: 200 ms × 2"},
		{"ecn", "{kmin: 250000, kmax: 2097152, pmax: 5%, mark: enqueue, priorities: [3, 4]}", "WRED_PROFILE|AZURE_LOSSLESS green_*, on queues 3 and 4 (QUEUE)"},
		{"trust", "dscp", "PORT_QOS_MAP dscp_to_tc_map"},
		{"scheduler", "{ets: {0: 14, 1: 14, 2: 14, 3: 15, 4: 15, 5: 14, 6: 14}}", "SCHEDULER scheduler.0 (DWRR 14) on queues 0-2, 5, 6 and scheduler.1 (DWRR 15) on 3, 4: 100 in all"},
	} {
		if got[c.key] != c.want {
			t.Errorf("%s = %s, want %s (%s)", c.key, got[c.key], c.want, c.from)
		}
	}
	// DSCP_TO_TC_MAP "AZURE" (qos_config.j2): 3 and 4 to their lossless
	// queues, 5 to 2, 8 to 0, 46 to 5, 48 to 6 (CNPs), the rest to 1.
	dscp := map[string]string{}
	var m yaml.Node
	if err := yaml.Unmarshal([]byte(got["dscp2prio"]), &m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(m.Content[0].Content); i += 2 {
		dscp[m.Content[0].Content[i].Value] = m.Content[0].Content[i+1].Value
	}
	if len(dscp) != 64 {
		t.Errorf("dscp2prio has %d DSCPs, want all 64", len(dscp))
	}
	for d, q := range map[string]string{"0": "1", "3": "3", "4": "4", "5": "2", "8": "0", "26": "1", "46": "5", "48": "6", "63": "1"} {
		if dscp[d] != q {
			t.Errorf("dscp2prio %s = %s, want %s", d, dscp[d], q)
		}
	}
	// What is read as an approximation or to no effect, each said once.
	var where []string
	for _, w := range res.Warnings {
		where = append(where, w.Where)
	}
	want := []string{"CABLE_LENGTH|AZURE", "TC_TO_PRIORITY_GROUP_MAP|AZURE", "BUFFER_POOL|ingress_lossless_pool",
		"BUFFER_PROFILE|pg_lossless_40000_5m_profile", "BUFFER_PROFILE|pg_lossless_40000_5m_profile",
		"BUFFER_PROFILE|egress_lossy_profile", "BUFFER_PROFILE|egress_lossless_profile", "BUFFER_PROFILE|egress_lossy_profile",
		"WRED_PROFILE|AZURE_LOSSLESS", "WRED_PROFILE|AZURE_LOSSLESS", "PFC_WD|GLOBAL"}
	if strings.Join(where, " ") != strings.Join(want, " ") {
		t.Errorf("warnings at\n%s\nwant\n%s", strings.Join(where, "\n"), strings.Join(want, "\n"))
	}
}

// TestPortAsked: one port's settings where the ports differ; the
// others are not compared.
func TestPortAsked(t *testing.T) {
	data, err := os.ReadFile("testdata/two-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), `"Ethernet4": {"action": "forward", "detection_time": "100"`, `"Ethernet4": {"action": "drop", "detection_time": "200"`, 1)
	for _, c := range []struct{ port, want string }{
		{"Ethernet0", "{detect: 100ms, restore: 300ms, action: forward}"},
		{"Ethernet4", "{detect: 200ms, restore: 300ms, action: drop}"},
	} {
		res := Read("cfg.json", []byte(src), c.port)
		if err := res.Err(); err != nil {
			t.Fatalf("%s: %v", c.port, err)
		}
		if got := keys(t, res.Switch)["pfc.watchdog"]; got != c.want {
			t.Errorf("%s: pfc.watchdog %s, want %s", c.port, got, c.want)
		}
	}
	res := Read("cfg.json", []byte(src), "Ethernet9")
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "no QoS or buffer table configures port Ethernet9; the ports it configures are Ethernet0, Ethernet4") {
		t.Errorf("unknown port: %v", err)
	}
}

// TestStaticThZero: static_th 0 is no limit on the shared usage
// (saibuffer.h, SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH: "When set to
// zero there is no limit for the shared usage"), never a limit of 0
// bytes: a lossy queue's and a lossy priority group's threshold is their
// pool's whole size (egress_lossy_pool 1000000, ingress_lossless_pool
// 2000000 in the two-port file), and a lossless profile's XOFF its
// reserve (1248) and the whole shared pool (2000000, no xoff): XOFF
// only once the pool is full.
func TestStaticThZero(t *testing.T) {
	base, err := os.ReadFile("testdata/two-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, old, new, key, want string }{
		{"lossy queue", `"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "2"}`,
			`"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "static_th": "0"}`, "egress_threshold", "1000000"},
		{"lossy priority group", `"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "1248", "dynamic_th": "1"}`,
			`"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "1248", "static_th": "0"}`, "ingress_threshold", "2000000"},
		{"lossless profile", `"xoff": "66560", "dynamic_th": "-2"}`, `"xoff": "66560", "static_th": "0"}`, "pfc.xoff", "2001248"},
		{"lossless profile, static_th in bytes", `"xoff": "66560", "dynamic_th": "-2"}`, `"xoff": "66560", "static_th": "50000"}`, "pfc.xoff", "51248"},
	} {
		src := strings.Replace(string(base), c.old, c.new, 1)
		if src == string(base) {
			t.Fatalf("%s: the file has no %s", c.name, c.old)
		}
		res := Read("cfg.json", []byte(src), "")
		if err := res.Err(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := keys(t, res.Switch)[c.key]; got != c.want {
			t.Errorf("%s: %s = %s, want %s", c.name, c.key, got, c.want)
		}
	}
}

// TestBadInput: what lfsim cannot read or honour, each an error naming
// the table, key and field at the line and column of what is wrong.
// Each case edits the two-port file (old to new) and names the text the
// error must point at (the first occurrence of at, after skip others).
func TestBadInput(t *testing.T) {
	base, err := os.ReadFile("testdata/two-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, old, new string
		at             string
		skip           int
		where, msg     string
	}{
		{"unknown scheduler type", `"scheduler.0": {"type": "DWRR"`, `"scheduler.0": {"type": "FIFO"`, `"FIFO"`, 0,
			"SCHEDULER|scheduler.0", `type: unknown scheduler type "FIFO"; SONiC's are DWRR, WRR and STRICT (sonic-scheduler.yang), of which lfsim models DWRR and STRICT`},
		{"WRR counts packets", `"scheduler.1": {"type": "DWRR"`, `"scheduler.1": {"type": "WRR"`, `"WRR"`, 0,
			"SCHEDULER|scheduler.1", "type WRR: weighted round robin counting packets"},
		{"ports disagree", `"Ethernet4": {"action": "forward", "detection_time": "100"`, `"Ethernet4": {"action": "forward", "detection_time": "200"`, `"200"`, 0,
			"PFC_WD|Ethernet4 detection_time, restoration_time, action", "ports Ethernet0 and Ethernet4 differ in pfc.watchdog ({detect: 100ms, restore: 300ms, action: forward} against {detect: 200ms, restore: 300ms, action: forward}): lfsim's switch profile is one for all its ports; give sonic: {file: cfg.json, port: Ethernet0} to read one port's settings"},
		{"ports disagree on PFC", `"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"}
    },`, `"pfc_enable": "3", "pfcwd_sw_enable": "3,4"}
    },`, `"3", "pfcwd_sw_enable"`, 0,
			"PORT_QOS_MAP|Ethernet4 pfc_enable", "ports Ethernet0 and Ethernet4 differ in pfc.priorities ([3, 4] against [3])"},
		{"malformed JSON", `"pfc_enable": "3,4", "pfcwd_sw_enable"`, `"pfc_enable": "3,4" "pfcwd_sw_enable"`, `"pfcwd_sw_enable"`, 0,
			"", "invalid JSON: invalid character '\"' after object key:value pair"},
		{"truncated", `"restoration_time": "300"}
    }
}`, `"restoration_time": "300"}`, "\n", 0 /* at the end */, "", "invalid JSON: the file ends inside a value"},
		{"key twice", `"Ethernet0|1": {"scheduler": "scheduler.0"},`, `"Ethernet0|1": {"scheduler": "scheduler.0"}, "Ethernet0|1": {"scheduler": "scheduler.0"},`, `"Ethernet0|1"`, 1,
			"", `key "Ethernet0|1" is given twice in one object (first at line 43, column 9)`},
		{"dynamic buffer model's NULL", `"Ethernet0|3-4": {"profile": "pg_lossless_40000_5m_profile"}`, `"Ethernet0|3-4": {"profile": "NULL"}`, `"NULL"`, 0,
			"BUFFER_PG|Ethernet0|3-4", "profile NULL: the dynamic buffer model's"},
		{"pool without a size", `"ingress_lossless_pool": {"size": "2000000",`, `"ingress_lossless_pool": {"percentage": "90",`, `"90"`, 0,
			"BUFFER_POOL|ingress_lossless_pool", "percentage without a size: the dynamic buffer model's"},
		{"re-marking", `"pfc_enable": "3,4", "pfcwd_sw_enable"`, `"tc_to_dscp_map": "AZURE", "pfc_enable": "3,4", "pfcwd_sw_enable"`, `"AZURE", "pfc_enable"`, 0,
			"PORT_QOS_MAP|Ethernet0", "tc_to_dscp_map: re-marking a packet's DSCP at egress is not modelled"},
		{"a ninth queue", `"3": "3", "4": "4", "5": "5"`, `"3": "9", "4": "4", "5": "5"`, `"9"`, 0,
			"TC_TO_QUEUE_MAP|AZURE", "traffic class 3 goes to queue 9; lfsim's ports have 8 queues, one per priority (0..7)"},
		{"lossy class in a lossless group", `{"AZURE": {"0": "0", "1": "0", "2": "0", "3": "3"`, `{"AZURE": {"0": "3", "1": "0", "2": "0", "3": "3"`, `"3", "1": "0"`, 0,
			"TC_TO_PRIORITY_GROUP_MAP|AZURE", "traffic class 0 goes to lossy queue 0 and to priority group 3, a lossless priority's; lfsim pauses only lossless priorities"},
		{"PFC pauses another queue", `"MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE"`, `"MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE"`, `"AZURE": {"0": "0", "1": "1", "2": "2", "3": "3", "4": "4"`, 2,
			"MAP_PFC_PRIORITY_TO_QUEUE|AZURE", ""}, // replaced below
		{"watchdog that only reports", `"Ethernet0": {"action": "forward"`, `"Ethernet0": {"action": "alert"`, `"alert"`, 0,
			"PFC_WD|Ethernet0", "action alert: a watchdog that only reports a storm is not modelled"},
		{"shaping", `"scheduler.0": {"type": "DWRR", "weight": "20"}`, `"scheduler.0": {"type": "DWRR", "weight": "20", "pir": "1250000000"}`, `"1250000000"`, 0,
			"SCHEDULER|scheduler.0", "pir: shaping (a queue's rate limit) is not modelled"},
		{"unknown field", `"size": "1248", "dynamic_th": "1"}`, `"size": "1248", "dynamic_th": "1", "xonn": "1"}`, `"xonn"`, 0,
			"BUFFER_PROFILE|ingress_lossy_profile", "unknown field xonn; BUFFER_PROFILE's fields are pool, size, xon, xoff, xon_offset, dynamic_th, static_th, headroom_type, packet_discard_action (sonic-yang-models)"},
		{"WRED drops", `{"ecn": "ecn_green",`, `{"ecn": "ecn_none", "wred_green_enable": "true",`, `"ecn_none"`, 0,
			"WRED_PROFILE|AZURE_LOSSLESS", "ecn ecn_none with wred_green_enable: WRED dropping green packets without marking them is not modelled"},
		{"two classifications", `"tc_to_queue_map": "AZURE", "tc_to_pg_map"`, `"dot1p_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map"`, `"AZURE", "tc_to_queue_map"`, 0,
			"PORT_QOS_MAP|Ethernet0", "dot1p_to_tc_map: the port binds a dscp_to_tc_map too"},
		{"dynamic headroom", `"xoff": "66560", "dynamic_th": "-2"}`, `"xoff": "66560", "dynamic_th": "-2", "headroom_type": "dynamic"}`, `"dynamic"}`, 2,
			"BUFFER_PROFILE|pg_lossless_40000_5m_profile", `headroom_type "dynamic": the dynamic buffer model's`},
		{"trimming", `"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "2"}`, `"egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "2", "packet_discard_action": "trim"}`, `"trim"`, 0,
			"BUFFER_PROFILE|egress_lossy_profile", `packet_discard_action "trim": packet trimming is not modelled`},
		{"no such map", `"Ethernet0": {"dscp_to_tc_map": "AZURE"`, `"Ethernet0": {"dscp_to_tc_map": "NOPE"`, `"NOPE"`, 0,
			"PORT_QOS_MAP|Ethernet0", `dscp_to_tc_map: DSCP_TO_TC_MAP has no map "NOPE"`},
		{"two lossless profiles", `"Ethernet0|3-4": {"profile": "pg_lossless_40000_5m_profile"}`, `"Ethernet0|3": {"profile": "pg_lossless_40000_5m_profile"}, "Ethernet0|4": {"profile": "ingress_lossy_profile"}`, `"Ethernet0|4"`, 0,
			"BUFFER_PG|Ethernet0|4", "lossless priority groups of Ethernet0 have different profiles (pg_lossless_40000_5m_profile, ingress_lossy_profile); lfsim gives every lossless priority one xoff, xon and headroom"},
		{"threshold out of range", `"size": "1248", "dynamic_th": "1"}`, `"size": "1248", "dynamic_th": "9"}`, `"9"}`, 0,
			"BUFFER_PROFILE|ingress_lossy_profile", "dynamic_th 9 is out of range -8..7"},
		{"watchdog that never restores", `"Ethernet0": {"action": "forward", "detection_time": "100", "restoration_time": "300"}`, `"Ethernet0": {"action": "forward", "detection_time": "100"}`, `"Ethernet0": {"action"`, 0,
			"PFC_WD|Ethernet0", "restoration_time: not given, so SONiC's watchdog never restores the queue"},
		{"a range past the groups", `"Ethernet0|3-4": {"profile"`, `"Ethernet0|3-9": {"profile"`, `"Ethernet0|3-9"`, 0,
			"BUFFER_PG|Ethernet0|3-9", `"3-9" is not a priority group or a range of them (0..7, such as 3-4)`},
		{"not an object", "{\n    \"DEVICE_METADATA\"", "[\n    \"DEVICE_METADATA\"", "[", 0,
			"", ""}, // any JSON mistake: the brackets do not match
	} {
		src := string(base)
		if !strings.Contains(src, c.old) {
			t.Fatalf("%s: the file has no %q", c.name, c.old)
		}
		src = strings.Replace(src, c.old, c.new, 1)
		switch c.name {
		case "ports disagree on PFC": // and no DSCP goes to queue 4
			src = strings.Replace(src, `"4": "4", "8": "0"`, `"8": "0"`, 1)
		case "two classifications":
			src = strings.Replace(src, `"DSCP_TO_TC_MAP"`, `"DOT1P_TO_TC_MAP": {"AZURE": {"3": "3"}}, "DSCP_TO_TC_MAP"`, 1)
		}
		if c.name == "PFC pauses another queue" {
			i := strings.Index(src, `"MAP_PFC_PRIORITY_TO_QUEUE"`)
			src = src[:i] + strings.Replace(src[i:], `"3": "3"`, `"3": "4"`, 1)
			c.at, c.skip, c.msg = `"AZURE"`, 0, "PFC priority 3 pauses queue 4; lfsim's PFC priority is the queue it pauses, so only 3 to 3 can be read"
			c.at = `"MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE"`
		}
		res := Read("cfg.json", []byte(src), "")
		if len(res.Errors) == 0 {
			t.Errorf("%s: no error", c.name)
			continue
		}
		e := res.Errors[0]
		at := index(src, c.at, c.skip)
		if c.name == "truncated" {
			at = len(src)
		}
		if c.name == "PFC pauses another queue" {
			at += len(`"MAP_PFC_PRIORITY_TO_QUEUE": {`) // the map's name
		}
		line, col := lineCol([]byte(src), at)
		if c.name == "not an object" {
			if e.Where != "" || !strings.HasPrefix(e.Msg, "invalid JSON") {
				t.Errorf("%s: %s", c.name, e.Format("cfg.json"))
			}
			continue
		}
		if e.Line != line || e.Col != col || e.Where != c.where || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s:\n got %s\nwant cfg.json:%d:%d: %s: ...%s...", c.name, e.Format("cfg.json"), line, col, c.where, c.msg)
		}
		if res.Switch != nil {
			t.Errorf("%s: settings given with an error", c.name)
		}
	}
}

// index is where the (skip+1)th occurrence of sub starts in s.
func index(s, sub string, skip int) int {
	at := 0
	for range skip + 1 {
		i := strings.Index(s[at:], sub)
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	return at - 1
}

// TestTablesNamed: a table lfsim does not know is named in a warning;
// one it knows to configure no QoS is passed over; a file with no QoS
// tables reads to no settings.
func TestTablesNamed(t *testing.T) {
	res := Read("cfg.json", []byte(`{"VLAN": {"Vlan1000": {"vlanid": "1000"}}, "FUTURE_QOS_TABLE": {"x": {"y": "1"}}}`), "")
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 2 || res.Warnings[0].Where != "FUTURE_QOS_TABLE" || !strings.HasPrefix(res.Warnings[0].Msg, "not read: a table lfsim does not know") ||
		!strings.Contains(res.Warnings[1].Msg, "nothing read") {
		t.Errorf("warnings %v", res.Warnings)
	}
	if res.Switch == nil || len(res.Switch.Content) != 0 {
		t.Errorf("settings %v, want none", res.Switch)
	}
}
