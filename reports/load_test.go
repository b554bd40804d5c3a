package reports

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadSeries: timeseries.csv read back by series, each metric's
// places in the order first seen, and bad rows refused with their line.
func TestLoadSeries(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		series    map[string]map[string][]Point
		wheres    map[string][]string
		err       string
	}{
		{
			name: "two metrics",
			csv: "time_ns,metric,where,value\n" +
				"10,tx_gbps,s0:p1,99.5\n10,paused,s0:p1:3,0\n10,tx_gbps,h1:p0,1e-3\n" +
				"20,tx_gbps,s0:p1,100\n20,paused,s0:p1:3,0.25\n20,tx_gbps,h1:p0,-0\n" +
				"+30,tx_gbps,h1:p0,7\n",
			series: map[string]map[string][]Point{
				"tx_gbps": {"s0:p1": {{10, 99.5}, {20, 100}}, "h1:p0": {{10, 1e-3}, {20, 0}, {30, 7}}},
				"paused":  {"s0:p1:3": {{10, 0}, {20, 0.25}}},
			},
			wheres: map[string][]string{"tx_gbps": {"s0:p1", "h1:p0"}, "paused": {"s0:p1:3"}},
		},
		{name: "three fields", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1\n", err: "timeseries.csv:2: expected time_ns,metric,where,value"},
		{name: "bad time", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1\n1x,tx_gbps,s0:p1,1\n", err: "timeseries.csv:3: bad number"},
		{name: "bad value", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1,5\n", err: "timeseries.csv:2: bad number"},
		{name: "time overflows", csv: "time_ns,metric,where,value\n99999999999999999999,tx_gbps,s0:p1,1\n", err: "timeseries.csv:2: bad number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "timeseries.csv")
			if err := os.WriteFile(path, []byte(tc.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &Run{Series: map[string]map[string][]Point{}, Wheres: map[string][]string{}}
			err := r.loadSeries(path)
			if tc.err != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one ending %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Series, tc.series) || !reflect.DeepEqual(r.Wheres, tc.wheres) {
				t.Errorf("read\n%v\n%v\nwant\n%v\n%v", r.Series, r.Wheres, tc.series, tc.wheres)
			}
		})
	}
}

// TestLoadRunRejectsBadRows: a field of flows.csv or pfc.csv that is not
// the number its column holds is an error at its file and line, not a 0
// in the report; the empty end_ns, fct_ns and slowdown of a flow not
// complete stay allowed.
func TestLoadRunRejectsBadRows(t *testing.T) {
	flows := strings.Join(FlowsHeader, ",") + "\n" +
		"0,h0,h1,rc,write,1024,1024,0,5000,5000,1.2000,0,success\n" +
		"1,h0,h2,rc,write,1024,512,0,,,,0,incomplete\n"
	pfc := "time_ns,node,port,priority,quanta\n100,s0,p1,3,65535\n"
	for _, c := range []struct{ file, body, want string }{
		{"flows.csv", flows + "2,h1,h0,rc,write,abc,0,0,,,,0,incomplete\n", `flows.csv:4: size_bytes: "abc" is not a whole number`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,0,0,,,x,0,incomplete\n", `flows.csv:4: slowdown: "x" is not a number`},
		{"flows.csv", flows + "2,h1,h0\n", `flows.csv:4: expected the 13 fields of id,src,dst`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,0,,,,,0,incomplete\n", `flows.csv:4: start_ns: "" is not a whole number`},
		{"pfc.csv", pfc + "200,s0,p1,9,0\n", `pfc.csv:3: priority 9 or quanta 0 out of range`},
		{"pfc.csv", pfc + "2e5,s0,p1,3,0\n", `pfc.csv:3: time_ns: "2e5" is not a whole number`},
		{"pfc.csv", pfc + "200,s0,p1,3\n", `pfc.csv:3: expected the 5 fields of time_ns,node,port,priority,quanta, found 4`},
		{"uplinks.csv", "port,peer,bytes\ns0:p2,s4:p0,12\ns0:p3,s5:p0,1.5\n", `uplinks.csv:3: bytes: "1.5" is not a whole number`},
		{"uplinks.csv", "port,peer,bytes\ns0:p2,s4:p0,-1\n", `uplinks.csv:2: bytes -1: want 0 or more`},
		{"uplinks.csv", "port,peer,bytes\ns0:p2,12\n", `uplinks.csv:2: expected the 3 fields of port,peer,bytes, found 2`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644)
		os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(flows), 0o644)
		os.WriteFile(filepath.Join(dir, "pfc.csv"), []byte(pfc), 0o644)
		os.WriteFile(filepath.Join(dir, c.file), []byte(c.body), 0o644)
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: got %v, want %q", c.file, c.body[strings.LastIndex(c.body[:len(c.body)-1], "\n")+1:], err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644)
	os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(flows), 0o644)
	os.WriteFile(filepath.Join(dir, "pfc.csv"), []byte(pfc), 0o644)
	r, err := LoadRun(dir)
	if err != nil || len(r.Flows) != 2 || r.Flows[1].EndNs != 0 || len(r.PFC) != 1 || r.PFC[0].Quanta != 65535 {
		t.Fatalf("the good files: %v, %+v", err, r)
	}
}
