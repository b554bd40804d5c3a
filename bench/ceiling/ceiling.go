// Package ceiling measures how fast the fabric's per-hop model can run
// when its state is laid out for the machine rather than as objects: the
// evidence behind docs/PERFORMANCE.md's "Fifth round" and the target of
// the data-oriented redesign it describes. It is a measuring instrument,
// not a second simulator: it runs only what a permutation of WRITEs over a
// PFC fabric needs, and New refuses anything else.
//
// It runs the same scenario file as lfsim (the same topology, routing
// tables, flows, MTU, ACK coalescing, switch latency, XOFF, XON, PFC
// response delay and NIC receive latency) with the same three events per
// packet-hop (a transmission's end, a link arrival, a switch's or a NIC's
// receive pipeline exit), the same ingress accounting and PAUSE/RESUME
// frames, and egress queues served in arrival order (lfsim's
// switch.egress_fifo). What it leaves out, each cheap per hop or rare:
// priorities other than the flows' one, counters and observers, the NIC's
// transmit side (doorbells, WQE fetches, DMA) and QP state, PAUSE expiry
// and refresh (a PAUSE holds until its RESUME), retransmission. ECMP is
// lfsim's hash, but of a UDP source port from the flow's id, not from QP
// numbers, so flows may take other paths than in lfsim. TestAgainstLfsim holds it to
// lfsim's packet-hops, events and completion time on the same file.
//
// The layout is what the redesign would use: a packet is a 32-byte
// record named by a 32-bit index; a port is one 64-byte record, the
// transmitter, the ingress account and the egress FIFO's ring together;
// an event is 16 bytes (time, target index, packet index) in a FIFO per
// (kind, delay), and the next event is the earliest of those FIFOs' heads.
// No pointer is followed from one object to find the next.
package ceiling

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// Result is what a run did.
type Result struct {
	Events     int64
	PacketHops int64    // frames (data, ACK, PAUSE, RESUME) that crossed a link
	Simulated  sim.Time // when the last flow's last ACK arrived
	MaxQueued  int      // most packets waiting in egress FIFOs at once
	Packets    int      // packet records ever made (the pool's high-water mark)
}

// Packet kinds.
const (
	kData uint8 = iota
	kAck
	kPause
	kResume
)

// packet is 32 bytes: a flow's data packet, its ACK, or a PFC frame.
type packet struct {
	flow   int32 // index in Sim.flows; -1 for PFC frames
	psn    int32 // data: its PSN; ACK: the next PSN expected
	inPort int32 // the port it entered the switch that holds it
	wire   int32 // bytes on the wire, preamble and gap included
	hop    uint8 // switches crossed so far
	kind   uint8
	ackReq bool
	txLane uint8 // the lane of its transmissions' ends (its wire size's)
	_      [12]byte
}

// port is one end of a link, 64 bytes.
type port struct {
	peer    int32 // the port at the other end
	host    int32 // the host's index when this is a host's port, else -1
	held    int32 // ingress bytes held (a switch's port)
	busy    bool
	paused  bool
	xoff    bool
	ctrlN   uint8    // control frames waiting, in ctrlQ
	ctrlQ   [4]uint8 // kPause or kResume, in order
	arrLane uint8    // the lane of this port's link's arrivals
	_       [3]byte
	queue   fifo[int32] // the egress FIFO, of packet indices
	_       [8]byte
}

// host is an end host: the flow it sends and the ACKs it owes.
type host struct {
	port    int32
	sending int32          // flow index, -1 for none
	acks    fifo[[2]int32] // a flow and the next PSN it expects, each
}

// flow is one WRITE.
type flow struct {
	sent     int32 // packets sent
	npkts    int32
	lastWire int32 // the last packet's wire bytes (the others: dataWire)
	firstW   int32 // the first packet's (with its RETH)
	// The lanes of the first and last packets' transmissions.
	firstLane, lastLane uint8
	path                [8]int32
	pathAck             [8]int32
	done                bool
}

// item is a waiting event: 16 bytes.
type item struct {
	at  sim.Time
	a   int32 // the port an event is for
	pkt int32
}

// lane is a FIFO of events of one kind that all wait one delay.
type lane struct {
	fifo[item]
	delay sim.Time
	kind  uint8
}

// Event kinds (one per lane).
const (
	evTxDone uint8 = iota
	evArrive
	evPipe
	evPFC    // a PFC frame takes effect at the port, its response delay after arrival
	evHostRx // a packet leaves a NIC's receive pipeline
)

// Sim is one run's state.
type Sim struct {
	ports []port
	hosts []host
	pk    []packet
	free  []int32
	flows []flow
	lanes []lane

	now               sim.Time
	events, hops      int64
	queued, maxQueued int
	pipeLane, pfcLane uint8
	hostRxLane        uint8
	// The lanes of data, ACK and PFC frames' transmissions.
	dataLane, ackLane, ctrlLane uint8
	dataWire, ackWire           int32
	xoff, xon                   int32 // bytes of frame, as lfsim's ingress accounting
	ackEvery                    int32
	flowsNotDone                int
	lastDone                    sim.Time
	laneOf                      map[[2]int64]uint8 // by kind and delay
	hostOfNode                  []int32            // by node id: the host's index, or -1
	baseOf                      []int32            // by node id: its port 0's global index
	started                     bool               // the hosts' first frames are under way
}

// New builds the run of sc, or says why the kernel cannot run it.
func New(sc *resolve.Scenario) (*Sim, error) {
	sp := sc.Switch
	switch {
	case len(sc.SwitchProfiles) > 0 || len(sc.HCAProfiles) > 0:
		return nil, fmt.Errorf("ceiling: per-node profiles are not supported")
	case sc.HCA.CC != "" && sc.HCA.CC != "none":
		return nil, fmt.Errorf("ceiling: congestion control %q is not supported (none only)", sc.HCA.CC)
	case sp.PFC.XOFFAlpha > 0 || sp.PFC.XONOffset > 0:
		return nil, fmt.Errorf("ceiling: only a static XOFF and XON are supported")
	case sp.CutThrough || sp.Latency <= 0 || sc.HCA.RxPktLatency <= 0:
		return nil, fmt.Errorf("ceiling: store-and-forward switches and NIC receive pipelines with latencies above 0 only")
	case len(sc.Poisson) > 0 || len(sc.Tests) > 0 || len(sc.Faults) > 0:
		return nil, fmt.Errorf("ceiling: only flows (no poisson, perftest or faults) are supported")
	}
	s := &Sim{
		laneOf:   map[[2]int64]uint8{},
		xoff:     int32(sp.PFC.XOFF),
		xon:      int32(sp.PFC.XON),
		ackEvery: int32(sc.HCA.AckEvery),
		dataWire: int32(fabric.RoCEv2Wire(fabric.OpWriteMiddle, sc.HCA.MTU)),
		ackWire:  int32(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0)),
	}
	t := sc.Topology
	s.baseOf = make([]int32, len(t.Nodes))
	s.hostOfNode = make([]int32, len(t.Nodes))
	n := int32(0)
	for id, node := range t.Nodes {
		s.baseOf[id] = n
		n += int32(len(node.Ports))
		s.hostOfNode[id] = -1
		if node.Kind == fabric.Host {
			s.hostOfNode[id] = int32(len(s.hosts))
			s.hosts = append(s.hosts, host{port: s.baseOf[id], sending: -1})
		}
	}
	s.ports = make([]port, n)
	rate := t.Links[0].Rate
	s.pipeLane = s.lane(evPipe, sp.Latency)
	s.hostRxLane = s.lane(evHostRx, sc.HCA.RxPktLatency)
	for id, node := range t.Nodes {
		for i, ref := range node.Ports {
			g := s.baseOf[id] + int32(i)
			p := &s.ports[g]
			l := t.Links[ref.Link]
			p.peer = s.baseOf[ref.Peer] + int32(ref.PeerPort)
			p.host = s.hostOfNode[id]
			p.arrLane = s.lane(evArrive, l.Delay)
			if l.Rate != rate {
				return nil, fmt.Errorf("ceiling: links of several rates are not supported")
			}
		}
	}
	s.pfcLane = s.lane(evPFC, sp.PFC.ResponseDelay(rate))
	txLane := func(wire int32) uint8 {
		return s.lane(evTxDone, fabric.SerializationTime(int64(wire), rate))
	}
	s.dataLane, s.ackLane, s.ctrlLane = txLane(s.dataWire), txLane(s.ackWire), txLane(fabric.PFCWireBytes)
	mtu := int64(sc.HCA.MTU)
	for _, f := range sc.Flows {
		if f.Op != "write" || f.QP != "rc" || f.Start != 0 || len(f.After) > 0 {
			return nil, fmt.Errorf("ceiling: flow %d: only RC WRITEs starting at 0 are supported", f.ID)
		}
		if !slices.Contains(sp.PFC.Priorities, f.Priority) {
			return nil, fmt.Errorf("ceiling: flow %d: only flows on a lossless (PFC) priority are supported", f.ID)
		}
		src, dst := s.hostOfNode[f.Src], s.hostOfNode[f.Dst]
		if s.hosts[src].sending >= 0 {
			return nil, fmt.Errorf("ceiling: host %s sends two flows; one per host is supported", t.Nodes[f.Src].Name)
		}
		npkts := (f.Size + mtu - 1) / mtu
		last := f.Size - (npkts-1)*mtu
		fl := flow{npkts: int32(npkts),
			firstW:   int32(fabric.RoCEv2Wire(fabric.OpWriteFirst, int(min(mtu, f.Size)))),
			lastWire: int32(fabric.RoCEv2Wire(fabric.OpWriteLast, int(last))),
		}
		if npkts == 1 {
			fl.firstW = int32(fabric.RoCEv2Wire(fabric.OpWriteOnly, int(f.Size)))
		}
		fl.firstLane, fl.lastLane = txLane(fl.firstW), txLane(fl.lastWire)
		// The requester's and responder's QP numbers, which set the UDP
		// source port lfsim hashes, are known only once a run creates
		// them; the flow's id stands in for both.
		key := fabric.FlowKey{SrcIP: fabric.HostIP(int(src)), DstIP: fabric.HostIP(int(dst)),
			SrcPort: fabric.RoCEv2SourcePort(uint32(f.ID)), DstPort: fabric.RoCEv2UDPPort}
		var err error
		if fl.path, err = s.route(sc, f.Src, f.Dst, key); err == nil {
			key.SrcIP, key.DstIP = key.DstIP, key.SrcIP
			fl.pathAck, err = s.route(sc, f.Dst, f.Src, key)
		}
		if err != nil {
			return nil, fmt.Errorf("ceiling: flow %d: %w", f.ID, err)
		}
		s.hosts[src].sending = int32(len(s.flows))
		s.flows = append(s.flows, fl)
	}
	if len(s.lanes) > maxLanes {
		return nil, fmt.Errorf("ceiling: %d lanes (kinds of event and their delays: link delays, frame sizes) are needed, at most %d are supported", len(s.lanes), maxLanes)
	}
	s.flowsNotDone = len(s.flows)
	return s, nil
}

// route walks a flow's path with lfsim's routing tables, choosing among
// equal next hops as lfsim's switches do (the 5-tuple key hashed with the
// switch's ECMP seed), and returns the egress port (global) at each
// switch.
func (s *Sim) route(sc *resolve.Scenario, src, dst fabric.NodeID, key fabric.FlowKey) ([8]int32, error) {
	var path [8]int32
	t := sc.Topology
	at := t.Nodes[src].Ports[0].Peer
	for hop := 0; ; hop++ {
		if hop == len(path) {
			return path, fmt.Errorf("paths of more than %d switches are not supported", len(path))
		}
		next := sc.Routes.NextPorts(at, dst)
		if len(next) == 0 {
			return path, fmt.Errorf("no route from %s to %s", t.Nodes[at].Name, t.Nodes[dst].Name)
		}
		out := next[0]
		if len(next) > 1 {
			seed := sc.Switch.ECMPSeed
			if sc.Switch.ECMPPerSwitch {
				seed = fabric.SwitchECMPSeed(seed, t.Nodes[at].Name)
			}
			out = fabric.PickPort(next, key.Hash(seed))
		}
		path[hop] = s.baseOf[at] + out
		ref := t.Nodes[at].Ports[out]
		if ref.Peer == dst {
			return path, nil
		}
		at = ref.Peer
	}
}

// maxLanes bounds the lanes, whose index is a byte: New refuses a
// scenario that needs more.
const maxLanes = 256

// lane returns the lane for events of kind delay after they are posted.
// Past maxLanes it still makes them, so that New can count and refuse.
func (s *Sim) lane(kind uint8, delay sim.Time) uint8 {
	k := [2]int64{int64(kind), int64(delay)}
	if l, ok := s.laneOf[k]; ok {
		return l
	}
	s.lanes = append(s.lanes, lane{delay: delay, kind: kind})
	s.laneOf[k] = uint8(len(s.lanes) - 1)
	return uint8(len(s.lanes) - 1)
}

func (s *Sim) post(l uint8, a, pkt int32) {
	ln := &s.lanes[l]
	ln.push(item{at: s.now + ln.delay, a: a, pkt: pkt})
}

func (s *Sim) get() int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	s.pk = append(s.pk, packet{})
	return int32(len(s.pk) - 1)
}

// control queues a PFC frame on port p, ahead of data.
func (s *Sim) control(p int32, kind uint8) {
	pt := &s.ports[p]
	pt.ctrlQ[pt.ctrlN] = kind
	pt.ctrlN++
	if !pt.busy {
		s.startNext(p)
	}
}

// send starts packet i's transmission on port p.
func (s *Sim) send(p int32, pt *port, i int32) {
	pt.busy = true
	s.post(s.pk[i].txLane, p, i)
}

// startNext starts the next frame on an idle port: a PFC frame, else at a
// host an ACK it owes, else its flow's next packet; at a switch the
// egress FIFO's head, releasing its ingress bytes (a RESUME upstream at
// XON).
func (s *Sim) startNext(p int32) {
	pt := &s.ports[p]
	if pt.ctrlN > 0 {
		kind := pt.ctrlQ[0]
		copy(pt.ctrlQ[:], pt.ctrlQ[1:])
		pt.ctrlN--
		i := s.get()
		s.pk[i] = packet{kind: kind, wire: fabric.PFCWireBytes, flow: -1, txLane: s.ctrlLane}
		s.send(p, pt, i)
		return
	}
	if pt.host >= 0 {
		h := &s.hosts[pt.host]
		if h.acks.len() > 0 {
			ack := h.acks.pop()
			i := s.get()
			s.pk[i] = packet{kind: kAck, wire: s.ackWire, flow: ack[0], psn: ack[1], txLane: s.ackLane}
			s.send(p, pt, i)
			return
		}
		if pt.paused || h.sending < 0 {
			return
		}
		f := &s.flows[h.sending]
		if f.sent == f.npkts {
			return
		}
		wire, lane := s.dataWire, s.dataLane
		switch {
		case f.sent == 0:
			wire, lane = f.firstW, f.firstLane
		case f.sent == f.npkts-1:
			wire, lane = f.lastWire, f.lastLane
		}
		i := s.get()
		f.sent++
		s.pk[i] = packet{kind: kData, wire: wire, flow: h.sending, psn: f.sent - 1, txLane: lane,
			ackReq: f.sent == f.npkts || (s.ackEvery > 0 && f.sent%s.ackEvery == 0)}
		s.send(p, pt, i)
		return
	}
	if pt.paused || pt.queue.len() == 0 {
		return
	}
	i := pt.queue.pop()
	s.queued--
	pkt := &s.pk[i]
	in := &s.ports[pkt.inPort]
	in.held -= pkt.wire - fabric.PreambleIFGBytes
	if in.xoff && in.held <= s.xon {
		in.xoff = false
		s.control(pkt.inPort, kResume)
	}
	s.send(p, pt, i)
}

// arrive takes a frame whose last bit reached port p.
func (s *Sim) arrive(p, i int32) {
	pt := &s.ports[p]
	pkt := &s.pk[i]
	if pkt.kind == kPause || pkt.kind == kResume {
		s.post(s.pfcLane, p, i)
		return
	}
	if pt.host >= 0 {
		s.post(s.hostRxLane, p, i)
		return
	}
	pkt.inPort = p
	pt.held += pkt.wire - fabric.PreambleIFGBytes
	if !pt.xoff && pt.held >= s.xoff {
		pt.xoff = true
		s.control(p, kPause)
	}
	var out int32
	if pkt.kind == kAck {
		out = s.flows[pkt.flow].pathAck[pkt.hop]
	} else {
		out = s.flows[pkt.flow].path[pkt.hop]
	}
	pkt.hop++
	s.post(s.pipeLane, out, i)
}

// hostReceive takes a packet out of host port p's NIC receive pipeline:
// an ACK may complete its flow, a data packet that asks for one makes an
// ACK.
func (s *Sim) hostReceive(p, i int32) {
	pt := &s.ports[p]
	pkt := &s.pk[i]
	f := &s.flows[pkt.flow]
	if pkt.kind == kAck {
		if pkt.psn == f.npkts && !f.done {
			f.done = true
			s.flowsNotDone--
			s.lastDone = s.now
		}
	} else if pkt.ackReq {
		h := &s.hosts[pt.host]
		h.acks.push([2]int32{pkt.flow, pkt.psn + 1})
		if !pt.busy {
			s.startNext(p)
		}
	}
	s.free = append(s.free, i)
}

// pipe puts a packet leaving the pipeline in its egress FIFO.
func (s *Sim) pipe(out, i int32) {
	pt := &s.ports[out]
	pt.queue.push(i)
	s.queued++
	s.maxQueued = max(s.maxQueued, s.queued)
	if !pt.busy {
		s.startNext(out)
	}
}

// Run runs until every flow has completed (or until, whichever is first).
// A later call goes on from where the last one stopped, so that a window
// of simulated time can be timed alone.
func (s *Sim) Run(until sim.Time) Result {
	if !s.started {
		s.started = true
		for _, h := range s.hosts {
			if h.sending >= 0 {
				s.startNext(h.port)
			}
		}
	}
	for s.flowsNotDone > 0 {
		best, bt := -1, sim.Never
		for l := range s.lanes {
			ln := &s.lanes[l]
			if ln.len() > 0 {
				if at := ln.peek().at; at < bt {
					bt, best = at, l
				}
			}
		}
		if best < 0 || bt > until {
			break
		}
		ln := &s.lanes[best]
		it := ln.pop()
		s.now = it.at
		s.events++
		switch ln.kind {
		case evTxDone:
			s.hops++
			pt := &s.ports[it.a]
			pt.busy = false
			s.post(s.ports[pt.peer].arrLane, pt.peer, it.pkt)
			s.startNext(it.a)
		case evArrive:
			s.arrive(it.a, it.pkt)
		case evPipe:
			s.pipe(it.a, it.pkt)
		case evHostRx:
			s.hostReceive(it.a, it.pkt)
		case evPFC:
			pt := &s.ports[it.a]
			pt.paused = s.pk[it.pkt].kind == kPause
			s.free = append(s.free, it.pkt)
			if !pt.paused && !pt.busy {
				s.startNext(it.a)
			}
		}
	}
	return Result{Events: s.events, PacketHops: s.hops, Simulated: s.lastDone, MaxQueued: s.maxQueued, Packets: len(s.pk)}
}

// Completed reports whether every flow completed.
func (s *Sim) Completed() bool { return s.flowsNotDone == 0 }
