package swtch

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// DropReason says why a switch discarded a packet.
type DropReason uint8

// Drop reasons, as they appear in summary.json's drop_reasons.
const (
	DropBuffer   DropReason = iota // the shared buffer was full (lossy traffic)
	DropHeadroom                   // a lossless queue overflowed its headroom: PFC is misconfigured
	DropNoRoute                    // no route to the destination
	numDropReasons
)

func (r DropReason) String() string {
	return [...]string{"buffer", "headroom", "no_route"}[r]
}

// Stats are a switch's counters.
type Stats struct {
	Forwarded  int64
	Drops      [numDropReasons]int64
	DropBytes  int64
	PeakBuffer int64
}

// Switch is a store-and-forward switch with one shared buffer, ingress
// accounting per port and priority for PFC, strict-priority egress queues
// per port and priority, and routing by table with per-flow ECMP.
//
// A packet is admitted when its last bit arrives: it is charged to its
// ingress port and priority, and to the shared buffer; if a lossless
// priority's ingress bytes reach XOFF, a PAUSE goes upstream at once. After
// the pipeline latency it joins the egress queue its route picks. When it
// starts to leave, its bytes are released, and a RESUME goes upstream once
// the ingress bytes fall to XON.
type Switch struct {
	ID    fabric.NodeID
	Name  string
	Prof  Profile
	Stats Stats

	eng    *sim.Engine
	pool   *fabric.Pool
	ports  []*fabric.Port
	routes *fabric.Routes

	lossless uint8 // bit i: priority i is lossless
	headroom []int64
	queues   [][8]fabric.PacketQueue
	ingress  [][8]int64
	peakIn   [][8]int64
	xoff     [][8]bool
	refresh  [][8]sim.Timer
	bufUsed  int64
	pipeline int64 // packets admitted and not yet queued at egress
}

// Switch event kinds.
const (
	evForward int32 = iota
	evPauseRefresh
)

var (
	_ fabric.Owner = (*Switch)(nil)
	_ sim.Handler  = (*Switch)(nil)
)

// New attaches a switch to its ports. maxFrame is the largest frame any
// host sends (header to FCS), for the headroom bound.
func New(eng *sim.Engine, pool *fabric.Pool, id fabric.NodeID, name string, prof Profile,
	ports []*fabric.Port, routes *fabric.Routes, maxFrame int64) *Switch {
	s := &Switch{
		ID: id, Name: name, Prof: prof, eng: eng, pool: pool, ports: ports, routes: routes,
		headroom: make([]int64, len(ports)),
		queues:   make([][8]fabric.PacketQueue, len(ports)),
		ingress:  make([][8]int64, len(ports)),
		peakIn:   make([][8]int64, len(ports)),
		xoff:     make([][8]bool, len(ports)),
		refresh:  make([][8]sim.Timer, len(ports)),
	}
	for _, p := range prof.PFC.Priorities {
		s.lossless |= 1 << p
	}
	for i, p := range ports {
		p.SetOwner(s)
		p.ResponseDelay = prof.PFC.responseDelay(p.Rate)
		if prof.PFC.HeadroomAuto {
			s.headroom[i] = HeadroomBound(p.Rate, p.Link().Delay, maxFrame, p.ResponseDelay)
		} else {
			s.headroom[i] = int64(prof.PFC.Headroom)
		}
	}
	return s
}

// responseDelay is the pause response time beyond finishing the frame in
// flight. Provisional: with response: auto the port honours a PAUSE as soon
// as its current frame ends; the per-speed budgets of IEEE 802.1Qbb come
// with the switch issue.
func (c PFC) responseDelay(fabric.Rate) sim.Time {
	if c.ResponseAuto {
		return 0
	}
	return c.Response
}

// HeadroomBound is the buffer a lossless ingress queue needs above XOFF so
// that nothing is lost while a PAUSE takes effect (after IEEE 802.1Qbb
// annex N): the frame whose arrival crosses XOFF (it may overshoot by up to
// one frame), the frame the local port may be sending ahead of the PAUSE,
// the PAUSE itself, the cable's round trip at line rate (data already on
// the wire, and data sent while the PAUSE travels), the frame the upstream
// port has just started, and what it sends during its response time.
func HeadroomBound(r fabric.Rate, delay sim.Time, maxFrame int64, response sim.Time) int64 {
	wire := maxFrame + fabric.PreambleIFGBytes
	return 3*wire + fabric.PFCWireBytes + 2*fabric.BytesIn(delay, r) + fabric.BytesIn(response, r)
}

// Headroom returns the headroom of a port's lossless queues, bytes.
func (s *Switch) Headroom(port int) int64 { return s.headroom[port] }

// Ports returns the switch's ports.
func (s *Switch) Ports() []*fabric.Port { return s.ports }

// QueueBytes is the egress queue depth of port and priority, frame bytes.
func (s *Switch) QueueBytes(port int, prio uint8) int64 { return s.queues[port][prio].Bytes }

// IngressBytes is what port and priority hold in the buffer.
func (s *Switch) IngressBytes(port int, prio uint8) int64 { return s.ingress[port][prio] }

// PeakIngress is the most that port and priority ever held, bytes.
func (s *Switch) PeakIngress(port int, prio uint8) int64 { return s.peakIn[port][prio] }

// BufferUsed is the shared buffer in use, bytes.
func (s *Switch) BufferUsed() int64 { return s.bufUsed }

// Queued is the number of packets in the switch (queued or in the
// pipeline), for conservation checks.
func (s *Switch) Queued() (packets int) {
	for i := range s.queues {
		for prio := range s.queues[i] {
			packets += s.queues[i][prio].Len
		}
	}
	return packets
}

// Receive admits a packet whose last bit has arrived.
func (s *Switch) Receive(p *fabric.Packet, in *fabric.Port) {
	frame := p.Frame()
	prio := p.Priority
	i := in.Index
	if s.lossless&(1<<prio) != 0 {
		if s.ingress[i][prio]+frame > int64(s.Prof.PFC.XOFF)+s.headroom[i] {
			s.drop(p, DropHeadroom)
			return
		}
	}
	if s.bufUsed+frame > int64(s.Prof.Buffer) {
		s.drop(p, DropBuffer)
		return
	}
	s.ingress[i][prio] += frame
	s.peakIn[i][prio] = max(s.peakIn[i][prio], s.ingress[i][prio])
	s.bufUsed += frame
	if s.bufUsed > s.Stats.PeakBuffer {
		s.Stats.PeakBuffer = s.bufUsed
	}
	if s.lossless&(1<<prio) != 0 && !s.xoff[i][prio] && s.ingress[i][prio] >= int64(s.Prof.PFC.XOFF) {
		s.xoff[i][prio] = true
		s.sendPause(i, prio)
	}
	s.pipeline++
	s.eng.After(s.Prof.Latency, s, evForward, 0, p)
}

// InPipeline is the number of packets between admission and the egress
// queue.
func (s *Switch) InPipeline() int64 { return s.pipeline }

func (s *Switch) drop(p *fabric.Packet, why DropReason) {
	s.Stats.Drops[why]++
	s.Stats.DropBytes += int64(p.Payload)
	s.pool.Put(p)
}

// sendPause asks the upstream of port i to stop priority prio for the
// longest pause, and arms a refresh at half that time so that the pause
// never lapses while XOFF holds.
func (s *Switch) sendPause(i int, prio uint8) {
	port := s.ports[i]
	port.SendPause(prio, fabric.MaxQuanta)
	half := fabric.PauseDuration(fabric.MaxQuanta, port.Rate) / 2
	s.refresh[i][prio] = s.eng.After(half, s, evPauseRefresh, int64(i)*8+int64(prio), nil)
}

// HandleEvent runs the switch's own events.
func (s *Switch) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evForward:
		s.pipeline--
		s.forward(ev.Data.(*fabric.Packet))
	case evPauseRefresh:
		i, prio := int(ev.N/8), uint8(ev.N%8)
		if s.xoff[i][prio] {
			s.sendPause(i, prio)
		}
	}
}

func (s *Switch) forward(p *fabric.Packet) {
	next := s.routes.NextPorts(s.ID, p.Dst)
	if len(next) == 0 {
		s.release(p)
		s.drop(p, DropNoRoute)
		return
	}
	out := next[0]
	if len(next) > 1 {
		out = fabric.PickPort(next, p.Flow.Hash(s.Prof.ECMPSeed))
	}
	s.queues[out][p.Priority].Push(p)
	s.Stats.Forwarded++
	s.ports[out].Kick()
}

// NextPacket serves the highest non-paused priority with packets waiting
// (strict priority, 7 first).
func (s *Switch) NextPacket(port *fabric.Port) *fabric.Packet {
	qs := &s.queues[port.Index]
	for prio := 7; prio >= 0; prio-- {
		if qs[prio].Len == 0 || port.Paused(uint8(prio)) {
			continue
		}
		p := qs[prio].Pop()
		s.release(p)
		return p
	}
	return nil
}

// release frees a packet's buffer and sends RESUME when its ingress queue
// has drained to XON.
func (s *Switch) release(p *fabric.Packet) {
	frame := p.Frame()
	i, prio := int(p.InPort), p.Priority
	s.ingress[i][prio] -= frame
	s.bufUsed -= frame
	if s.xoff[i][prio] && s.ingress[i][prio] <= int64(s.Prof.PFC.XON) {
		s.xoff[i][prio] = false
		s.eng.Cancel(s.refresh[i][prio])
		s.ports[i].SendPause(prio, 0)
	}
}
