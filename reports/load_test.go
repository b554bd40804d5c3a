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
