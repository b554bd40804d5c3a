package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadRun: whatever a run folder's files hold, lfsim report's
// loading returns the run or an error that names the file; it never
// panics. (What it returns is checked, so the report drawn from it is not
// fuzzed here: drawing is slow, about a second an input.) The input is
// split at form feeds into flows.csv, pfc.csv, timeseries.csv, and then,
// when given, summary.json, topology.json and scenario.yaml (a plain
// summary otherwise).
func FuzzLoadRun(f *testing.F) {
	f.Add([]byte(strings.Join(FlowsHeader, ",") + "\n0,h0,h1,rc,write,1024,1024,0,5000,5000,1.2000,0,success\n\ftime_ns,node,port,priority,quanta\n100,s0,p1,3,65535\n\ftime_ns,metric,where,value\n10000,tx_gbps,s0:p1,99.5\n"))
	f.Add([]byte("id\n1,2\n\f\f"))
	f.Add([]byte("\"unterminated\n\f1,2,3\n\ftime_ns,metric,where,value\n1,a,b\n"))
	f.Add([]byte("\f\f\f{\"scenario\": \"t\", \"seed\": 3, \"packets\": {\"drop_reasons\": {\"loss\": 2}}, \"conservation\": {\"ok\": false, \"errors\": [\"x\"]}}" +
		"\f{\"nodes\": [{\"name\": \"h0\", \"kind\": \"host\"}], \"links\": [{\"a\": \"h0:p0\", \"b\": \"s0:p1\", \"rate_gbps\": 100}]}\fname: x\nswitch: {buffer: 1MiB}\n"))
	f.Add([]byte("\f\f\f{\"seed\": -1}\f[1]\f&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644)
		parts := strings.SplitN(string(data), "\f", 6)
		for i, name := range []string{"flows.csv", "pfc.csv", "timeseries.csv", "summary.json", "topology.json", "scenario.yaml"} {
			if i < len(parts) {
				os.WriteFile(filepath.Join(dir, name), []byte(parts[i]), 0o644)
			}
		}
		if _, err := LoadRun(dir); err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("error naming no file: %v", err)
		}
	})
}
