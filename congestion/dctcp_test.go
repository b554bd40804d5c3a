package congestion

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// dctcpHarness drives a DCTCP sender with a scripted round trip: send
// sends packets, ack acknowledges them one ACK per packet (as the
// receiver does under cc: dctcp), some CE-marked.
type dctcpHarness struct {
	d     *DCTCP
	a     applied
	next  uint32 // next PSN to send
	acked uint32 // next PSN to acknowledge
	mtu   float64
}

func newDCTCPHarness(p DCTCPParams, startPSN uint32) *dctcpHarness {
	h := &dctcpHarness{next: startPSN, acked: startPSN, mtu: 1024}
	path := path100
	path.MTU = 1024
	h.d = NewDCTCP(p, path, h.a.apply)
	return h
}

func (h *dctcpHarness) send(n int) {
	for range n {
		h.d.OnSent(0, &fabric.Packet{PSN: h.next})
		h.next = (h.next + 1) & psnMask
	}
}

// ack acknowledges n packets, of which the first marked carry ECE.
func (h *dctcpHarness) ack(n, marked int) {
	for i := range n {
		a := &fabric.Packet{Kind: fabric.KindAck, PSN: h.acked, Syndrome: fabric.SyndromeACK}
		if i < marked {
			a.ECE = 1
		}
		h.d.OnAck(0, a)
		h.acked = (h.acked + 1) & psnMask
	}
}

// window is the current window in packets.
func (h *dctcpHarness) window() float64 { return float64(h.d.State(0).Window) / h.mtu }

// TestDCTCPStartsAtTheBDP: without initial_window the first window is
// line rate × base RTT (100 Gb/s × 8 us = 100,000 bytes), applied at once
// with the line rate; alpha starts at 1 (RFC 8257 section 4.2).
func TestDCTCPStartsAtTheBDP(t *testing.T) {
	h := newDCTCPHarness(DCTCPDefaults(), 0)
	if h.a.n != 1 || h.a.window != 100000 || h.a.rate != 100*fabric.Gbps {
		t.Fatalf("applied rate %v window %d (%d calls), want 100 Gb/s and 100000 bytes once", h.a.rate, h.a.window, h.a.n)
	}
	if st := h.d.State(0); st.Alpha != 1 || !st.HasAlpha {
		t.Errorf("alpha %v (has %v), want 1", st.Alpha, st.HasAlpha)
	}
}

// TestDCTCPCutsOncePerWindow: with alpha at its initial 1, the first ECE
// cuts the window to W (1 - 1/2); further ECEs from the same window of
// data do not cut again (RFC 3168 section 6.1.2); the first ECE for data
// sent after the cut does, by the alpha then current. The window start
// straddles the 24-bit PSN wrap.
func TestDCTCPCutsOncePerWindow(t *testing.T) {
	h := newDCTCPHarness(DCTCPParams{G: 1.0 / 16, InitialAlpha: 1, InitialWindow: 20 * 1024}, psnMask-5)
	h.send(20)
	h.ack(1, 1)
	near(t, "window after the first ECE", h.window(), 10, 1e-9)
	h.ack(9, 9) // the rest of the cut's window marked too: no second cut
	near(t, "window after more ECEs of the same window", h.window(), 10, 1e-9)
	h.ack(10, 0) // unmarked ACKs grow it, by MTU²/W each
	grown := h.window()
	if grown <= 10 || grown > 11 {
		t.Errorf("window after 10 unmarked ACKs = %.3f packets, want just under 11", grown)
	}
	// The window of data ended with PSN start+19 (snd_nxt at the first
	// ACK): alpha = (15/16)·1 + (1/16)·(10 marked / 20 acked).
	alpha := 15.0/16 + 0.5/16
	near(t, "alpha after one window", h.d.State(0).Alpha, alpha, 1e-12)
	h.send(12)
	h.ack(1, 1)
	near(t, "window after a cut in the next window", h.window(), grown*(1-alpha/2), 1e-3) // State truncates to whole bytes
}

// TestDCTCPAlphaConverges: a steady fraction F of packets marked in every
// window drives alpha to F, by (1-g)^k from where it started (the EWMA of
// RFC 8257 section 3.3).
func TestDCTCPAlphaConverges(t *testing.T) {
	h := newDCTCPHarness(DCTCPParams{G: 1.0 / 16, InitialAlpha: 1, InitialWindow: 1 << 30}, 100)
	const per, marked = 40, 10 // F = 0.25
	for k := 1; k <= 30; k++ {
		h.send(per)
		h.ack(per, marked)
		want := 0.25 + 0.75*math.Pow(15.0/16, float64(k))
		near(t, "alpha", h.d.State(0).Alpha, want, 1e-9)
	}
}

// TestDCTCPGrowsOnePacketPerRound: with no marks and the window above
// ssthresh (the BDP), a round of W packets acknowledged grows W by about
// one MTU (congestion avoidance); below ssthresh a round doubles it (slow
// start).
func TestDCTCPGrowsOnePacketPerRound(t *testing.T) {
	h := newDCTCPHarness(DCTCPDefaults(), 7)
	w0 := h.window()
	round := int(w0)
	h.send(round)
	h.ack(round, 0)
	near(t, "growth in one round above ssthresh, packets", h.window()-w0, 1, 0.02)

	s := newDCTCPHarness(DCTCPParams{G: 1.0 / 16, InitialAlpha: 1, InitialWindow: 10 * 1024}, 7)
	s.send(10)
	s.ack(10, 0)
	near(t, "window after one slow-start round, packets", s.window(), 20, 1e-9)
}

// TestDCTCPHalvesOnALoss: a go-back-N NAK (sequence error) halves the
// window once per window of data, as TCP does on a loss (RFC 8257
// section 3.5), whatever alpha is.
func TestDCTCPHalvesOnALoss(t *testing.T) {
	h := newDCTCPHarness(DCTCPParams{G: 1.0 / 16, InitialAlpha: 0, InitialWindow: 32 * 1024}, 0)
	h.send(32)
	h.ack(4, 0)
	w := h.window()
	nak := &fabric.Packet{Kind: fabric.KindAck, PSN: h.acked, Syndrome: fabric.SyndromeNAKSeqErr}
	h.d.OnAck(0, nak)
	near(t, "window after a NAK", h.window(), w/2, 1e-9)
	h.d.OnAck(0, nak)
	near(t, "window after a second NAK for the same window", h.window(), w/2, 1e-9)
}

// TestDCTCPFloorIsOnePacket: cuts stop at one MTU, the least window that
// still sends.
func TestDCTCPFloorIsOnePacket(t *testing.T) {
	h := newDCTCPHarness(DCTCPParams{G: 1, InitialAlpha: 1, InitialWindow: 2 * 1024}, 0)
	for range 5 {
		h.send(2)
		h.ack(2, 2)
	}
	near(t, "window", h.window(), 1, 1e-9)
}
