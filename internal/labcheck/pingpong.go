// Package labcheck holds the labs' checks of a student's program, kept
// out of the folder the student works in, beside the teacher's solutions
// (in its tests), so that the skeleton's folder holds the skeleton and
// its test only (issue 51: the solution sat beside the skeleton).
package labcheck

import (
	"errors"
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/internal/testnet"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/scenarios/labs/first-verbs-program/pingpong"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// twoHosts is the lab's network: two hosts of a 100 Gb/s switch, 1 us
// links, the default NIC (testnet.Star builds it from the models: the
// topology and its routes, an HCA per host, the switch).
func twoHosts(t testing.TB) (*sim.Engine, *hca.HCA, *hca.HCA) {
	t.Helper()
	prof := hca.DefaultProfile()
	n, err := testnet.Star(2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile(), fabric.MaxRoCEv2Frame(prof.MTU))
	if err != nil {
		t.Fatal(err)
	}
	return n.Eng, n.HCAs[0], n.HCAs[1]
}

const size, rxDepth, iters = 64, 500, 1000

// Pingpong runs a pingpong program (setup, start) and holds it to lfsim's
// own ibv_rc_pingpong on the same network: both sides finish every
// iteration, and the time per iteration is the tool's within 2% (6.85
// us: a SEND each way, 5.06 us of wire and switch and 1.8 us in the
// NICs; the lab's README says where). t is a testing.TB so that a test
// can run the check on a wrong program and see it fail.
func Pingpong(t testing.TB, setup func(a, b *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error), start func(s [2]*pingpong.Side, size int64, rxDepth, iters int) error) {
	t.Helper()
	eng, a, b := twoHosts(t)
	s, err := setup(a, b, size, rxDepth)
	if errors.Is(err, pingpong.ErrTODO) {
		t.Skip("Setup's TODOs are not done yet (lab first-verbs-program)")
	}
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	for i, side := range s {
		if side == nil || side.QP == nil || side.QP.State != hca.QPRTS {
			t.Fatalf("side %d: its QP is not in RTS after Setup: %+v", i, side)
		}
	}
	err = start(s, size, rxDepth, iters)
	if errors.Is(err, pingpong.ErrTODO) {
		t.Skip("Start's TODOs are not done yet (lab first-verbs-program)")
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	eng.Run(sim.Second, nil)
	for i, side := range s {
		if side.Done == 0 || side.Received != iters {
			t.Fatalf("side %d: received %d of %d, done at %v", i, side.Received, iters, side.Done)
		}
	}
	got := float64(s[0].Done) / float64(sim.Microsecond) / iters

	eng, a, b = twoHosts(t)
	ref, err := programs.NewPingpong(a, b, programs.PingpongDefaults(programs.PingpongConfig{Type: hca.RC, Size: size, Iters: iters, RxDepth: rxDepth}))
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	want := ref.UsecPerIter()
	if want == 0 || math.Abs(got-want)/want > 0.02 {
		t.Errorf("your pingpong: %.3f usec/iter; ibv_rc_pingpong: %.3f (within 2%%)", got, want)
	}
	t.Logf("%.3f usec/iter (ibv_rc_pingpong: %.3f)", got, want)
}
