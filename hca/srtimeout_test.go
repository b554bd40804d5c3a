package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// The losses a selective-repeat timeout must recover when the
// cumulative PSN and the oldest WQE not done disagree: an atomic whose
// response was lost behind a later request's ACK, and, guarding it and
// the READ's (readtail_test.go), a peer gone for good.

// fetchAdd is a FETCH_AND_ADD of 1 on counter, its result into res.
func fetchAdd(res, counter *hca.MR) hca.SendWR {
	return hca.SendWR{Op: hca.WRFetchAdd, SGL: []hca.SGE{{Addr: res.Addr, Len: 8, LKey: res.LKey}},
		RemoteAddr: counter.Addr, RKey: counter.RKey, CompareAdd: 1, Signaled: true}
}

// TestAtomicAckLostAskedAgainByTimeout: a FETCH_AND_ADD then two WRITEs
// of 16 KiB at MTU 1024, the atomic's response (its ATOMIC ACKNOWLEDGE)
// lost once. The WRITEs' ACK moves the cumulative PSN past the atomic,
// which stays una (its response not in): under selective repeat a
// timeout's recovery starts at the cumulative PSN and never resent the
// atomic's request, so 8 timeouts (retry_cnt 7) resent nothing and the
// atomic ended with retry_exc_err (tried: RoCEv2 and UET; go-back-N,
// which rewinds to una, recovered). The timeout now asks for it again
// (srTimeout), and the responder answers from its atomic cache: the
// counter is 1, the result the 0 it held, all three WQEs succeed.
func TestAtomicAckLostAskedAgainByTimeout(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   fabric.Transport
		rt   hca.Retransmit
	}{{"rocev2-selective", fabric.RoCEv2, hca.Selective}, {"uet", fabric.UET, hca.Selective}, {"rocev2-gobackn", fabric.RoCEv2, hca.GoBackN}} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = 1024, c.rt, hca.Direct, c.tr
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			counter := h[1].RegMR(h[1].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
			qa, _ := connect(h[0], h[1])
			h[1].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
				return p.Opcode.Operation() == fabric.OpAtomicAcknowledge
			}))
			res := h[0].RegMR(h[0].DefaultPD(), 8, []byte{9, 9, 9, 9, 9, 9, 9, 9}, hca.AccessAll)
			var ws []*hca.WQE
			for _, wr := range []hca.SendWR{fetchAdd(res, counter),
				{Op: hca.WRWrite, Length: 16 << 10, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey},
				{Op: hca.WRWrite, Length: 16 << 10, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}} {
				w, err := h[0].PostSend(qa, wr)
				if err != nil {
					t.Fatal(err)
				}
				ws = append(ws, w)
			}
			eng.Run(sim.Second, nil)
			if n := h[1].Port().Link().Lost; n != 1 {
				t.Fatalf("%d frames lost, want 1 (the case tests nothing)", n)
			}
			for i, w := range ws {
				if w.Status != hca.WCSuccess {
					t.Errorf("WQE %d: %v; want success", i, w.Status)
				}
			}
			if got := counter.Word(counter.Addr); got != 1 {
				t.Errorf("counter %d, want 1 (the atomic executed once)", got)
			}
			if ws[0].AtomicResult != 0 || res.Word(res.Addr) != 0 {
				t.Errorf("atomic result %d, in memory %d; want 0, the counter's value before", ws[0].AtomicResult, res.Word(res.Addr))
			}
			checkInvariant(t, eng, h)
		})
	}
}

// TestPeerGoneAfterLossStillExceedsRetries: the timeouts that now ask
// again (a READ's, an atomic's) must still give up when the peer is gone. A READ (its
// first response lost) or an atomic (its response lost), a READ behind
// it, h1's link down for good from 30 us: the first WQE ends with
// retry_exc_err after retry_cnt+1 = 8 timeouts (DefaultProfile's
// retry_cnt 7), no progress resetting the count.
func TestPeerGoneAfterLossStillExceedsRetries(t *testing.T) {
	firstResponse := func(p *fabric.Packet) bool { return isOp(p, fabric.OpReadResponseFirst) && p.PSN == 0 }
	atomicAck := func(p *fabric.Packet) bool { return p.Opcode.Operation() == fabric.OpAtomicAcknowledge }
	for _, c := range []struct {
		name string
		tr   fabric.Transport
		op   hca.WROpcode
		lose func(*fabric.Packet) bool
	}{
		{"read-rocev2", fabric.RoCEv2, hca.WRRead, firstResponse},
		{"read-uet", fabric.UET, hca.WRRead, firstResponse},
		{"atomic-rocev2", fabric.RoCEv2, hca.WRFetchAdd, atomicAck},
		{"atomic-uet", fabric.UET, hca.WRFetchAdd, atomicAck},
	} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = 1024, hca.Selective, hca.Direct, c.tr
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			counter := h[1].RegMR(h[1].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
			qa, _ := connect(h[0], h[1])
			gone := false
			h[1].Port().Link().SetLossFilter(func(p *fabric.Packet) bool { return gone || c.lose(p) })
			res := h[0].RegMR(h[0].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
			read := hca.SendWR{Op: hca.WRRead, Length: 16 << 10, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}
			wr := read
			if c.op == hca.WRFetchAdd {
				wr = fetchAdd(res, counter)
			}
			w0, err := h[0].PostSend(qa, wr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h[0].PostSend(qa, read); err != nil {
				t.Fatal(err)
			}
			eng.Run(30*sim.Microsecond, nil)
			gone = true
			eng.Run(sim.Second, nil)
			if w0.Status != hca.WCRetryExceeded {
				t.Errorf("first WQE: %v; want retry_exc_err", w0.Status)
			}
			if n := h[0].Stats.Timeouts; n != 8 {
				t.Errorf("%d timeouts; want 8", n)
			}
		})
	}
}
