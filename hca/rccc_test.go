package hca_test

import (
	"slices"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// sentCredits is an RCCC sender that always holds credit and records
// what the HCA tells it of each request (hca.Credits).
type sentCredits struct {
	backlog, active []int64
}

func (c *sentCredits) CanSend() bool { return true }
func (c *sentCredits) Sent(wire, backlog, window, active int64) int64 {
	c.backlog = append(c.backlog, backlog)
	c.active = append(c.active, active)
	return 1 << 20
}
func (c *sentCredits) Target(backlog, window int64) int64 { return 1 << 20 }
func (c *sentCredits) Heard()                             {}
func (c *sentCredits) Granted(int64)                      {}
func (c *sentCredits) AskOnce() bool                      { return false }

// uetStar is a UET star of n hosts at 100 Gb/s, 1 us links, 4096-byte
// MTU.
func uetStar(t *testing.T, n int) (*sim.Engine, []*hca.HCA) {
	prof := hca.DefaultProfile()
	prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = 4096, hca.Selective, hca.Direct, fabric.UET
	eng, h, _ := star(t, n, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	return eng, h
}

// TestRCCCBacklogOfReads: a QP with three READs of 1 MiB posted has
// three requests to send, not the 768 PSNs their responses take: its
// first request's backlog is the two other requests, 2 full frames
// (hca/rccc.go, creditBacklog), the second's one, the last's none.
// Before, the first's was 512 frames (the other READs' 512 response
// PSNs), 2.2 MB asked for that the QP never sends (tried: 2,159,616
// bytes against 8,436).
func TestRCCCBacklogOfReads(t *testing.T) {
	eng, h := uetStar(t, 2)
	qa, _ := connect(h[0], h[1])
	c := &sentCredits{}
	qa.Credits = c
	for range 3 {
		if _, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRRead, Length: 1 << 20, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}); err != nil {
			t.Fatal(err)
		}
	}
	eng.Run(sim.Second, nil)
	frame := h[0].FullFrame(qa)
	want := []int64{2 * frame, frame, 0}
	if len(c.backlog) != 3 {
		t.Fatalf("%d requests sent; want 3 (backlogs %v)", len(c.backlog), c.backlog)
	}
	for i, b := range c.backlog {
		if b != want[i] {
			t.Errorf("request %d: backlog %d; want %d", i, b, want[i])
		}
	}
}

// TestRCCCActiveSources: a host that sends to two others at once, each
// QP holding credit, tells each request's pull target that two sources
// wait on its link (uet-htsim's UecNIC::activeSources, by which
// computePullTarget divides): each of the 2 × 64 requests of 256 KiB
// WRITEs counts 2 while the other QP still has requests, and 1 at the
// end. Asserted: the first 100 requests each count 2.
func TestRCCCActiveSources(t *testing.T) {
	eng, h := uetStar(t, 3)
	var cs []*sentCredits
	for _, dst := range []*hca.HCA{h[1], h[2]} {
		q, _ := connect(h[0], dst)
		c := &sentCredits{}
		q.Credits = c
		cs = append(cs, c)
		if _, err := h[0].PostSend(q, hca.SendWR{Op: hca.WRWrite, Length: 256 << 10, Signaled: true, RemoteAddr: q.RemoteAddr, RKey: q.RemoteRKey}); err != nil {
			t.Fatal(err)
		}
	}
	eng.Run(sim.Second, nil)
	var twos, total int
	for _, c := range cs {
		for _, a := range c.active {
			total++
			if a == 2 {
				twos++
			}
			if a < 1 || a > 2 {
				t.Errorf("active %d; want 1 or 2", a)
			}
		}
	}
	if total != 128 || twos < 100 {
		t.Errorf("%d requests, %d of them with 2 active; want 128, at least 100", total, twos)
	}
}

// TestRCCCBacklogOfReadsInRecovery: two READs of 1 MiB whose first
// request is lost: the ACK timeout recovers it by resending its request
// (srTimeout, srHole), and the backlog the resend reports does not count
// the 255 response PSNs the recovery spans past it (creditBacklog,
// readRecovered). The recovery spans the first READ and the second's
// request, PSNs 0..256 (the responder SACKed that request and keeps it,
// out of order, until the first READ's request fills the gap: at the
// resend the second READ has no response), so the resend counts 1
// request: the second's, which recovery passes over as SACKed, as it
// counts a WRITE's SACKed PSNs in its span too (not the resend itself:
// TestRCCCBacklogOfAResend). Asserted: the first READ's backlog is the
// second's request, 1 frame, the second's none, every resend's at most
// 1 frame, and the READs complete. Before, the resend reported 257
// frames (tried), then 2 with the resend itself counted.
func TestRCCCBacklogOfReadsInRecovery(t *testing.T) {
	eng, h := uetStar(t, 2)
	qa, _ := connect(h[0], h[1])
	c := &sentCredits{}
	qa.Credits = c
	h[0].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
		return isOp(p, fabric.OpReadRequest)
	}))
	var ws []*hca.WQE
	for range 2 {
		w, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRRead, Length: 1 << 20, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	eng.Run(sim.Second, nil)
	for _, w := range ws {
		if w.Status != hca.WCSuccess {
			t.Fatalf("READ %v; want success", w.Status)
		}
	}
	frame := h[0].FullFrame(qa)
	if len(c.backlog) < 3 {
		t.Fatalf("%d requests sent; want the 2 and a resend (backlogs %v)", len(c.backlog), c.backlog)
	}
	if c.backlog[0] != frame || c.backlog[1] != 0 {
		t.Errorf("the READs' backlogs %d and %d; want 1 frame (%d) and 0", c.backlog[0], c.backlog[1], frame)
	}
	for i, b := range c.backlog {
		if b > frame {
			t.Errorf("request %d: backlog %d; want at most 1 frame, %d (all backlogs %v)", i, b, frame, c.backlog)
		}
	}
}

// TestRCCCBacklogOfAResend: a resend's pull target does not ask for the
// resend itself, as a new request's does not (uet-htsim's sendRtxPacket
// takes the packet off _rtx_backlog before computePullTarget, as
// sendNewPacket takes it off _backlog). A WRITE of 4 packets whose last
// is lost once: the 4 requests' backlogs are 3, 2, 1 and 0 frames, and
// the resends of the last after the ACK timeout (two in this run),
// with nothing after them, 0.
// Before, recovery moved past the resent PSN only after the packet was
// built, and the resend asked for 1 frame (tried).
func TestRCCCBacklogOfAResend(t *testing.T) {
	eng, h := uetStar(t, 2)
	qa, _ := connect(h[0], h[1])
	c := &sentCredits{}
	qa.Credits = c
	h[0].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
		return isOp(p, fabric.OpWriteLast)
	}))
	w, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 4 * 4096, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	if w.Status != hca.WCSuccess {
		t.Fatalf("WRITE %v; want success", w.Status)
	}
	frame := h[0].FullFrame(qa)
	want := []int64{3 * frame, 2 * frame, frame, 0}
	if len(c.backlog) <= len(want) {
		t.Fatalf("backlogs %v; want %v and a resend's", c.backlog, want)
	}
	for i, b := range c.backlog {
		if i < len(want) && b != want[i] || i >= len(want) && b != 0 {
			t.Errorf("request %d: backlog %d; want %v, then 0 for each resend (all: %v)", i, b, want, c.backlog)
		}
	}
}

// grantSink is an RCCC receiver that grants each pull target at once
// (hca.CreditSink): credit never waits on a pacer.
type grantSink struct {
	h  *hca.HCA
	qp *hca.QP
}

func (k *grantSink) PullTarget(pt int64)         { k.h.SendCredit(k.qp, pt) }
func (k *grantSink) Trimmed(pt int64)            { k.h.SendCredit(k.qp, pt) }
func (k *grantSink) Arrived(ce, trim, last bool) {}

// requestCredits is an RCCC sender with credit for a number of requests
// (hca.Credits): each request takes one and asks for none; an RTS asks
// for its backlog, recorded, and a grant of pull bytes gives a request
// a frame of them.
type requestCredits struct {
	left    int64
	frame   int64
	asked   bool
	targets []int64
}

func (c *requestCredits) CanSend() bool                        { return c.left > 0 }
func (c *requestCredits) Sent(wire, backlog, w, a int64) int64 { c.left--; return 0 }
func (c *requestCredits) Target(backlog, window int64) int64 {
	c.targets = append(c.targets, backlog)
	return backlog
}
func (c *requestCredits) Heard() {}
func (c *requestCredits) Granted(pull int64) {
	c.left += (pull + c.frame - 1) / c.frame
	c.asked = false
}
func (c *requestCredits) AskOnce() bool {
	if c.asked {
		return false
	}
	c.asked = true
	return true
}

// TestRCCCReadAskedAgainAsksCredit: a READ whose responses are asked for
// again after a timeout (srTimeout's rewind) sends its request again,
// and the requests after it (the send position goes back), and each
// needs credit: the RTS the timeout sends must ask for them
// (creditBacklog counts what a rewind sends again, a READ's request one
// frame). Four READs of 16 KiB at MTU 1024 on a QP with credit for their
// 4 requests and no more, the first READ's first response lost once; a
// receiver that grants every pull target at once. Asserted: the RTS asks
// for the 4 requests, 4 full frames, and the READs complete. Before, the
// RTS asked for nothing (the backlog counted from the highest PSN sent),
// no credit came, and the first READ ended with retry_exc_err (tried).
func TestRCCCReadAskedAgainAsksCredit(t *testing.T) {
	const size, mtu, reads = 16 << 10, 1024, 4
	prof := hca.DefaultProfile()
	prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = mtu, hca.Selective, hca.Direct, fabric.UET
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	h[1].SetCreditSinks(func(qp *hca.QP) hca.CreditSink { return &grantSink{h[1], qp} })
	qa, _ := connect(h[0], h[1])
	frame := h[0].FullFrame(qa)
	c := &requestCredits{left: reads, frame: frame}
	qa.Credits = c
	h[1].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
		return isOp(p, fabric.OpReadResponseFirst) && p.PSN == 0
	}))
	read := hca.SendWR{Op: hca.WRRead, Length: size, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}
	ws := postAll(t, h[0], qa, slices.Repeat([]hca.SendWR{read}, reads)...)
	eng.Run(sim.Second, nil)
	wantLostOnceAllDone(t, h[1].Port().Link(), "READ", ws)
	if len(c.targets) == 0 || c.targets[0] != reads*frame {
		t.Errorf("the RTSs asked for %v bytes; want the first %d (%d requests of %d)", c.targets, reads*frame, reads, frame)
	}
}
