package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestDoorbellChain: 16 WRITEs of 64 bytes posted at once, as 16
// ibv_post_send calls and as one chain of 16. Each call's doorbell takes
// the posting thread DoorbellCost, so the separate posts ring at 0, c,
// 2c, ... 15c, and the sixteenth WRITE's packet leaves at 15c + L (L the
// doorbell latency, transmit pipeline, WQE fetch and payload DMA); the
// chain rings once, all 16 are ready at L, and they leave back to back,
// the sixteenth at L + 15 frame times. So the chain's sixteenth packet
// leaves 15 doorbell costs earlier, less the 15 frames it queues behind;
// its first leaves at L both ways.
func TestDoorbellChain(t *testing.T) {
	prof := hca.DefaultProfile()
	if prof.DoorbellCost == 0 {
		prof.DoorbellCost = 300 * sim.Nanosecond
	}
	c := prof.DoorbellCost
	ser := fabric.SerializationTime(int64(fabric.RoCEv2Wire(fabric.OpWriteOnly, 64)), 100*fabric.Gbps)
	if c <= ser {
		t.Fatalf("doorbell cost %v is not above a frame time %v: the closed form below assumes it", c, ser)
	}
	L := prof.DoorbellLatency + prof.TxPktLatency + prof.WQEFetchLatency + prof.DMALatency
	run := func(chain bool) []sim.Time {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
		qa, _ := connect(h[0], h[1])
		var left []sim.Time
		h[0].Port().OnTx = func(_ *fabric.Port, p *fabric.Packet) {
			if p.Kind == fabric.KindData && p.Opcode == fabric.OpWriteOnly {
				left = append(left, eng.Now())
			}
		}
		wrs := make([]hca.SendWR, 16)
		for i := range wrs {
			wrs[i] = hca.SendWR{ID: uint64(i), Op: hca.WRWrite, Length: 64, Signaled: true, RemoteAddr: qa.RemoteAddr + uint64(64*i), RKey: qa.RemoteRKey}
		}
		var ws []*hca.WQE
		if chain {
			var err error
			if ws, err = h[0].PostSendList(qa, wrs); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, wr := range wrs {
				w, err := h[0].PostSend(qa, wr)
				if err != nil {
					t.Fatal(err)
				}
				ws = append(ws, w)
			}
		}
		eng.Run(sim.Second, nil)
		for i, w := range ws {
			if w.Status != hca.WCSuccess {
				t.Fatalf("chain %v: WRITE %d: %v", chain, i, w.Status)
			}
		}
		checkInvariant(t, eng, h)
		if len(left) != 16 {
			t.Fatalf("chain %v: %d WRITE packets left, want 16", chain, len(left))
		}
		return left
	}
	sep, ch := run(false), run(true)
	for i := range 16 {
		if want := sim.Time(i)*c + L; sep[i] != want {
			t.Errorf("separate posts: WRITE %d left at %v, want %v", i, sep[i], want)
		}
		if want := L + sim.Time(i)*ser; ch[i] != want {
			t.Errorf("chain: WRITE %d left at %v, want %v", i, ch[i], want)
		}
	}
	if d := sep[15] - ch[15]; d != 15*(c-ser) {
		t.Errorf("the sixteenth WRITE left %v earlier in a chain, want 15 × (%v − %v)", d, c, ser)
	}
	t.Logf("doorbell cost %v, frame %v: sixteenth WRITE at %v separately, %v in a chain", c, ser, sep[15], ch[15])
}

// TestPostSendListStopsAtBadWR: as ibv_post_send, a chain is posted up to
// the first WR the QP refuses, and the error comes back with the WQEs
// posted before it.
func TestPostSendListStopsAtBadWR(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	qa, _ := connect(h[0], h[1])
	wr := hca.SendWR{Op: hca.WRWrite, Length: 64, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}
	bad := wr
	bad.Op, bad.Length = hca.WRFetchAdd, 3 // an atomic is 8 bytes
	ws, err := h[0].PostSendList(qa, []hca.SendWR{wr, wr, bad, wr})
	if err != hca.ErrInvalidWR || len(ws) != 2 {
		t.Fatalf("got %d WQEs and %v, want 2 and %v", len(ws), err, hca.ErrInvalidWR)
	}
	eng.Run(sim.Second, nil)
	for i, w := range ws {
		if w.Status != hca.WCSuccess {
			t.Errorf("WRITE %d: %v", i, w.Status)
		}
	}
	checkInvariant(t, eng, h)
}
