package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestDeliveredOnceAfterResend: one 64 KiB message (MTU 1024: 64
// packets) whose 11th data packet is lost once. Each scheme resends and
// the message completes; its receiver (the responder for WRITE and SEND,
// the requester for READ's responses) must have counted 65,536 bytes
// delivered, each byte once. Go-back-0 restarts the message from its
// first packet, and the ten packets taken before the loss come again:
// counting them twice gave 65,536 + 10 × 1,024 = 75,776 (a READ's
// requester, and a WRITE's or SEND's responder, forgot the partial
// message but not its bytes).
func TestDeliveredOnceAfterResend(t *testing.T) {
	const size, mtu, lost = 64 << 10, 1024, 11
	for _, rt := range []hca.Retransmit{hca.GoBack0, hca.GoBackN, hca.Selective} {
		for _, c := range []struct {
			op   hca.WROpcode
			data fabric.Opcode // the operation of the message's data packets
		}{
			{hca.WRWrite, fabric.OpWriteMiddle},
			{hca.WRSend, fabric.OpSendMiddle},
			{hca.WRRead, fabric.OpReadResponseMiddle},
		} {
			what := rt.String() + " " + c.data.String()
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit = mtu, rt
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			qa, qb := connect(h[0], h[1])
			// The data goes from the requester, a READ's responses from
			// the responder; a middle packet's PSN is its index, the
			// first (PSN 0) not a middle.
			from := h[0]
			if c.op == hca.WRRead {
				from = h[1]
			}
			from.Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
				return isOp(p, c.data) && p.PSN == lost-1
			}))
			if c.op == hca.WRSend {
				if err := h[1].PostRecv(qb, hca.RecvWR{Length: size}); err != nil {
					t.Fatal(err)
				}
			}
			w, err := h[0].PostSend(qa, hca.SendWR{Op: c.op, Length: size, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
			if err != nil {
				t.Fatal(err)
			}
			eng.Run(sim.Second, nil)
			if w.Status != hca.WCSuccess {
				t.Fatalf("%s: %v", what, w.Status)
			}
			if n := from.Port().Link().Lost; n != 1 {
				t.Fatalf("%s: %d frames lost, want 1 (the case tests nothing)", what, n)
			}
			got := qb.Delivered
			if c.op == hca.WRRead {
				got = qa.ReadDelivered
			}
			if got != size {
				t.Errorf("%s: %d bytes delivered, want %d", what, got, size)
			}
			checkInvariant(t, eng, h)
		}
	}
}
