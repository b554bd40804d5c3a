//go:build unix

package ceiling

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// BenchmarkCeilingScale times the kernel's packet-hop on issue 50's pair
// of files, scenarios/bench/diag/k8-permutation-1mb.yaml and
// k32-permutation-1mb.yaml (the same traffic per host on 128 and 8,192
// hosts), over the window lfsim's own figures use: the run goes to 20 µs
// untimed, then 20 to 40 µs is timed, every flow still sending in both. It
// reports wall, user and system (getrusage, the whole process) nanoseconds
// a hop,
// so that the kernel's loss with scale can be set beside lfsim's
// (docs/PERFORMANCE.md, "A hop's cost against the fabric's size"). With
// egress FIFOs, the queueing the kernel has. LFSIM_SLOW=1: the k=32
// network takes seconds to build.
func BenchmarkCeilingScale(b *testing.B) {
	if os.Getenv("LFSIM_SLOW") == "" {
		b.Skip("slow: set LFSIM_SLOW=1")
	}
	for _, k := range []int{8, 32} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			sc, err := resolve.Load(filepath.Join("..", "..", "scenarios", "bench", "diag", fmt.Sprintf("k%d-permutation-1mb.yaml", k)))
			if err != nil {
				b.Fatal(err)
			}
			sc.Switch.EgressFIFO = true
			var hops int64
			var wall, user, sys time.Duration
			for b.Loop() {
				b.StopTimer()
				s, err := New(sc)
				if err != nil {
					b.Fatal(err)
				}
				before := s.Run(20 * sim.Microsecond)
				u0, s0 := cpuTime()
				t0 := time.Now()
				b.StartTimer()
				after := s.Run(40 * sim.Microsecond)
				b.StopTimer()
				wall += time.Since(t0)
				u1, s1 := cpuTime()
				user, sys = user+u1-u0, sys+s1-s0
				hops += after.PacketHops - before.PacketHops
				b.StartTimer()
			}
			b.ReportMetric(float64(wall.Nanoseconds())/float64(hops), "wall-ns/hop")
			b.ReportMetric(float64(user.Nanoseconds())/float64(hops), "user-ns/hop")
			b.ReportMetric(float64(sys.Nanoseconds())/float64(hops), "sys-ns/hop")
			b.ReportMetric(float64(hops)/float64(b.N), "hops")
		})
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
