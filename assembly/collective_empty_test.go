package assembly

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// TestCollectiveEmptyCalls: a call of 0 bytes (size: 0, or a size below
// a float per rank, rounded to 0: resolve's collectiveSize) is a call of
// count 0, which NCCL discards at once (src/enqueue.cc, taskAppend:
// "Empty collectives can be discarded"): no kernel, no base latency, no
// step on any link. Three of them on 8 ranks, then an all_reduce after
// them: the empty calls each take 0 ns and end at the collective's start
// (5 us), no packet goes for them, and the all_reduce starts at 5 us on
// every rank. On 1 and 2 workers alike. nccl_tests' sizes that round to
// 0 bytes (all_gather_perf's 8 to 64 bytes on 8 ranks: 16-byte parts)
// print a time of 0.00 and bandwidths of 0.00 (not NaN). Before the fix
// an all_gather of size 0 sent 112 packets and took 51.4 us.
func TestCollectiveEmptyCalls(t *testing.T) {
	src := star8 + "traffic:\n  - collective: {op: all_gather, size: 0, iterations: 3, start: 5us}\n  - collective: {op: all_reduce, size: 3, start: 5us}\n" +
		"  - collective: {op: all_reduce, size: 64KiB, after: [0, 1]}\n"
	var one map[string][]byte
	for _, workers := range []int{1, 2} {
		files, _ := runScenarioFiles(t, collScenario(t, src), workers)
		rows := collRows(t, files["collectives.csv"])
		if len(rows) != 5 {
			t.Fatalf("%d rows in collectives.csv, want 5", len(rows))
		}
		for i, r := range rows[:4] {
			if r["size_bytes"] != "0" || r["status"] != "completed" || r["start_ns"] != "5000" || r["end_ns"] != "5000" || r["time_ns"] != "0" || r["algbw_gbps"] != "0.000" || r["protocol"] != "" {
				t.Errorf("%d workers, row %d: %v; want 0 bytes completed at 5000 ns in 0 ns, no protocol", workers, i, r)
			}
		}
		if r := rows[4]; r["start_ns"] != "5000" || r["status"] != "completed" {
			t.Errorf("%d workers, the all_reduce after the empty calls: %v; want it started at 5000 ns, completed", workers, r)
		}
		var sum reports.Summary
		if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
			t.Fatal(err)
		}
		alone, _ := runScenarioFiles(t, collScenario(t, star8+"traffic:\n  - collective: {op: all_reduce, size: 64KiB, start: 5us}\n"), workers)
		var want reports.Summary
		if err := json.Unmarshal(alone["summary.json"], &want); err != nil {
			t.Fatal(err)
		}
		if sum.Packets.Sent != want.Packets.Sent || sum.Packets.Sent == 0 {
			t.Errorf("%d workers: %d packets sent; want the all_reduce's alone, %d", workers, sum.Packets.Sent, want.Packets.Sent)
		}
		if workers == 1 {
			one = files
		} else {
			sameFiles(t, "empty calls, 2 workers against one", files, one)
		}
	}
	files, _ := runScenarioFiles(t, collScenario(t, star8+"traffic:\n  - nccl_tests: {op: all_gather, minbytes: 8, maxbytes: 256, stepfactor: 2, iters: 2, warmup_iters: 1}\n"), 1)
	txt := string(files["nccl_tests.txt"])
	zero := "           0             0     float    none      -1     0.00    0.00    0.00    N/A     0.00    0.00    0.00    N/A\n"
	if strings.Count(txt, zero) != 4 || strings.Contains(strings.ToLower(txt), "nan") || !bytes.Contains(files["nccl_tests.txt"], []byte("         128             4     float    none")) {
		t.Errorf("nccl_tests.txt: want 4 lines of 0 bytes in 0.00 us (8 to 64 bytes), then 128 bytes:\n%s", txt)
	}
}
