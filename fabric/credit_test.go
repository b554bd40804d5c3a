package fabric

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// creditSender sends 4 KiB InfiniBand WRITE Middle packets on VL 0
// whenever its port has credit for one.
type creditSender struct {
	pool *Pool
	sent int64
}

func (s *creditSender) NextPacket(p *Port) *Packet {
	frame := int64(IBWire(OpWriteMiddle, 4096, false))
	if !p.HasCredit(0, frame) {
		return nil
	}
	pkt := s.pool.Get()
	pkt.Kind, pkt.Link, pkt.Opcode, pkt.Payload, pkt.Wire = KindData, InfiniBand, OpWriteMiddle, 4096, int32(frame)
	s.sent++
	return pkt
}

func (s *creditSender) Receive(pkt *Packet, _ *Port) { s.pool.Put(pkt) }

// creditSink takes packets into its port's buffer and drains them at
// rate (0: at once), releasing their credit.
type creditSink struct {
	eng   *sim.Engine
	pool  *Pool
	port  *Port
	rate  Rate
	queue PacketQueue
	busy  bool
	bytes int64 // payload drained
	first sim.Time
	hold  int // the first hold packets stay in the buffer for good
	held  int
}

func (k *creditSink) NextPacket(*Port) *Packet { return nil }

func (k *creditSink) Receive(pkt *Packet, p *Port) {
	if k.first == 0 {
		k.first = k.eng.Now()
	}
	if k.rate == 0 {
		k.done(pkt)
		return
	}
	k.queue.Push(pkt)
	if !k.busy {
		k.start()
	}
}

func (k *creditSink) start() {
	k.busy = true
	k.eng.After(SerializationTime(k.queue.Peek().Frame(), k.rate), k, 0, 0, nil)
}

func (k *creditSink) HandleEvent(*sim.Event) {
	k.done(k.queue.Pop())
	k.busy = false
	if k.queue.Len > 0 {
		k.start()
	}
}

func (k *creditSink) done(pkt *Packet) {
	if k.held < k.hold {
		k.held++ // stuck: its buffer is never released
		return
	}
	k.bytes += int64(pkt.Payload)
	k.port.Release(pkt.Priority, pkt.Frame())
	k.pool.Put(pkt)
}

// creditLink joins a sender and a sink over one InfiniBand link of rate
// and one-way delay, with buffer bytes per VL at both ends.
func creditLink(t *testing.T, rate Rate, delay sim.Time, buffer int64, drain Rate) (*sim.Engine, *Network, *creditSender, *creditSink) {
	t.Helper()
	return creditLinkWith(t, rate, delay, buffer, drain, (*Port).EnableCredits)
}

// creditLinkWith is creditLink with the flow control each end runs
// (EnableCredits, or EnableLongHaulCredits between range extenders).
func creditLinkWith(t *testing.T, rate Rate, delay sim.Time, buffer int64, drain Rate, enable func(*Port, int64, int, int64)) (*sim.Engine, *Network, *creditSender, *creditSink) {
	t.Helper()
	eng := sim.NewEngine(1)
	tp, err := Star(2, LinkSpec{Rate: rate, Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	n := NewNetwork(eng, tp)
	h := n.Ports[0][0]
	s := h.Peer()
	snd := &creditSender{pool: n.Pool}
	sink := &creditSink{eng: eng, pool: n.Pool, port: s, rate: drain}
	h.SetOwner(snd)
	s.SetOwner(sink)
	frame := int64(IBWire(OpWriteMiddle, 4096, false))
	enable(h, buffer, 1, frame)
	enable(s, buffer, 1, frame)
	h.Kick()
	return eng, n, snd, sink
}

// TestCreditLimitedLink: a long link whose VL buffer is below the
// bandwidth-delay product carries buffer / credit round trip (a window
// of credits per round trip: IBTA vol. 1, 7.9), within 3%, and doubling
// the buffer doubles it until the link rate caps it. The round trip is
// the two propagation delays, one packet's serialization and one
// flow-control packet's. A sender never overruns the receiver's buffer
// (the port panics if it does).
func TestCreditLimitedLink(t *testing.T) {
	const rate = 100 * Gbps
	delay := 50 * sim.Microsecond // 10 km of fibre
	frame := int64(IBWire(OpWriteMiddle, 4096, false))
	for _, c := range []struct {
		buffer int64
		capped bool
	}{{32 << 10, false}, {64 << 10, false}, {128 << 10, false}} {
		eng, _, _, sink := creditLink(t, rate, delay, c.buffer, 0)
		eng.Run(2*sim.Millisecond, nil)
		got := float64(sink.bytes) * 8 / (2*sim.Millisecond - sink.first).Seconds()
		// Full packets only: the buffer's blocks hold floor(blocks /
		// packet blocks) packets.
		pkts := (c.buffer / BlockBytes) / IBPacketBlocks(frame)
		rtt := 2*delay + SerializationTime(frame, rate) + SerializationTime(FCPacketBytes, rate)
		want := math.Min(float64(rate)*4096/float64(frame), float64(pkts*4096*8)/rtt.Seconds())
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("buffer %d KiB: %.3f Gb/s, want %.3f (buffer / credit round trip) within 3%%", c.buffer>>10, got/1e9, want/1e9)
		}
	}
}

// TestCreditsFollowASlowReceiver: a receiver that drains at 25 Gb/s holds
// a 100 Gb/s sender to that rate, with its buffer never overrun and no
// packet lost.
func TestCreditsFollowASlowReceiver(t *testing.T) {
	eng, n, snd, sink := creditLink(t, 100*Gbps, sim.Microsecond, 32<<10, 25*Gbps)
	eng.Run(sim.Millisecond, nil)
	got := float64(sink.bytes) * 8 / (sim.Millisecond - sink.first).Seconds()
	frame := float64(IBWire(OpWriteMiddle, 4096, false))
	if want := 25e9 * 4096 / frame; math.Abs(got-want)/want > 0.01 {
		t.Errorf("%.3f Gb/s, want %.3f", got/1e9, want/1e9)
	}
	if n.Lost()+n.DownDrops() != 0 || snd.sent-sink.bytes/4096 > (32<<10)/4096+2 {
		t.Errorf("sent %d, drained %d packets, lost %d", snd.sent, sink.bytes/4096, n.Lost()+n.DownDrops())
	}
}

// TestCreditsSurviveLossAndCuts: packets lost on the wire take no credit
// with them (the flow-control packet's FCTBS resets the receiver's
// count), and a cut link retrains: the sender goes on at the rate the
// credits allow after each.
func TestCreditsSurviveLossAndCuts(t *testing.T) {
	eng, n, _, sink := creditLink(t, 100*Gbps, sim.Microsecond, 64<<10, 0)
	h := n.Ports[0][0]
	frame := float64(IBWire(OpWriteMiddle, 4096, false))
	line := 100e9 * 4096 / frame
	rate := func(from, to sim.Time) float64 {
		eng.Run(from, nil)
		before := sink.bytes
		eng.Run(to, nil)
		return float64(sink.bytes-before) * 8 / (to - from).Seconds()
	}
	// 5% of packets lost: what arrives is 95% of the line, late in the
	// phase as early (a leak would shrink the credit over time).
	h.Link().SetLoss(0.05, rand.New(rand.NewPCG(1, 2)))
	early, late := rate(0, 250*sim.Microsecond), rate(250*sim.Microsecond, 500*sim.Microsecond)
	if math.Abs(late-0.95*line)/line > 0.02 || math.Abs(late-early)/line > 0.02 || n.Lost() < 40 {
		t.Errorf("with %d packets lost: %.3f then %.3f Gb/s, want both %.3f within 2%% of the line", n.Lost(), early/1e9, late/1e9, 0.95*line/1e9)
	}
	h.Link().SetLoss(0, nil)
	h.SetDown(true)
	h.Peer().SetDown(true)
	eng.Run(600*sim.Microsecond, nil)
	h.SetDown(false)
	h.Peer().SetDown(false)
	h.Kick()
	if got := rate(610*sim.Microsecond, 1100*sim.Microsecond); math.Abs(got-line)/line > 0.005 {
		t.Errorf("after the link came back: %.3f Gb/s, want %.3f", got/1e9, line/1e9)
	}
}

// TestCreditsWithAStuckBuffer: a receiver whose 128 KiB buffer holds 25
// packets that never leave (their output is blocked) still grants the
// rest: the sender goes on through the 6 packets of room, 6 packets per
// credit round trip within 3%. (A review found the grant held back as
// long as the buffer was fuller than the low-water mark, though the
// sender had credit for no packet: nothing went past the stuck packets.)
func TestCreditsWithAStuckBuffer(t *testing.T) {
	eng, _, _, sink := creditLink(t, 100*Gbps, sim.Microsecond, 128<<10, 0)
	sink.hold = 25
	eng.Run(100*sim.Microsecond, nil)
	before := sink.bytes
	eng.Run(200*sim.Microsecond, nil)
	got := float64(sink.bytes-before) * 8 / (100 * sim.Microsecond).Seconds()
	frame := int64(IBWire(OpWriteMiddle, 4096, false))
	rtt := 2*sim.Microsecond + SerializationTime(frame, 100*Gbps) + SerializationTime(FCPacketBytes, 100*Gbps)
	want := float64(6*4096*8) / rtt.Seconds()
	if math.Abs(got-want)/want > 0.03 {
		t.Errorf("%.3f Gb/s past the stuck packets; want %.3f (6 packets per credit round trip)", got/1e9, want/1e9)
	}
}

// cbfcDuplex is both ends of a CBFC link at once: it sends 4 KiB RoCEv2
// WRITE Middle frames on class 0 whenever its port has credit for one,
// and releases what it receives at once (a receiver that drains at any
// rate), so its port also sends the credit updates that grant the peer.
type cbfcDuplex struct {
	eng   *sim.Engine
	pool  *Pool
	port  *Port
	bytes int64 // payload received
	first sim.Time
}

func (d *cbfcDuplex) NextPacket(p *Port) *Packet {
	wire := int64(RoCEv2Wire(OpWriteMiddle, 4096))
	if !p.HasCredit(0, wire-PreambleIFGBytes) {
		return nil
	}
	pkt := d.pool.Get()
	pkt.Kind, pkt.Link, pkt.Opcode, pkt.Payload, pkt.Wire = KindData, Ethernet, OpWriteMiddle, 4096, int32(wire)
	return pkt
}

func (d *cbfcDuplex) Receive(pkt *Packet, _ *Port) {
	if d.first == 0 {
		d.first = d.eng.Now()
	}
	d.bytes += int64(pkt.Payload)
	d.port.Release(pkt.Priority, pkt.Frame())
	d.pool.Put(pkt)
}

// TestCBFCUpdatesTakeWireTime: CBFC's credit update is an Ethernet frame
// (CBFCUpdateBytes, 84 on the wire) and takes its time on the link it
// travels, as a PFC frame does (review F, finding 3). On a link carrying
// data both ways, each port sends its data and the updates that grant
// its peer's, so each way's goodput is the line's share left by them:
// rate × 4096 × frames / (frames × 4178 + updates × 84), with frames and
// updates the port's own counts, within 0.5%. With a buffer of a few
// frames (16 and 32 KiB, still more than the 100 ns link's credit round
// trip needs) the receiver's credit is always below its low-water mark,
// so it grants each frame as it frees it: an update a frame, 2% of the
// time. When updates took no time each way ran at rate × 4096 / 4178,
// 2% above that share, which this test refuses.
// The transmitter's busy time is its bytes at the line rate, exactly.
func TestCBFCUpdatesTakeWireTime(t *testing.T) {
	const rate = 100 * Gbps
	const run = 500 * sim.Microsecond
	for _, buffer := range []int64{16 << 10, 32 << 10} {
		eng := sim.NewEngine(1)
		tp, err := Star(2, LinkSpec{Rate: rate, Delay: 100 * sim.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		n := NewNetwork(eng, tp)
		a := n.Ports[0][0]
		b := a.Peer()
		da := &cbfcDuplex{eng: eng, pool: n.Pool, port: a}
		db := &cbfcDuplex{eng: eng, pool: n.Pool, port: b}
		a.SetOwner(da)
		b.SetOwner(db)
		wire := int64(RoCEv2Wire(OpWriteMiddle, 4096))
		a.EnableCBFC(buffer, wire-PreambleIFGBytes)
		b.EnableCBFC(buffer, wire-PreambleIFGBytes)
		a.Kick()
		b.Kick()
		eng.Run(run, nil)
		for _, c := range []struct {
			name     string
			tx       *Port
			receiver *cbfcDuplex
		}{{"a to b", a, db}, {"b to a", b, da}} {
			updates, _ := c.tx.FCPackets()
			frames := c.tx.Stats.TxPackets - updates
			if updates < frames/2 {
				t.Fatalf("buffer %d KiB, %s: %d updates for %d frames; the test needs them near one a frame", buffer>>10, c.name, updates, frames)
			}
			share := float64(frames*4096) / float64(frames*wire+updates*CBFCUpdateBytes)
			want := float64(rate) * share
			got := float64(c.receiver.bytes) * 8 / (run - c.receiver.first).Seconds()
			if math.Abs(got-want)/want > 0.005 {
				t.Errorf("buffer %d KiB, %s: %.3f Gb/s, want %.3f (100 Gb/s x 4096 x %d frames / (%d x %d + %d updates x %d)) within 0.5%%; without the updates' time it would be %.3f",
					buffer>>10, c.name, got/1e9, want/1e9, frames, frames, wire, updates, CBFCUpdateBytes, float64(rate)*4096/float64(wire)/1e9)
			}
			if busy := SerializationTime(c.tx.Stats.TxBytes, rate); math.Abs(float64(busy-c.tx.Stats.Busy)) > float64(SerializationTime(wire, rate)) {
				t.Errorf("buffer %d KiB, %s: busy %v for %d bytes sent (%v at line rate)", buffer>>10, c.name, c.tx.Stats.Busy, c.tx.Stats.TxBytes, busy)
			}
		}
	}
}
