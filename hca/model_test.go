package hca_test

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/internal/testnet"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// star builds hosts around one switch with every link at rate and delay,
// and returns the engine, the HCAs and the switch (testnet.Star).
func star(t testing.TB, hosts int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile) (*sim.Engine, []*hca.HCA, *swtch.Switch) {
	t.Helper()
	n, err := testnet.Star(hosts, rate, delay, prof, sp, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n.Eng, n.HCAs, n.Switch
}

// connect makes an RC QP pair and, as ibv_rc_pingpong exchanges them,
// tells each side the other's 64 MiB MR (sizes only, no bytes).
func connect(a, b *hca.HCA) (*hca.QP, *hca.QP) {
	qa, qb := a.CreateQP(), b.CreateQP()
	a.Connect(qa, b.ID, b.IP, qb.QPN)
	b.Connect(qb, a.ID, a.IP, qa.QPN)
	ma := a.RegMR(a.DefaultPD(), 64<<20, nil, hca.AccessAll)
	mb := b.RegMR(b.DefaultPD(), 64<<20, nil, hca.AccessAll)
	qa.RemoteAddr, qa.RemoteRKey = mb.Addr, mb.RKey
	qb.RemoteAddr, qb.RemoteRKey = ma.Addr, ma.RKey
	return qa, qb
}

// TestWriteGoodputAtLineRate: a single RC WRITE at 100 Gb/s delivers
// payload at 100 × MTU / (MTU + 82) Gb/s, 82 bytes being the per-packet
// overhead of a WRITE Middle on the wire: preamble+IFG 20, Ethernet 14,
// IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4 (the closed form).
func TestWriteGoodputAtLineRate(t *testing.T) {
	for _, mtu := range []int{4096, 1024} {
		prof := hca.DefaultProfile()
		prof.MTU = mtu
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
		qa, qb := connect(h[0], h[1])
		w := h[0].PostWrite(qa, 0, 64<<20, 0)
		eng.Run(sim.Second, nil)
		if w.Status != hca.WCSuccess {
			t.Fatalf("MTU %d: WRITE status %v", mtu, w.Status)
		}
		span := qb.LastDelivery - qb.FirstDelivery
		got := float64(qb.Delivered-int64(mtu)) * 8 / span.Seconds() / 1e9
		want := 100 * float64(mtu) / float64(mtu+82)
		if math.Abs(got-want)/want > 0.005 {
			t.Errorf("MTU %d: goodput %.4f Gb/s, want %.4f ± 0.5%%", mtu, got, want)
		}
		t.Logf("MTU %d: goodput %.4f Gb/s (closed form %.4f)", mtu, got, want)
	}
}

// TestOnePacketLatency: without NIC latencies (Profile.Zero), one
// packet's one-way latency is its serialization on each of the two links,
// both propagation delays and the switch's pipeline latency, to the
// picosecond.
func TestOnePacketLatency(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, 1500*sim.Nanosecond, hca.DefaultProfile().Zero(), sp)
	qa, qb := connect(h[0], h[1])
	h[0].PostWrite(qa, 0, 1, 0)
	eng.Run(sim.Second, nil)
	wire := int64(fabric.RoCEv2Wire(fabric.OpWriteOnly, 1)) // 102 bytes: 1 byte of payload padded to 4, with RETH
	if wire != 102 {
		t.Fatalf("WRITE Only of 1 byte is %d bytes on the wire, want 102", wire)
	}
	ser := fabric.SerializationTime(wire, 100*fabric.Gbps)
	want := 2*ser + 2*1500*sim.Nanosecond + sp.Latency
	if qb.FirstDelivery != want {
		t.Errorf("one-way latency %d ps, want %d ps", qb.FirstDelivery, want)
	}
}

// TestIncastWithPFC: eight senders write 4 MiB each to one receiver. With
// PFC on and the 802.1Qbb headroom, nothing is dropped, every WRITE
// completes, pause frames are sent, and the receiver's link stays more
// than 95% busy while senders are active (it is the bottleneck and PFC
// keeps the switch's queue from running dry).
func TestIncastWithPFC(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, sw := star(t, 9, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), sp)
	var ws []*hca.WQE
	var rs []*hca.QP
	for i := 0; i < 8; i++ {
		qa, qb := connect(h[i], h[8])
		ws = append(ws, h[i].PostWrite(qa, i, 4<<20, 0))
		rs = append(rs, qb)
	}
	eng.Run(sim.Second, nil)
	for i, w := range ws {
		if w.Status != hca.WCSuccess || rs[i].Delivered != 4<<20 {
			t.Fatalf("flow %d: status %v, delivered %d", i, w.Status, rs[i].Delivered)
		}
	}
	if d := sw.Stats.Drops; d != [len(d)]int64{} {
		t.Fatalf("drops %v, want none", d)
	}
	var pauses int64
	for _, p := range sw.Ports() {
		pauses += p.Stats.PauseSent
	}
	if pauses == 0 {
		t.Fatal("no PAUSE frames sent")
	}
	first, last := sim.Never, sim.Time(0)
	for _, r := range rs {
		first, last = min(first, r.FirstDelivery), max(last, r.LastDelivery)
	}
	busy := float64(sw.Ports()[8].Stats.Busy) / float64(last-first)
	if busy < 0.95 {
		t.Errorf("receiver link busy %.3f of the time, want > 0.95", busy)
	}
	t.Logf("pauses %d, receiver link busy %.4f", pauses, busy)
}

// TestGoBackNRecoversFromDrops: with headroom far below the 802.1Qbb bound
// the switch drops lossless packets; go-back-N (NAK on the first packet
// after a gap, resend from there) still delivers every byte exactly once.
func TestGoBackNRecoversFromDrops(t *testing.T) {
	sp := swtch.DefaultProfile()
	sp.PFC.HeadroomAuto = false
	sp.PFC.Headroom = 24 * fabric.KiB // the bound for 1 us links is about 33 KiB
	prof := hca.DefaultProfile()
	prof.AckTimeout = 8 // 1 ms
	eng, h, sw := star(t, 5, 100*fabric.Gbps, sim.Microsecond, prof, sp)
	var ws []*hca.WQE
	var rs []*hca.QP
	for i := 0; i < 4; i++ {
		qa, qb := connect(h[i], h[4])
		ws = append(ws, h[i].PostWrite(qa, i, 1<<20, 0))
		rs = append(rs, qb)
	}
	eng.Run(sim.Second, nil)
	if sw.Stats.Drops[swtch.DropHeadroom] == 0 {
		t.Fatal("expected headroom drops with 24 KiB of headroom")
	}
	var retx int64
	for i, w := range ws {
		if w.Status != hca.WCSuccess || rs[i].Delivered != 1<<20 {
			t.Fatalf("flow %d: status %v, delivered %d", i, w.Status, rs[i].Delivered)
		}
		retx += w.Retransmits
	}
	if retx == 0 {
		t.Fatal("drops without retransmissions")
	}
	t.Logf("drops %d, retransmitted packets %d", sw.Stats.Drops[swtch.DropHeadroom], retx)
}

// TestGoBackNUnderRandomLoss: 1/256 random loss on the sender's link; every
// byte still arrives once, in order (the responder accepts only the
// expected PSN), and the loss rate the link produced is near 1/256.
func TestGoBackNUnderRandomLoss(t *testing.T) {
	prof := hca.DefaultProfile()
	prof.AckTimeout = 8
	n, err := testnet.Star(2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile(), 4200)
	if err != nil {
		t.Fatal(err)
	}
	eng, net, h0, h1 := n.Eng, n.Links, n.HCAs[0], n.HCAs[1]
	net.LinkFrom(1, 0).SetLoss(1.0/256, eng.Rand("link/h0"))
	qa, qb := connect(h0, h1)
	w := h0.PostWrite(qa, 0, 16<<20, 0)
	eng.Run(sim.Second, nil)
	if w.Status != hca.WCSuccess || qb.Delivered != 16<<20 {
		t.Fatalf("status %v, delivered %d", w.Status, qb.Delivered)
	}
	l := net.LinkFrom(1, 0)
	rate := float64(l.Lost) / float64(l.Packets())
	if rate < 0.5/256 || rate > 2.0/256 {
		t.Errorf("link lost %.5f of frames, want about 1/256", rate)
	}
	t.Logf("lost %d of %d frames; %d retransmitted", l.Lost, l.Packets(), w.Retransmits)
}
