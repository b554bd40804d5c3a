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
		{name: "three fields", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1\n", err: "timeseries.csv:2: expected the 4 fields of time_ns,metric,where,value, found 3"},
		{name: "bad time", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1\n1x,tx_gbps,s0:p1,1\n", err: `timeseries.csv:3: time_ns: "1x" is not a whole number`},
		{name: "bad value", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1,5\n", err: `timeseries.csv:2: value: "1,5" is not a number`},
		{name: "value not finite", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,NaN\n", err: `timeseries.csv:2: value: "NaN" is not a number`},
		{name: "time overflows", csv: "time_ns,metric,where,value\n99999999999999999999,tx_gbps,s0:p1,1\n", err: `timeseries.csv:2: time_ns: "99999999999999999999" is not a whole number`},
		{name: "negative time", csv: "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1\n-10,tx_gbps,s0:p1,1\n", err: `timeseries.csv:3: time_ns: "-10" is negative; expected 0 or more`},
		{name: "column twice", csv: "time_ns,metric,where,time_ns\n10,tx_gbps,s0:p1,1\n", err: `timeseries.csv:1: column "time_ns" is given twice (columns 1 and 4); expected the header time_ns,metric,where,value`},
		{name: "other header", csv: "t,metric,where,value\n10,tx_gbps,s0:p1,1\n", err: `timeseries.csv:1: expected the header time_ns,metric,where,value, found "t,metric,where,value"`},
		{name: "no header", csv: "", err: `timeseries.csv:1: the file is empty; expected the header time_ns,metric,where,value`},
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
		{"uplinks.csv", "port,peer,bytes\ns0:p2,s4:p0,-1\n", `uplinks.csv:2: bytes: "-1" is negative; expected 0 or more`},
		// Negative sizes, times and counts are refused at their column.
		{"flows.csv", flows + "2,h1,h0,rc,write,-10,0,0,,,,0,incomplete\n", `flows.csv:4: size_bytes: "-10" is negative; expected 0 or more`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,-1,0,,,,0,incomplete\n", `flows.csv:4: delivered_bytes: "-1" is negative; expected 0 or more`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,10,-5,10,15,1.5,0,success\n", `flows.csv:4: start_ns: "-5" is negative; expected 0 or more`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,10,5,10,-5,1.5,0,success\n", `flows.csv:4: fct_ns: "-5" is negative; expected 0 or more`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,10,5,10,5,-1.5,0,success\n", `flows.csv:4: slowdown: "-1.5" is negative; expected 0 or more`},
		{"flows.csv", flows + "2,h1,h0,rc,write,10,10,5,10,5,1.5,-2,success\n", `flows.csv:4: retransmits: "-2" is negative; expected 0 or more`},
		{"pfc.csv", pfc + "-200,s0,p1,3,0\n", `pfc.csv:3: time_ns: "-200" is negative; expected 0 or more`},
		{"events.csv", "time_ns,host,event,code,object\n-1,h0,IBV_EVENT_PORT_ERR,10,port 1\n", `events.csv:2: time_ns: "-1" is negative; expected 0 or more`},
		{"timeline.csv", strings.Join(timelineHeader, ",") + "\nping,doorbell,h0,0.000,x,200.000,1\n", `timeline.csv:2: end_ns: "x" is not a number`},
		{"timeline.csv", strings.Join(timelineHeader, ",") + "\nping,doorbell,h0,300.000,200.000,-100.000,1\n", `timeline.csv:2: end_ns 200.000 is before start_ns 300.000`},
		{"timeline.csv", strings.Join(timelineHeader, ",") + "\nping,doorbell,h0,0.000,200.000,200.000,yes\n", `timeline.csv:2: critical: "yes" is not 0 or 1`},
		// A header that is not lfsim's: a column given twice, another
		// name, none.
		{"flows.csv", strings.Replace(flows, "end_ns", "start_ns", 1), `flows.csv:1: column "start_ns" is given twice (columns 8 and 9); expected the header id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status or `},
		{"flows.csv", strings.Replace(flows, "size_bytes", "bytes", 1), `flows.csv:1: expected the header id,src,dst,qp,op,size_bytes,`},
		{"flows.csv", "", `flows.csv:1: the file is empty; expected the header id,src,dst,qp,op,size_bytes,`},
		{"pfc.csv", "time_ns,node,port,priority,priority\n", `pfc.csv:1: column "priority" is given twice (columns 4 and 5); expected the header time_ns,node,port,priority,quanta`},
		{"uplinks.csv", "port,port,bytes\n", `uplinks.csv:1: column "port" is given twice (columns 1 and 2)`},
		{"uplinks.csv", "port,peer,bytes\ns0:p2,12\n", `uplinks.csv:2: expected the 3 fields of port,peer,bytes, found 2`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644)
		os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(flows), 0o644)
		os.WriteFile(filepath.Join(dir, "pfc.csv"), []byte(pfc), 0o644)
		os.WriteFile(filepath.Join(dir, c.file), []byte(c.body), 0o644)
		_, err := LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			body := strings.TrimSuffix(c.body, "\n")
			t.Errorf("%s %q: got %v, want %q", c.file, body[strings.LastIndex(body, "\n")+1:], err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644)
	os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(flows), 0o644)
	os.WriteFile(filepath.Join(dir, "pfc.csv"), []byte(pfc), 0o644)
	r, err := LoadRun(dir)
	if err != nil || r.Flows.Rows != 2 || r.Flows.FCT.N != 1 {
		t.Fatalf("the good files: %v, %+v", err, r)
	}
	if sp := r.pfcSpread; sp == nil || !reflect.DeepEqual(sp.order, []string{"s0:p1"}) || !reflect.DeepEqual(sp.dots, []pfcDot{{100, 0}}) {
		t.Fatalf("the good pfc.csv's PAUSE: %+v", sp)
	}
}
