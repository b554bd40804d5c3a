package collective

import (
	"strings"
	"testing"
)

// TestNCCLTestsReportFrame: nccl_tests.txt opens and closes as
// all_reduce_perf's output does (nccl-tests 2.19.6 src/util.cu:
// writeDeviceReport's "# nccl-tests version %s nccl-headers=%d
// nccl-library=%d", then writeResultFooter's concluded line,
// finalizeFooter's "#" and writeErrors' empty line), so that scripts
// reading nccl-library= or the trailer find them. Before the fix the
// version line carried lfsim's note instead of the versions and the
// report stopped at the concluded line.
func TestNCCLTestsReportFrame(t *testing.T) {
	txt := NCCLTestsReport(TestHeader{Op: AllReduce, Ranks: 2, Hosts: []string{"h0", "h1"}, MinBytes: 1024, MaxBytes: 1024,
		StepFactor: 1, StepBytes: 1 << 20, Iters: 20, WarmupIters: 1}, []TestResult{{Size: TestSize{Bytes: 1024, Count: 256}, OutOfPlace: 10, InPlace: 10}})
	lines := strings.Split(txt, "\n")
	if want := "# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := []string{"# Collective test concluded: all_reduce_perf", "#", "", ""}; len(lines) < 4 || !equal(lines[len(lines)-4:], want) {
		t.Errorf("last lines %q, want %q", lines[max(0, len(lines)-4):], want)
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }
