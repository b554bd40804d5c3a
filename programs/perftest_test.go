package programs_test

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// oneWay is the closed-form one-way time of a size-byte inline WRITE (or
// SEND) between two hosts through one switch with 1 us links at 100 Gb/s:
// doorbell and transmit pipeline, the frame's serialization on both
// links, two propagation delays, the switch latency, the receive
// pipeline and the DMA of the data (as in TestWriteLatencyClosedForm).
func oneWay(prof hca.Profile, sp swtch.Profile, op fabric.Opcode, size int) sim.Time {
	ser := fabric.SerializationTime(int64(fabric.RoCEv2Wire(op, size)), 100*fabric.Gbps)
	return prof.DoorbellLatency + prof.TxPktLatency + 2*ser + 2*sim.Microsecond + sp.Latency + prof.RxPktLatency + prof.DMALatency
}

// TestPerftest runs perftest's tests between two hosts through one switch
// and checks each against its closed form: write_bw within perftest's
// ceiling of 65536/66864 × 100 = 98.01 Gb/s and above 96; write_lat and
// send_lat of 2 bytes exactly the one-way time (every ping-pong
// iteration is identical on an empty fabric, so min, typical, max and
// avg agree to the picosecond); read_lat and atomic_lat exactly the
// closed-form round trip.
func TestPerftest(t *testing.T) {
	prof, sp := hca.DefaultProfile(), swtch.DefaultProfile()
	writeLat := oneWay(prof, sp, fabric.OpWriteOnly, 2).Seconds() * 1e6
	sendLat := oneWay(prof, sp, fabric.OpSendOnly, 2).Seconds() * 1e6
	// A READ or atomic: doorbell, WQE fetch and transmit pipeline, the
	// request's way (serialization twice, two propagation delays, the
	// switch, the receive pipeline), the response's way back, and the
	// CQE's DMA.
	rtt := func(req, resp fabric.Opcode, size int) float64 {
		ser := func(op fabric.Opcode, n int) sim.Time {
			return 2 * fabric.SerializationTime(int64(fabric.RoCEv2Wire(op, n)), 100*fabric.Gbps)
		}
		way := 2*sim.Microsecond + sp.Latency + prof.RxPktLatency
		t := prof.DoorbellLatency + prof.WQEFetchLatency + prof.TxPktLatency + ser(req, 0) + way + ser(resp, size) + way + prof.DMALatency
		return t.Seconds() * 1e6
	}
	readLat := rtt(fabric.OpReadRequest, fabric.OpReadResponseOnly, 2)
	atomicLat := rtt(fabric.OpFetchAdd, fabric.OpAtomicAcknowledge, 0)
	for _, tc := range []struct {
		cfg      programs.PerftestConfig
		lo, hi   float64 // BW average in Gb/s, or t_typical in us
		contains string
	}{
		{programs.PerftestConfig{Test: "write_bw"}, 96, 98.01, "RDMA_Write BW Test"},
		{programs.PerftestConfig{Test: "write_bw", QPs: 2, Iters: 1000}, 96, 98.01, ""},
		{programs.PerftestConfig{Test: "read_bw", Iters: 1000}, 96, 98.01, "RDMA_Read BW Test"},
		{programs.PerftestConfig{Test: "send_bw", Iters: 1000}, 96, 98.01, "Send BW Test"},
		{programs.PerftestConfig{Test: "send_bw", Type: hca.UD, Size: 4096, Iters: 1000}, 96, 98.2, "Connection type : UD"},
		{programs.PerftestConfig{Test: "write_lat", Iters: 100}, writeLat - 1e-9, writeLat + 1e-9, "t_typical[usec]"},
		{programs.PerftestConfig{Test: "write_lat", Type: hca.UC, Iters: 100}, writeLat - 1e-9, writeLat + 1e-9, ""},
		{programs.PerftestConfig{Test: "send_lat", Iters: 100}, sendLat - 1e-9, sendLat + 1e-9, "Send Latency Test"},
		{programs.PerftestConfig{Test: "read_lat", Iters: 100}, readLat - 1e-9, readLat + 1e-9, "RDMA_Read Latency Test"},
		{programs.PerftestConfig{Test: "atomic_lat", Iters: 100}, atomicLat - 1e-9, atomicLat + 1e-9, "Atomic Latency Test"},
	} {
		name := tc.cfg.Test + "/" + tc.cfg.Type.String()
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, sp)
		pt, err := programs.NewPerftest(h[0], h[1], tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		eng.Run(sim.Second, nil)
		if !pt.Done || pt.Err != "" {
			t.Fatalf("%s: done %v, err %q, %d iterations", name, pt.Done, pt.Err, pt.Completed())
		}
		rep := pt.Report()
		if !strings.Contains(rep, tc.contains) {
			t.Errorf("%s: report lacks %q:\n%s", name, tc.contains, rep)
		}
		if strings.HasSuffix(tc.cfg.Test, "_bw") {
			r := pt.BWResult()
			if r.AvgGbps < tc.lo || r.AvgGbps > tc.hi || r.PeakGbps < r.AvgGbps-1e-9 {
				t.Errorf("%s: BW average %.3f (peak %.3f) Gb/s, want %v..%v and peak >= average", name, r.AvgGbps, r.PeakGbps, tc.lo, tc.hi)
			}
			t.Logf("%s: peak %.3f, average %.3f Gb/s, %.6f Mpps", name, r.PeakGbps, r.AvgGbps, r.MsgRateMpps)
			continue
		}
		r := pt.LatResult()
		if r.Typical < tc.lo || r.Typical > tc.hi {
			t.Errorf("%s: t_typical %.6f us, want %.6f..%.6f", name, r.Typical, tc.lo, tc.hi)
		}
		if math.Abs(r.Max-r.Min) > 1e-9 && tc.hi-tc.lo < 1e-6 {
			t.Errorf("%s: t_min %.6f, t_max %.6f: iterations differ on an empty fabric", name, r.Min, r.Max)
		}
		t.Logf("%s: t_typical %.4f us\n%s", name, r.Typical, rep)
	}
}

// TestPingpong: ibv_*_pingpong's usec/iter is one round trip of SENDs,
// two one-way times (size 64 is inline; the client sends again when the
// server's answer completes), for rc, uc and ud. For UD the 64 bytes
// travel as SEND Only with a DETH, so the one-way time differs slightly:
// within 1%.
func TestPingpong(t *testing.T) {
	prof, sp := hca.DefaultProfile(), swtch.DefaultProfile()
	for _, qt := range []hca.QPType{hca.RC, hca.UC, hca.UD} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, sp)
		pp, err := programs.NewPingpong(h[0], h[1], programs.PingpongConfig{Type: qt, Size: 64, Iters: 100})
		if err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Second, nil)
		want := 2 * oneWay(prof, sp, fabric.OpSendOnly, 64).Seconds() * 1e6
		got := pp.UsecPerIter()
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s: %.4f usec/iter, want %.4f ± 1%%", qt, got, want)
		}
		rep := pp.Report()
		if !strings.Contains(rep, "12800 bytes in 0.00 seconds = ") || !strings.Contains(rep, "100 iters in 0.00 seconds = ") {
			t.Errorf("%s: report:\n%s", qt, rep)
		}
		t.Logf("%s: %.4f usec/iter (closed form %.4f)\n%s", qt, got, want, rep)
	}
}
