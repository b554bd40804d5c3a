package observe

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// Timeline follows one iteration of a pingpong or a perftest send_lat
// (observe.timeline): the client's SEND (ping) from its ibv_post_send
// through the NIC, each link and switch to the server's completion, the
// server's answer (pong) back the same way, and each one's RC ACK, every
// stage with the simulated time it began and ended (timeline.csv).
//
// It watches from outside the models: the program tells it of the
// iteration's SENDs and completions (programs.IterationWatcher, which it
// implements), the ports' OnTx hooks of each frame's first bit, and a
// wrapper around each port's owner of each frame's last bit arriving.
// The hooks look at a frame's addresses, QP and PSN, nothing more; a run
// without a timeline has none of them. A run with one stays on one
// worker (the hooks of every node write here).
type Timeline struct {
	v         *View
	traffic   int
	iteration int
	h         [2]*hca.HCA // the client, the server
	qp        [2]*hca.QP
	msgs      [4]tlMsg    // ping, ping_ack, pong, pong_ack
	cqe       [2]sim.Time // the RECV CQE of the iteration on each side
	got       [2]bool
	end       sim.Time // the client's iteration over (its next post)
	ended     bool
}

// The messages of an iteration, in timeline.csv's order.
const (
	tlPing = iota
	tlPingAck
	tlPong
	tlPongAck
)

var tlNames = [4]string{"ping", "ping_ack", "pong", "pong_ack"}

// tlMsg is one message followed: what its frame carries, and the hops
// it made.
type tlMsg struct {
	set      bool
	src, dst fabric.NodeID
	qp, psn  uint32
	kind     fabric.PacketKind
	w        *hca.WQE // the SEND (an ACK's: the SEND it acknowledges)
	hops     []tlHop
	resent   string // the port it was first sent again on ("": none)
	// replayed: that port's link had asked for a link-level replay
	// (switch.llr) by then, which resends every frame after a lost one.
	replayed bool
}

// tlHop is a frame's crossing of one link: its first bit onto the wire
// at port, and its last bit at the peer.
type tlHop struct {
	port    *fabric.Port
	tx      sim.Time
	wire    int64
	at      sim.Time
	arrived bool
}

// NewTimeline follows iteration iteration (from 1) of the pingpong or send_lat of
// traffic[traffic] between client and server, whose QPs are qps: it hooks
// every port of v. Set it as the program's Watch.
func NewTimeline(v *View, traffic, iteration int, client, server *hca.HCA, qps [2]*hca.QP) *Timeline {
	t := &Timeline{v: v, traffic: traffic, iteration: iteration, h: [2]*hca.HCA{client, server}, qp: qps}
	for _, ports := range v.Ports {
		for _, p := range ports {
			prev := p.OnTx
			p.OnTx = func(p *fabric.Port, pkt *fabric.Packet) {
				if prev != nil {
					prev(p, pkt)
				}
				t.sent(p, pkt)
			}
			o := p.Owner()
			if po, ok := o.(fabric.PauseObserver); ok {
				p.SetOwner(&tlPauseOwner{tlOwner{o, t}, po})
			} else {
				p.SetOwner(&tlOwner{o, t})
			}
		}
	}
	return t
}

// tlOwner is a port's owner, told first of each frame that arrives.
type tlOwner struct {
	fabric.Owner
	t *Timeline
}

func (o *tlOwner) Receive(p *fabric.Packet, port *fabric.Port) {
	o.t.arrived(port, p)
	o.Owner.Receive(p, port)
}

// tlPauseOwner is tlOwner for an owner that watches its ports' pauses.
type tlPauseOwner struct {
	tlOwner
	fabric.PauseObserver
}

// match is the message whose frame pkt is, or -1.
func (t *Timeline) match(pkt *fabric.Packet) int {
	for i := range t.msgs {
		m := &t.msgs[i]
		if m.set && pkt.Kind == m.kind && pkt.PSN == m.psn && pkt.DestQP == m.qp && pkt.Src == m.src && pkt.Dst == m.dst {
			return i
		}
	}
	return -1
}

// sent records a followed frame's first bit on port (its first
// transmission there: a resent frame is not followed again).
func (t *Timeline) sent(port *fabric.Port, pkt *fabric.Packet) {
	i := t.match(pkt)
	if i < 0 {
		return
	}
	m := &t.msgs[i]
	for _, h := range m.hops {
		if h.port == port {
			if m.resent == "" {
				nacks, _ := port.Link().LLR()
				m.resent, m.replayed = port.Name, nacks > 0
			}
			return
		}
	}
	m.hops = append(m.hops, tlHop{port: port, tx: port.Engine().Now(), wire: int64(pkt.Wire)})
}

// arrived records a followed frame's last bit at port.
func (t *Timeline) arrived(port *fabric.Port, pkt *fabric.Packet) {
	i := t.match(pkt)
	if i < 0 {
		return
	}
	m := &t.msgs[i]
	for k := range m.hops {
		if h := &m.hops[k]; h.port.Peer() == port && !h.arrived {
			h.at, h.arrived = port.Engine().Now(), true
			return
		}
	}
}

// Posted is told of each SEND (programs.IterationWatcher): the
// iteration's are followed, with their ACKs.
func (t *Timeline) Posted(side, iter int, w *hca.WQE) {
	if iter != t.iteration {
		return
	}
	psn := uint32(w.FirstPSN) & (1<<24 - 1) // BTH's 24 bits, as the requester writes it
	me, peer := t.h[side], t.h[1-side]
	t.msgs[2*side] = tlMsg{set: true, src: me.ID, dst: peer.ID, qp: t.qp[1-side].QPN, psn: psn, kind: fabric.KindData, w: w}
	if t.qp[side].Type == hca.RC {
		t.msgs[2*side+1] = tlMsg{set: true, src: peer.ID, dst: me.ID, qp: t.qp[side].QPN, psn: psn, kind: fabric.KindAck, w: w}
	}
}

// Received is told of each RECV completion (programs.IterationWatcher).
func (t *Timeline) Received(side, iter int, at sim.Time) {
	if iter == t.iteration {
		t.cqe[side], t.got[side] = at, true
	}
}

// Ended is told of each side's iteration's end (programs.IterationWatcher).
func (t *Timeline) Ended(side, iter int, at sim.Time) {
	if side == 0 && iter == t.iteration {
		t.end, t.ended = at, true
	}
}

// Rows are timeline.csv's rows and summary.json's timeline, or an error
// saying what of the iteration did not happen before the run stopped.
func (t *Timeline) Rows() ([]reports.TimelineRow, *reports.IterationTimeline, error) {
	ping, pong := &t.msgs[tlPing], &t.msgs[tlPong]
	switch {
	case !ping.set:
		return nil, nil, fmt.Errorf("observe.timeline: the client never posted the SEND of iteration %d", t.iteration)
	case !t.ended || !pong.set || !t.got[0] || !t.got[1]:
		return nil, nil, fmt.Errorf("observe.timeline: iteration %d was not over when the run stopped", t.iteration)
	}
	for i := range t.msgs {
		if m := &t.msgs[i]; m.resent != "" && i%2 == 0 {
			why := "lost, or resent after a timeout"
			if m.replayed {
				why = "replayed by the link's retry, switch.llr, which resends every frame after a lost one, or resent by the transport"
			}
			return nil, nil, fmt.Errorf("observe.timeline: iteration %d's %s was sent twice on %s (%s): its stages would hide the wait; choose another iteration", t.iteration, tlNames[i], m.resent, why)
		}
	}
	start := ping.w.Posted
	b := &tlBuilder{t: t, start: start}
	b.add("iteration", "total", t.h[0].Name, start, t.end, true)
	b.send(tlPing, 0, t.cqe[1], start)
	b.ack(tlPingAck, t.cqe[1]-t.h[1].Prof.DMALatency)
	b.add(tlNames[tlPong], "program", t.h[1].Name, t.cqe[1], pong.w.Posted, true)
	b.send(tlPong, 1, t.cqe[0], pong.w.Posted)
	b.add(tlNames[tlPong], "send_cqe_wait", t.h[0].Name, t.cqe[0], t.end, true)
	b.ack(tlPongAck, t.cqe[0]-t.h[0].Prof.DMALatency)
	if b.err != nil {
		return nil, nil, b.err
	}
	return b.rows, reports.TimelineSummary(t.traffic, t.iteration, int64(start), b.rows), nil
}

// tlBuilder makes the rows, times from start.
type tlBuilder struct {
	t     *Timeline
	start sim.Time
	rows  []reports.TimelineRow
	err   error
}

// add appends a stage from a to z; a stage of no length is left out.
func (b *tlBuilder) add(msg, stage, where string, a, z sim.Time, critical bool) {
	if z < a && b.err == nil {
		b.err = fmt.Errorf("observe.timeline: %s's %s at %s ends (%v) before it starts (%v)", msg, stage, where, z, a)
	}
	if z == a {
		return
	}
	b.rows = append(b.rows, reports.TimelineRow{Message: msg, Stage: stage, Where: where,
		Start: int64(a - b.start), End: int64(z - b.start), Critical: critical})
}

// send adds a SEND's stages: from its post through the NIC's steps, its
// hops, and the receiver's pipeline to the RECV's CQE at cqe.
func (b *tlBuilder) send(i, side int, cqe, posted sim.Time) {
	m, h, dst := &b.t.msgs[i], b.t.h[side], b.t.h[1-side]
	name := tlNames[i]
	w := m.w
	b.add(name, "post", h.Name, posted, w.Rung(), true)
	at := w.Rung()
	for _, s := range h.SendSteps(w) {
		b.add(name, s.Name, h.Name, at, at+s.D, true)
		at += s.D
	}
	if at != w.Ready() && b.err == nil {
		b.err = fmt.Errorf("observe.timeline: %s's NIC steps end at %v, its WQE was ready at %v", name, at, w.Ready())
	}
	b.hops(name, m, at, true)
	if len(m.hops) > 0 {
		last := m.hops[len(m.hops)-1]
		b.add(name, "rx_pipeline", dst.Name, last.at, cqe-dst.Prof.DMALatency, true)
		b.add(name, "dma_cqe", dst.Name, cqe-dst.Prof.DMALatency, cqe, true)
	}
}

// ack adds an ACK's stages, from the end of the receive pipeline of the
// SEND it acknowledges (made) to the SEND's completion at its requester.
func (b *tlBuilder) ack(i int, made sim.Time) {
	m := &b.t.msgs[i]
	if !m.set || m.resent != "" || len(m.hops) == 0 || !m.hops[len(m.hops)-1].arrived || m.w.Completed == 0 {
		// UC and UD have none; an ACK sent twice (the SEND resent) is
		// not drawn, nor one the responder folded into a later one
		// (hca.ack_every), nor one still on its way when the run stopped
		return
	}
	name := tlNames[i]
	b.hops(name, m, made, false)
	req := b.t.h[i/2]
	last := m.hops[len(m.hops)-1]
	dma := req.Prof.DMALatency
	b.add(name, "rx_pipeline", req.Name, last.at, m.w.Completed-dma, false)
	b.add(name, "dma_cqe", req.Name, m.w.Completed-dma, m.w.Completed, false)
}

// hops adds a frame's stages from ready (when it could go) to its last
// bit at the last hop's peer: the wait for its port, then on each link
// its serialization and propagation, and in each switch its pipeline and
// its egress queue.
func (b *tlBuilder) hops(name string, m *tlMsg, ready sim.Time, critical bool) {
	if len(m.hops) == 0 {
		if b.err == nil {
			b.err = fmt.Errorf("observe.timeline: %s never went on the wire", name)
		}
		return
	}
	b.add(name, "tx_wait", m.hops[0].port.Name, ready, m.hops[0].tx, critical)
	for k, hop := range m.hops {
		if !hop.arrived {
			if b.err == nil {
				b.err = fmt.Errorf("observe.timeline: %s sent on %s never arrived", name, hop.port.Name)
			}
			return
		}
		peer := hop.port.Peer()
		ser := fabric.SerializationTime(hop.wire, hop.port.Rate)
		b.add(name, "serialization", hop.port.Name, hop.tx, hop.tx+ser, critical)
		b.add(name, "propagation", hop.port.Name+">"+peer.Name, hop.tx+ser, hop.at, critical)
		if k+1 == len(m.hops) {
			break
		}
		next := m.hops[k+1]
		sw := b.t.v.Switches[peer.Node]
		pipe := next.tx - hop.at
		if sw != nil {
			pipe = min(pipe, switchLatency(sw.Prof.Latency, sw.Prof.CutThrough, hop.wire, peer.Rate, next.port.Rate))
		}
		where := b.t.v.Topology.Nodes[peer.Node].Name
		b.add(name, "switch_pipeline", where, hop.at, hop.at+pipe, critical)
		b.add(name, "switch_queue", next.port.Name, hop.at+pipe, next.tx, critical)
	}
}

// switchLatency is the pipeline latency a switch gives a frame of wire
// bytes from a port of rate in to one of rate out, as swtch.Switch's
// forward does: its Latency, less under cut-through the time the frame's
// bytes after the header took to arrive, when the egress is no faster.
func switchLatency(latency sim.Time, cutThrough bool, wire int64, in, out fabric.Rate) sim.Time {
	if cutThrough && out <= in {
		saved := fabric.SerializationTime(max(0, wire-fabric.MinFrameBytes), in)
		return max(0, latency-saved)
	}
	return latency
}
