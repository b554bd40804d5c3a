package assembly

import (
	"fmt"
	"unsafe"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// The conservation check (DESIGN.md rule 4; summary.json's
// conservation). At the end of every run, each term is counted on its
// own and the equations must hold:
//
//	packets:   sent + flooded = delivered + dropped + in_flight
//	PFC:       made = received + cut + discarded + in_flight
//	bytes:     offered + copied = delivered + dropped + in_flight
//	census:    packets found = packets out of the pool
//
// Sent, flooded and dropped are the counters of the hosts, switches and
// links where they happen; what is still inside (in flight) is found by
// a census: a walk of every wire (the engine's pending arrivals), switch
// queue and pipeline, port and NIC buffer, which owes nothing to those
// counters, and which must find every packet the pool has handed out. A
// counter missed where a packet is dropped, or a packet lost track of,
// makes an equation fail.
//
// Bytes are a flow's payload, offered at its start. An RC flow's
// requester holds every byte until it is acknowledged, so its undelivered
// bytes are in flight while it runs (with connect: cm, while its
// connection is being made too), must all be delivered when it completes,
// and are dropped if it fails. A UD or UC flow's bytes are followed: not
// yet sent (the work requests its application holds until a connect: cm
// connection is made, FlowRun.held, then the requester's queue), found by
// the census in a packet, delivered (the
// receiver's count, which a UC message missing a packet loses again), or
// dropped where a link, switch or NIC discarded them (fabric.Pool.OnDrop).

// maxConservationErrors bounds how many failures summary.json lists.
const maxConservationErrors = 20

// ledger follows the bytes of UD and UC flows, which no one resends:
// what is dropped or copied on the way, by flow (FlowRun.lost, copied)
// and by reason.
//
// A drop or a copy may happen at any node, a flow's counts are read at
// its responder, and in a run cut into partitions those are different
// workers. So in a run with a lookahead (Network.windowed), one worker
// or many, a drop or copy is a note in its partition's list, and the
// notes are applied at the next observation point (settleDatagrams),
// where no partition runs: the counts, and what they decide (a flow
// whose every byte was delivered or lost), change there, the same for
// any number of workers. Without a lookahead they change at once.
type ledger struct {
	flows   map[uint64]*FlowRun // by requester host and QP number (key); written at build and at points only
	reasons map[string]int64    // bytes dropped, by reason
	copied  int64
	// onLost, if set, hears of a flow that lost bytes (after they are
	// counted): a datagram flow may be done with its data then. Without
	// a lookahead only.
	onLost func(fr *FlowRun)
	// notes are the drops and copies not yet applied, by partition
	// (pool); nil without a lookahead.
	notes [][]ledgerNote
}

// ledgerNote is a drop (reason set) or a copy (reason "") of a UD or UC
// flow's payload bytes, noted at the node where it happened.
type ledgerNote struct {
	at     sim.Time
	fr     *FlowRun
	bytes  int64
	reason string
}

// key names a flow by its requester QP: QP numbers are never reused on a
// host, so the pair is unique for the whole run.
func key(host fabric.NodeID, qpn uint32) uint64 { return uint64(host)<<32 | uint64(qpn) }

// init makes the ledger's maps, and its notes' lists for pools
// partitions' pools when deferred (a run with a lookahead).
func (l *ledger) init(pools int, deferred bool) {
	l.flows, l.reasons = map[uint64]*FlowRun{}, map[string]int64{}
	if deferred {
		l.notes = make([][]ledgerNote, pools)
	}
}

// attach has partition part's pool tell the ledger of drops and copies;
// now is that partition's clock.
func (l *ledger) attach(pool *fabric.Pool, part int, now func() sim.Time) {
	pool.OnDrop = func(p *fabric.Packet, reason string, payload int64) {
		if fr := l.flows[key(p.Src, p.SrcQP)]; fr != nil && p.Kind == fabric.KindData {
			l.note(part, ledgerNote{at: now(), fr: fr, bytes: payload, reason: reason})
		}
	}
	pool.OnCopy = func(p *fabric.Packet) {
		if fr := l.flowOf(p); fr != nil {
			l.note(part, ledgerNote{at: now(), fr: fr, bytes: int64(p.Payload)})
		}
	}
}

// note keeps a drop or copy in its partition's list for the next point,
// or, without a lookahead, applies it at once (telling onLost of a
// drop).
func (l *ledger) note(part int, nt ledgerNote) {
	if l.notes != nil {
		l.notes[part] = append(l.notes[part], nt)
		return
	}
	l.applyNote(nt)
	if nt.reason != "" && l.onLost != nil {
		l.onLost(nt.fr)
	}
}

// applyNote counts a drop or a copy against its flow (and a drop under
// its reason); the flow's noteAt is its latest note's time.
func (l *ledger) applyNote(nt ledgerNote) {
	if nt.reason == "" {
		nt.fr.copied += nt.bytes
		l.copied += nt.bytes
	} else {
		nt.fr.lost += nt.bytes
		l.reasons[nt.reason] += nt.bytes
	}
	nt.fr.noteAt = max(nt.fr.noteAt, nt.at)
}

// add follows a UD or UC flow whose requester QP is qpn on host.
func (l *ledger) add(fr *FlowRun, host fabric.NodeID, qpn uint32) { l.flows[key(host, qpn)] = fr }

// flowOf returns the UD or UC flow a data packet belongs to, or nil.
func (l *ledger) flowOf(p *fabric.Packet) *FlowRun {
	if p.Kind != fabric.KindData || p.Payload == 0 {
		return nil
	}
	return l.flows[key(p.Src, p.SrcQP)]
}

// apply applies the notes in order, partition by partition (they only
// add), and returns the flows they were of, and clears them.
func (l *ledger) apply(flows []*FlowRun) []*FlowRun {
	for i, notes := range l.notes {
		for _, nt := range notes {
			l.applyNote(nt)
			flows = append(flows, nt.fr)
		}
		clear(notes)
		l.notes[i] = notes[:0]
	}
	return flows
}

// census is what a walk of the network found at the end of a run.
type census struct {
	found   int64 // distinct packets, of every kind and anywhere (kept ahead of a gap too)
	network int64 // packets other than PFC frames on wires, in switches, being sent
	nicRx   int64 // those that reached a NIC and wait in its receive buffer or pipeline
	unsent  int64 // those a NIC made and has not yet handed to its port
	pfc     int64 // PFC frames, anywhere
	fc      int64 // InfiniBand flow-control packets, anywhere
	// flowBytes is the payload of each UD and UC flow in the packets
	// found (sent, not yet delivered or dropped).
	flowBytes map[*FlowRun]int64
	errors    []string
}

// Where the census found a packet.
const (
	inNetwork = iota
	inNICRx
	inNICUnsent
	inNICKept // received, kept ahead of a gap until it fills: counted once
)

// takeCensus walks every place a packet can be.
func (n *Network) takeCensus() *census {
	c := &census{flowBytes: map[*FlowRun]int64{}}
	// A frame being sent is the port's and its transmission's event's:
	// counted at the port, and not again in the engine. Any other packet
	// found twice is counted twice, and the census then disagrees with
	// the pool. (A set of every packet found was 17 MB at the end of a
	// k=32 fat tree's first millisecond.)
	sending := map[*fabric.Packet]bool{}
	add := func(p *fabric.Packet, where int) {
		c.found++
		switch p.Kind {
		case fabric.KindPause:
			c.pfc++
			return
		case fabric.KindCredit:
			c.fc++
			return
		}
		switch where {
		case inNICKept:
			// received: not in the packet terms, but a UC flow's bytes
			// not yet delivered
		case inNICRx:
			c.nicRx++
		case inNICUnsent:
			c.unsent++
		default:
			c.network++
		}
		if where != inNICUnsent {
			if fr := n.ledger.flowOf(p); fr != nil {
				c.flowBytes[fr] += int64(p.Payload)
			}
		}
	}
	for _, ports := range n.Fabric.Ports {
		for _, p := range ports {
			if s := p.Sending(); s != nil {
				sending[s] = true
			}
			p.EachPacket(func(pkt *fabric.Packet) { add(pkt, inNetwork) })
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			sw.EachPacket(func(pkt *fabric.Packet) { add(pkt, inNetwork) })
		}
	}
	for _, h := range n.HCAs {
		if h != nil {
			h.EachPacket(func(pkt *fabric.Packet) { add(pkt, inNICUnsent) }, func(pkt *fabric.Packet) { add(pkt, inNICRx) },
				func(pkt *fabric.Packet) { add(pkt, inNICKept) })
		}
	}
	kinds := map[*sim.LaneKind]int{}
	for _, k := range fabric.LaneKinds() {
		kinds[k] = inNetwork
	}
	for _, k := range swtch.LaneKinds() {
		kinds[k] = inNetwork
	}
	for _, k := range hca.LaneKinds() {
		kinds[k] = inNICRx
	}
	unknown := 0
	each := n.Eng.EachPending
	if n.Group != nil {
		each = n.Group.EachPending
	}
	each(func(h sim.Handler, data any) {
		p, ok := data.(*fabric.Packet)
		if !ok || sending[p] {
			return
		}
		if _, nic := h.(*hca.HCA); nic {
			add(p, inNICRx) // its receive pipeline without a lane
			return
		}
		add(p, inNetwork)
	}, func(k *sim.LaneKind, data unsafe.Pointer) {
		where, ok := kinds[k]
		if !ok {
			unknown++ // whose data may not be a packet: not read
			return
		}
		if p := (*fabric.Packet)(data); !sending[p] {
			add(p, where)
		}
	})
	if unknown > 0 {
		c.errors = append(c.errors, fmt.Sprintf("census: %d events of a lane kind the census does not know (a model's LaneKinds is incomplete)", unknown))
	}
	return c
}

// conserve counts the packet terms into sum, checks the equations, and
// fills sum.Conservation; the byte terms are flowRows'.
func (n *Network) conserve(sum *reports.Summary, c *census, byteErrors []string) {
	cons := &sum.Conservation
	cons.Errors = append(cons.Errors, c.errors...)
	cons.Census, cons.PoolLive = c.found, int64(n.Fabric.PoolsLive())
	if cons.Census != cons.PoolLive {
		cons.Errors = append(cons.Errors, fmt.Sprintf("census: found %d packets, the pool has %d out", cons.Census, cons.PoolLive))
	}

	var arrived, rxDrops, misdelivered int64
	for _, h := range n.HCAs {
		if h != nil {
			sum.Packets.Sent += h.Stats.TxPackets
			arrived += h.Stats.RxPackets
			rxDrops += h.Stats.RxBufferDrops
			misdelivered += h.Stats.Misdelivered
		}
	}
	drop := func(reason string, k int64) {
		if k > 0 {
			sum.Packets.DropReasons[reason] += k
			sum.Packets.Dropped += k
		}
	}
	for _, sw := range n.Switches {
		if sw == nil {
			continue
		}
		sum.Packets.Flooded += sw.Stats.Flooded
		sum.Packets.Replicated += sw.Stats.Replicated
		for r, k := range sw.Stats.Drops {
			drop(swtch.DropReason(r).String(), k)
		}
	}
	drop("loss", n.Fabric.Lost())
	drop("link_down", n.Fabric.DownDrops())
	drop("nic_buffer", rxDrops)
	drop("misdelivered", misdelivered)
	sum.Packets.Delivered = arrived - rxDrops - c.nicRx
	sum.Packets.InFlight = c.network + c.nicRx
	p := sum.Packets
	if in, out := p.Sent+p.Flooded+p.Replicated, p.Delivered+p.Dropped+p.InFlight; in != out {
		cons.Errors = append(cons.Errors, fmt.Sprintf("packets: sent %d + flooded %d + replicated %d = %d, but delivered %d + dropped %d + in flight %d = %d",
			p.Sent, p.Flooded, p.Replicated, in, p.Delivered, p.Dropped, p.InFlight, out))
	}

	b := &cons.PFCFrames
	fc := &cons.FCPackets
	var applying int64
	for _, ports := range n.Fabric.Ports {
		for _, pt := range ports {
			b.Made += pt.Stats.PauseSent + pt.Stats.ResumeSent
			b.Received += pt.Stats.PauseRecv + pt.Stats.ResumeRecv
			if pt.Credits() {
				// A port's discarded link-control packets are its
				// link's kind: flow-control packets on InfiniBand
				// (each port its own on a mixed network).
				fc.Discarded += pt.Stats.ControlDiscarded
			} else {
				b.Discarded += pt.Stats.ControlDiscarded
			}
			applying += pt.Applying()
		}
	}
	b.Cut = n.Fabric.PausesCut()
	b.InFlight = c.pfc - applying
	for _, ports := range n.Fabric.Ports {
		for _, pt := range ports {
			made, received := pt.FCPackets()
			fc.Made += made
			fc.Received += received
		}
	}
	fc.Cut = n.Fabric.CreditsCut()
	fc.InFlight = c.fc
	for _, x := range []struct {
		what string
		b    *reports.PFCBalance
	}{{"PFC frames", b}, {"flow-control packets", fc}} {
		if out := x.b.Received + x.b.Cut + x.b.Discarded + x.b.InFlight; x.b.Made != out {
			cons.Errors = append(cons.Errors, fmt.Sprintf("%s: made %d, but received %d + cut %d + discarded %d + in flight %d = %d",
				x.what, x.b.Made, x.b.Received, x.b.Cut, x.b.Discarded, x.b.InFlight, out))
		}
	}

	by := sum.Bytes
	if in, out := by.Offered+by.Copied, by.Delivered+by.Dropped+by.InFlight; in != out {
		cons.Errors = append(cons.Errors, fmt.Sprintf("bytes: offered %d + copied %d = %d, but delivered %d + dropped %d + in flight %d = %d",
			by.Offered, by.Copied, in, by.Delivered, by.Dropped, by.InFlight, out))
	}
	cons.Errors = append(cons.Errors, byteErrors...)
	if len(cons.Errors) > maxConservationErrors {
		more := len(cons.Errors) - maxConservationErrors
		cons.Errors = append(cons.Errors[:maxConservationErrors], fmt.Sprintf("and %d more", more))
	}
	cons.OK = len(cons.Errors) == 0
	if !cons.OK {
		sum.Warnings = append(sum.Warnings, "CONSERVATION CHECK FAILED (a simulator bug; please report it with the scenario): "+cons.Errors[0])
	}
}

// flowBytes is one flow's byte terms, and an error if they do not add
// up. delivered is what its receiver accepted; st its outcome.
func (n *Network) flowBytes(fr *FlowRun, c *census, delivered int64, st hca.WCStatus) (inFlight, dropped int64, reason, err string) {
	f := fr.Flow
	if fail := fr.failure(); fail != "" {
		// Never sent (a failed connection), or thrown away by the
		// responder's Terminate with all the requester sent after it,
		// whatever the requester's completions say: none of it will be
		// delivered.
		return 0, f.Size - delivered, fail, ""
	}
	if f.QP == "rc" {
		switch {
		case st == hca.WCPending:
			inFlight = f.Size - delivered
		case st == hca.WCSuccess:
			if delivered != f.Size {
				err = fmt.Sprintf("flow %d: completed with %d of its %d bytes delivered", f.ID, delivered, f.Size)
			}
		default:
			dropped, reason = f.Size-delivered, st.String()
		}
		return inFlight, dropped, reason, err
	}
	inFlight = c.flowBytes[fr] + fr.held()
	if l := fr.Live; l != nil && l.Requester != nil {
		inFlight += n.HCAs[f.Src].UnsentBytes(l.Requester)
	}
	dropped = fr.lost
	if st != hca.WCPending && st != hca.WCSuccess {
		// The requester failed: what it never sent is dropped with its
		// status (a UD or UC requester fails on local errors only).
		if rest := f.Size + fr.copied - delivered - dropped - inFlight; rest > 0 {
			dropped += rest
			reason = st.String()
		}
	}
	if in, out := f.Size+fr.copied, delivered+dropped+inFlight; in != out {
		err = fmt.Sprintf("flow %d (%s): size %d + copied %d = %d, but delivered %d + dropped %d + in flight %d = %d",
			f.ID, f.QP, f.Size, fr.copied, in, delivered, dropped, inFlight, out)
	}
	return inFlight, dropped, reason, err
}
