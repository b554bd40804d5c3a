package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/multipath"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// startFlow makes the flow's QP pair (qp: rc, uc or ud), registers the
// responder's memory (a region of the flow's size, without bytes), posts
// the RECVs that SEND and WRITE with immediate consume, and returns the
// work requests to post at the flow's start (or, with connect: cm, when
// the connection is made): one, or for a flow longer than the NIC's
// largest message (hca.Profile.MaxMsgSize) as many as it takes, back to
// back on the same QP, as an application must. Without connect: cm the
// QPs are connected now, out of band.
func startFlow(src, dst *hca.HCA, f resolve.Flow) (*hca.QP, *hca.QP, *hca.MR, []hca.SendWR) {
	t := qpType(f.QP)
	rq, rs := src.CreateTypedQP(t), dst.CreateTypedQP(t)
	if t != hca.UD && !f.CM {
		src.Connect(rq, dst.ID, dst.IP, rs.QPN)
		dst.Accept(rs, src.ID, src.IP, rq.QPN)
	}
	rq.Priority, rs.Priority = f.Priority, f.Priority // the responder's READ responses go in the flow's priority too
	rq.SL, rs.SL = f.SL, f.SL
	if f.DSCPSet {
		rq.DSCP, rq.DSCPSet, rs.DSCP, rs.DSCPSet = f.DSCP, true, f.DSCP, true
	}
	mr, rkey := remoteRegion(dst, f)
	wrs, recvs := flowWork(src, dst, f, mr.Addr, rkey, rs.QPN, rs.QKey)
	postRecvs(dst, rs, f, recvs)
	return rq, rs, mr, wrs
}

func qpType(qp string) hca.QPType {
	return map[string]hca.QPType{"rc": hca.RC, "uc": hca.UC, "ud": hca.UD}[qp]
}

// flowWork is flow f's work requests, into the region at addr with rkey
// (a UD datagram goes to the responder's QP number qpn with its Q_Key
// qkey), and the sizes of the RECVs its SENDs consume.
func flowWork(src, dst *hca.HCA, f resolve.Flow, addr uint64, rkey uint32, qpn, qkey uint32) (wrs []hca.SendWR, recvs []int64) {
	t := qpType(f.QP)
	maxMsg := max(1, min(src.Prof.MaxMsgSize, dst.Prof.MaxMsgSize))
	n := f.WorkRequests(maxMsg, maxMsg)
	off := int64(0)
	for i := int64(0); i < n; i++ {
		size := partSize(f, i, n, maxMsg)
		wr := hca.SendWR{ID: uint64(f.ID), Length: size, Signaled: true, RemoteAddr: addr + uint64(off), RKey: rkey}
		switch f.Op {
		case "write":
			wr.Op = hca.WRWrite
		case "write_imm":
			wr.Op = hca.WRWriteImm
		case "send":
			wr.Op = hca.WRSend
		case "read":
			wr.Op = hca.WRRead
		case "atomic":
			wr.Op, wr.CompareAdd = hca.WRFetchAdd, 1
		}
		if f.Op == "send" || f.Op == "write_imm" {
			if t == hca.UD {
				size += 40 // the GRH
			}
			recvs = append(recvs, size)
		}
		if t == hca.UD {
			wr.AH, wr.RemoteQPN, wr.RemoteQKey = &hca.AH{Dest: dst.ID, DestIP: dst.IP}, qpn, qkey
		}
		wrs = append(wrs, wr)
		off += wr.Length
	}
	return wrs, recvs
}

// postRecvs posts the RECVs of sizes recvs on rs, flow f's responder QP,
// at the flow's recv_at if that is after its start (or now, if recv_at
// has passed: a responder made a lookahead after the start,
// openResponder).
func postRecvs(dst *hca.HCA, rs *hca.QP, f resolve.Flow, recvs []int64) {
	for _, size := range recvs {
		if f.RecvAt > f.Start {
			dst.PostRecvAt(rs, hca.RecvWR{ID: uint64(f.ID), Length: size}, max(f.RecvAt, dst.Engine().Now()))
		} else if err := dst.PostRecv(rs, hca.RecvWR{ID: uint64(f.ID), Length: size}); err != nil {
			panic(err) // the loader keeps a flow's parts within the receive queue
		}
	}
}

// partSize is the size in bytes of the i-th of flow f's n work requests
// (Flow.WorkRequests). With flow.messages the flow's size is shared out as
// evenly as whole bytes allow: the first size mod n one byte longer than
// the rest (the loader keeps each within maxMsg and at least one byte);
// without, each is maxMsg but the last, which takes the rest.
func partSize(f resolve.Flow, i, n, maxMsg int64) int64 {
	if f.Messages > 0 {
		size := f.Size / n
		if i < f.Size%n {
			size++
		}
		return size
	}
	return min(maxMsg, f.Size-i*maxMsg)
}

// chains cuts a flow's work requests into the chains that one
// ibv_post_send posts each (flow.post_list): n at a time, or one by one.
func chains(wrs []hca.SendWR, n int32) [][]hca.SendWR {
	size := max(int(n), 1)
	out := make([][]hca.SendWR, 0, (len(wrs)+size-1)/size)
	for len(wrs) > size {
		out = append(out, wrs[:size:size])
		wrs = wrs[size:]
	}
	return append(out, wrs)
}

// remoteRegion registers the responder's region for flow f (a region of
// the flow's size without bytes, every access allowed, unless
// flow.remote_mr says otherwise) and returns it with the key the requests
// carry: a key no region has, under remote_mr.rkey: invalid (regions'
// keys step by 0x100 from a small base, so the high bit is never one).
func remoteRegion(dst *hca.HCA, f resolve.Flow) (*hca.MR, uint32) {
	r := regionOf(dst, f)
	mr := dst.RegMR(r.pd, r.length, nil, r.access)
	return mr, r.rkey(mr.RKey)
}

// region is how flow f's responder registers its region (flow.remote_mr):
// in its host's default PD or another, at the flow's size or the given
// length, with every access or the given ones, and a bad R_Key for the
// requester when asked.
type region struct {
	pd     *hca.PD
	length int64
	access hca.Access
	bad    bool
}

// regionOf is flow f's region at dst (region); another PD is allocated
// there.
func regionOf(dst *hca.HCA, f resolve.Flow) region {
	r := region{pd: dst.DefaultPD(), length: f.Size, access: hca.AccessAll}
	if m := f.Remote; m != nil {
		if m.OtherPD {
			r.pd = dst.AllocPD()
		}
		if m.Length > 0 {
			r.length = m.Length
		}
		r.access, r.bad = m.Access, m.BadRKey
	}
	return r
}

// rkey is the R_Key the requester uses for the region's key.
func (r region) rkey(key uint32) uint32 {
	if r.bad {
		return key | 1<<31
	}
	return key
}

// flowPath is the way a flow's packets take: the links they cross, in
// order, the switches between them, and the switch latency summed over
// those switches. ok is false when a switch has no route.
type flowPath struct {
	links []fabric.TopoLink
	// switches are the switches between the links: switches[i] takes
	// what links[i] brings to links[i+1].
	switches []pathSwitch
	latency  sim.Time
	ok       bool
	// wire is the bytes a packet takes on the path's links (RoCEv2 or
	// InfiniBand framing).
	wire func(op fabric.Opcode, payload int) int64
}

// pathSwitch is what a switch on a flow's path spends on a packet
// besides its queue: its pipeline latency (switch.Profile.Latency) and
// whether it forwards cut-through (switch.Profile.CutThrough, on by
// default on InfiniBand).
type pathSwitch struct {
	latency sim.Time
	cut     bool
}

// pathOf follows the path the flow's ECMP hash picks (its requester QP's
// number sets the UDP source port). A flow's path is computed once, when
// it starts, and serves its ideal FCT, its base RTT and its close delay.
func (n *Network) pathOf(f resolve.Flow, qp *hca.QP) flowPath { return n.pathOfQPN(f, qp.QPN) }

// pathOfQPN is pathOf for the requester QP numbered qpn.
func (n *Network) pathOfQPN(f resolve.Flow, qpn uint32) flowPath {
	t := n.Scenario.Topology
	key := fabric.FlowKey{SrcIP: n.HCAs[f.Src].IP, DstIP: n.HCAs[f.Dst].IP, SrcPort: fabric.RoCEv2SourcePort(qpn), DstPort: fabric.RoCEv2Port}
	if o := n.HCAs[f.Src].Prof.Overlay; o != nil {
		key = o.Outer(key) // the switches hash the outer headers
	}
	p := flowPath{wire: n.Scenario.Wire}
	at, port := f.Src, 0
	for hops := 0; hops < len(t.Nodes); hops++ {
		ref := t.Nodes[at].Ports[port]
		p.links = append(p.links, t.Links[ref.Link])
		at = ref.Peer
		if at == f.Dst {
			p.ok = true
			return p
		}
		sw := n.Switches[at]
		p.latency += sw.Prof.Latency
		p.switches = append(p.switches, pathSwitch{latency: sw.Prof.Latency, cut: sw.Prof.CutThrough})
		next := n.Scenario.RoutesAt(at).NextPorts(at, f.Dst)
		if len(next) == 0 {
			return flowPath{wire: p.wire}
		}
		port = int(next[0])
		if len(next) > 1 {
			port = int(fabric.PickPort(next, key.Hash(sw.ECMPSeed())))
		} else if lmc := n.Scenario.IB.LMC; lmc > 0 && n.Scenario.LinkLayer == fabric.InfiniBand {
			p, _ := n.Scenario.Routes.LFTPort(at, f.Dst, int(key.SrcPort)&(1<<lmc-1))
			port = int(p)
		}
	}
	return flowPath{wire: p.wire}
}

// oneWayDelay is the propagation delays and switch latencies along the
// path: the least time a message from its source takes to reach its
// destination. Without a route, the source link's delay (srcLink).
func (p flowPath) oneWayDelay(srcLink sim.Time) sim.Time {
	if !p.ok {
		return srcLink
	}
	latency := p.latency
	for _, l := range p.links {
		latency += l.Delay
	}
	return latency
}

// reversed is the path the other way: the responder's ACKs and READ
// responses (on a fat tree's ECMP the way back may take other switches,
// but as many, of the same links' rates and delays).
func (p flowPath) reversed() flowPath {
	r := p
	r.links = make([]fabric.TopoLink, len(p.links))
	for i, l := range p.links {
		r.links[len(p.links)-1-i] = l
	}
	r.switches = make([]pathSwitch, len(p.switches))
	for i, s := range p.switches {
		r.switches[len(p.switches)-1-i] = s
	}
	return r
}

// packetRun is count packets of wire bytes each, one after another.
type packetRun struct {
	wire  int64
	count int64
}

// arrival is when the last bit of the last of runs' packets reaches the
// path's far end (sim.Time, picoseconds), the first packet leaving its
// source at 0 and the rest back to back behind it: every link a server
// that sends one packet at a time in order, at its rate, and then its
// propagation delay; every switch a pure delay (its latency; with
// cut-through less the frame past its first 64 bytes, at most the
// latency, where the next link is no faster: switch.Switch.forward). It is the longest path through
// the grid of packets × links (the tandem queue's max-plus form:
// completion of packet i on link j is its serialization there after the
// later of its arrival from link j−1 and packet i−1's completion on link
// j), taken a run at a time: within a run of c equal packets the path
// that enters at link a and leaves at link b spends its c−1 extra
// packets on the slowest link between. Exact for the model (Σ runs ×
// links² steps), whatever the links' rates and the switches' latencies;
// a short last packet queues behind the full one before it on a later
// link, which one packet's store and forward a hop would miss.
func (p flowPath) arrival(runs []packetRun) sim.Time {
	m := len(p.links)
	done := make([]sim.Time, m) // when the last packet so far left link j
	next := make([]sim.Time, m)
	ser := make([]sim.Time, m)
	gap := make([]sim.Time, m) // link j's propagation and the switch after it
	for _, r := range runs {
		if r.count <= 0 {
			continue
		}
		for j, l := range p.links {
			ser[j] = fabric.SerializationTime(r.wire, l.Rate)
			if j+1 < m {
				gap[j] = l.Delay + p.switchDelay(j, r.wire)
			}
		}
		for j := range m {
			best := sim.Time(-1)
			var path, slowest sim.Time // from link a to j: the first packet's serializations and gaps, and the slowest serialization
			for a := j; a >= 0; a-- {
				path += ser[a]
				if a < j {
					path += gap[a]
				}
				slowest = max(slowest, ser[a])
				best = max(best, done[a]+path+sim.Time(r.count-1)*slowest)
			}
			next[j] = best
		}
		done, next = next, done
	}
	return done[m-1] + p.links[m-1].Delay
}

// switchDelay is what switches[j] holds a packet of wire bytes between
// links[j] and links[j+1] (switch.Switch.forward): its latency, less,
// with cut-through onto a link no faster, the frame's serialization past
// its first 64 bytes (fabric.MinFrameBytes) at the incoming rate, at
// most the latency.
func (p flowPath) switchDelay(j int, wire int64) sim.Time {
	s := p.switches[j]
	if !s.cut || p.links[j+1].Rate > p.links[j].Rate {
		return s.latency
	}
	saved := fabric.SerializationTime(max(0, wire-fabric.MinFrameBytes), p.links[j].Rate)
	return max(0, s.latency-saved)
}

// idealNIC is what the two hosts' NICs spend on a flow alone on the
// empty fabric, the fixed latencies of the HCA model (hca.Profile) on
// its critical path, from the post that starts the FCT to the event that
// ends it.
type idealNIC struct {
	// send is the requester's, between the post and the first packet's
	// first bit (hca/post.go post, hca.WQE.Ready): DoorbellLatency,
	// WQEFetchLatency (a flow's WRs are not inline), the DMA read of the
	// payload (DMALatency, WRITE and SEND; not READ or atomics, whose
	// requests carry none) and the transmit pipeline (TxPktLatency).
	// Once a flow: its later packets follow back to back, the pipeline
	// overlapping the serialization (and its later WRs were posted with
	// the first).
	send sim.Time
	// rxDst and rxSrc are the responder's and the requester's receive
	// pipeline (RxPktLatency, hca/receive.go afterPipeline), which the
	// last packet, and the ACK or READ response that ends the flow,
	// each cross once.
	rxDst, rxSrc sim.Time
	// srcWire and dstWire are the bytes a packet takes on the wire as
	// the requester and the responder frame it (hca.HCA.Wire): the
	// requests, and the ACKs and READ responses.
	srcWire, dstWire func(op fabric.Opcode, payload int) int64
	// cqe is the requester's completion: its CQE visible DMALatency
	// after the ACK or last response (hca/post.go complete). For UC and
	// UD, whose flow ends when the responder has the data, the
	// responder's DMALatency (the written data visible, OnWrite, or the
	// RECV's completion).
	cqe sim.Time
}

// nicsOf is idealNIC for flow f from requester src to responder dst,
// each with its own profile (hca.HCA.Prof).
func nicsOf(f resolve.Flow, src, dst *hca.HCA) idealNIC {
	s, d := &src.Prof, &dst.Prof
	nic := idealNIC{send: s.DoorbellLatency + s.WQEFetchLatency + s.TxPktLatency, rxDst: d.RxPktLatency, rxSrc: s.RxPktLatency, cqe: s.DMALatency,
		srcWire: src.Wire, dstWire: dst.Wire}
	if f.Op != "read" && f.Op != "atomic" && f.Size > 0 {
		nic.send += s.DMALatency
	}
	if f.QP != "rc" {
		nic.rxSrc, nic.cqe = 0, d.DMALatency
	}
	return nic
}

// idealFCT is flow f's completion time alone on an empty network, along
// the path, in picoseconds (sim.Time), its QP's path MTU mtu, its
// packets with HPCC's INT header when withINT (and its ACKs, which echo
// it): what the model takes for it with nothing else on the fabric.
//
//   - The requester's NIC to its first packet (idealNIC.send), from its
//     profile.
//   - Its packets through the path (arrival): WRITE, SEND and atomics
//     forward, the wire bytes of each as the NIC frames it (first, middle,
//     last or only of every message, hca.Profile.MaxMsgSize or
//     flow.messages apart: resolve.Flow.WorkRequests), through every
//     link's serialization and propagation, every switch's latency
//     (cut-through's saving too) and the queueing behind its own earlier
//     packets; then the responder's receive pipeline.
//   - RC: the ACK of the last packet back along the path (or the atomic's
//     response), the requester's receive pipeline and the CQE's DMA. A
//     READ's request goes forward alone, the responder's receive
//     pipeline, then its responses come back as a WRITE's packets go,
//     and the requester's receive pipeline and CQE; the responder spends
//     no fixed latency on them (hca/responder.go queueRead).
//   - UC and UD: no ACK; the flow ends when the responder has the data,
//     its DMALatency after its receive pipeline (assembly's
//     responderArrived, at OnWrite or OnRecv).
//
// Each term is in the model's own units (sim.Time, from the links' rates
// and delays, the switches' latencies and the NICs' profiles, the
// defaults of hca.DefaultProfile: 200 + 450 + 300 + 200 ns before the
// first packet, 200 ns at each receive, 300 ns for the CQE).
//
// Exact for one RC or UC/UD message of any size over RoCEv2, RoCEv1 and
// InfiniBand, and over UET (the same NIC, its own framing); where it
// cannot be: iWARP's TCP holds a flow past its first window (slow start
// from the initial window, the send buffer: a lone long iWARP flow runs
// above this bound); a congestion control that starts below line rate,
// or whose window is less than the round trip (HPCC's window is the
// path's BDP at its base RTT, which leaves out the NICs' latencies), holds
// a long flow back; a READ of many messages (max_rd_atomic requests out
// at once, each's responses behind its request) is taken as one stream;
// rdma_cm's connection time (connect: cm) and a posting thread's doorbell
// cost (hca.doorbell_cost) are not counted; the way back is taken as the
// way forward reversed. 0 without a route.
func (p flowPath) idealFCT(f resolve.Flow, mtu, maxMsg int64, nic idealNIC, withINT bool) sim.Time {
	if !p.ok || len(p.links) == 0 {
		return 0
	}
	tr := fabric.TransportRC
	switch f.QP {
	case "uc":
		tr = fabric.TransportUC
	case "ud":
		tr = fabric.TransportUD
	}
	intBytes := int64(0)
	if withINT {
		intBytes = fabric.INTHeaderBytes
	}
	wire := func(op fabric.Opcode, payload int64) int64 { return nic.srcWire(tr|op, int(payload)) + intBytes }
	ack := func(op fabric.Opcode, payload int64) int64 { return nic.dstWire(tr|op, int(payload)) + intBytes }
	back := p.reversed()
	total := nic.send + nic.rxDst
	switch f.Op {
	case "read":
		total += p.arrival([]packetRun{{wire(fabric.OpReadRequest, 0), 1}})
		intBytes = 0 // READ responses carry no INT (hca/responder.go readResponsePacket)
		total += back.arrival(p.messages(f, mtu, maxMsg, ack, readOps))
	case "atomic":
		total += p.arrival([]packetRun{{wire(fabric.OpFetchAdd, 0), 1}})
		total += back.arrival([]packetRun{{ack(fabric.OpAtomicAcknowledge, 0), 1}})
	default:
		ops := writeOps
		switch f.Op {
		case "send":
			ops = sendOps
		case "write_imm":
			ops = writeImmOps
		}
		total += p.arrival(p.messages(f, mtu, maxMsg, wire, ops))
		if f.QP == "rc" {
			total += back.arrival([]packetRun{{ack(fabric.OpAcknowledge, 0), 1}})
		}
	}
	return total + nic.rxSrc + nic.cqe
}

// messageOps are the opcodes of a message's packets: first, middle, last
// and only (IBTA vol. 1, 9.4).
type messageOps struct{ first, middle, last, only fabric.Opcode }

var (
	writeOps    = messageOps{fabric.OpWriteFirst, fabric.OpWriteMiddle, fabric.OpWriteLast, fabric.OpWriteOnly}
	writeImmOps = messageOps{fabric.OpWriteFirst, fabric.OpWriteMiddle, fabric.OpWriteLastImm, fabric.OpWriteOnlyImm}
	sendOps     = messageOps{fabric.OpSendFirst, fabric.OpSendMiddle, fabric.OpSendLast, fabric.OpSendOnly}
	readOps     = messageOps{fabric.OpReadResponseFirst, fabric.OpReadResponseMiddle, fabric.OpReadResponseLast, fabric.OpReadResponseOnly}
)

// messages is flow f's packets as runs, message by message (its work
// requests of at most maxMsg bytes, flowWork's partSize, the larger
// parts first), each cut at mtu; wire frames one.
func (p flowPath) messages(f resolve.Flow, mtu, maxMsg int64, wire func(fabric.Opcode, int64) int64, ops messageOps) []packetRun {
	maxMsg = max(1, maxMsg)
	n := f.WorkRequests(maxMsg, maxMsg)
	var runs []packetRun
	for i := range n {
		size := partSize(f, i, n, maxMsg)
		pkts := max(1, (size+mtu-1)/mtu)
		if pkts == 1 {
			runs = append(runs, packetRun{wire(ops.only, size), 1})
			continue
		}
		runs = append(runs, packetRun{wire(ops.first, mtu), 1}, packetRun{wire(ops.middle, mtu), pkts - 2},
			packetRun{wire(ops.last, size-(pkts-1)*mtu), 1})
	}
	return runs
}

// baseRTT is a full packet's (of mtu bytes of payload) round trip on the
// empty path: its serialization and the ACK's on every hop, propagation
// both ways, and the switch latencies both ways. 0 without a route.
func (p flowPath) baseRTT(mtu int) sim.Time {
	if !p.ok {
		return 0
	}
	pkt := p.wire(fabric.OpWriteMiddle, mtu)
	ack := p.wire(fabric.OpAcknowledge, 0)
	rtt := 2 * p.latency
	for _, l := range p.links {
		rtt += 2*l.Delay + fabric.SerializationTime(pkt, l.Rate) + fabric.SerializationTime(ack, l.Rate)
	}
	return rtt
}

// connectedMTU is qp's path MTU as RTR sets it, the smaller of its
// port's and peer's hca.mtu (setPeerMTU), even before RTR (a QP rdma_cm
// connects later, a READ's responder the requester's engine hands over);
// a UD QP's is its port's.
func (n *Network) connectedMTU(qp *hca.QP, peer fabric.NodeID) int {
	mtu := qp.PathMTU()
	if qp.Type != hca.UD {
		mtu = min(mtu, n.Scenario.HCAProfile(peer).MTU)
	}
	return mtu
}

// startCC gives the QP that sends a flow's data the congestion control
// its host runs, wired to the HCA's rate limiter: the requester's, or for
// a READ the responder's, whose READ responses are the data (the
// requester, as notification point, sends its CNPs back to it). Only a
// control whose row says ControlsReads does: one that reacts to ACKs
// cannot, READ responses having none (build warns).
func (n *Network) startCC(fr *FlowRun, src *hca.HCA, p flowPath) {
	sender, qp, peer := src, fr.Live.Requester, fr.Flow.Dst
	prof := n.Scenario.HCAProfile(fr.Flow.Src)
	if fr.Flow.Op == "read" {
		sender, qp, peer = n.HCAs[fr.Flow.Dst], fr.Live.Responder, fr.Flow.Src
		prof = n.Scenario.HCAProfile(fr.Flow.Dst)
	}
	tcp := kind.TransportOf(prof.Transport).TCP
	if row, ok := kind.LookupCC(prof.CC); fr.Flow.Op == "read" && !tcp && (!ok || !row.ControlsReads) {
		return
	}
	if tcp {
		// Over TCP (iWARP) the congestion control is the QP's TCP's own
		// (tcpCongestion); a READ's responses run on the responder's own
		// stream, with its own (hca/tcpread.go).
		cc, rtt := hca.CongestionControl(qp.CC), interface{ SRTT() sim.Time }(qp)
		if fr.Flow.Op == "read" {
			cc, rtt = sender.ResponseStream(qp)
		}
		if s, ok := cc.(congestion.Sender); ok {
			fr.Live.CC = s
		}
		fr.rtt = rtt
		return
	}
	fr.Live.CC = n.attachCC(sender, qp, peer, prof, p)
}

// attachCC gives qp, which sends on sender to peer along p, the
// congestion control of sender's profile prof (its window cap, its rate
// limiter, ECN and INT), and returns it (nil with cc: none). The
// control's packet (Path.MTU: DCTCP's and NSCC's segment, the base RTT's
// packet, bdp_cap's whole packets) is the QP's path MTU, by which its
// packets are cut, not the port's: on a fabric of mixed hca.mtu the
// smaller of the two hosts'. A QP connected already (RTR) has it
// (PathMTU); one rdma_cm connects later, or a READ's responder the
// requester's engine hands over, would take its port's until then, so a
// connected QP's path MTU is taken as RTR will set it, the smaller of
// its port's and peer's (setPeerMTU).
func (n *Network) attachCC(sender *hca.HCA, qp *hca.QP, peer fabric.NodeID, prof hca.Profile, p flowPath) congestion.Sender {
	mtu := n.connectedMTU(qp, peer)
	path := congestion.Path{LineRate: sender.Port().Rate, BaseRTT: p.baseRTT(mtu), MTU: mtu}
	if bdpCap := prof.BDPCap; (bdpCap > 0 || prof.BDPCapAuto) && qp.Type == hca.RC {
		if prof.BDPCapAuto {
			// The path's BDP, whole packets, at least one (IRN §3.2).
			mtu := int64(mtu)
			bdpCap = max(1, (int64(float64(path.LineRate)/8*path.BaseRTT.Seconds())+mtu-1)/mtu) * mtu
		}
		sender.SetWindowCap(qp, bdpCap)
	}
	if prof.Transport == fabric.UET && qp.Type == hca.RC && !n.Scenario.UET.SleekOff && !n.Scenario.UET.ROD {
		// SLEEK's threshold follows the path's BDP (hca/uet.go); without
		// it (hca.uet.sleek: false) SLEEK stays off, and ROD has none
		// (its target keeps nothing out of order to count).
		sender.SetPathBDP(qp, int64(float64(path.LineRate)/8*path.BaseRTT.Seconds()))
		// SLEEK's probe times (hca/uet.go): the base RTT and the target
		// delay, uet-htsim's _target_Qdelay whatever the window's
		// control (initNsccParams: 0.75 × the RTT where switches trim,
		// the RTT otherwise); a control that has its own target
		// (congestion.TargetDelayer) gives it below.
		target := path.BaseRTT
		if n.trimming {
			target = path.BaseRTT * 3 / 4
		}
		sender.SetSleekProbe(qp, path.BaseRTT, target)
	}
	if d := n.Scenario.UET.UETMinRTO(path.LineRate); d > 0 && prof.Transport == fabric.UET && qp.Type == hca.RC && !prof.RTOGiven {
		// uet-htsim's retransmission timeout (hca.uet.min_rto,
		// resolve/uet.go), unless this host's block gives IRN's
		// rto_low or rto_high.
		sender.SetMinRTO(qp, d)
	}
	if sp, _ := multipath.Lookup(n.Scenario.UET.Spray); sp.New != nil && qp.Type == hca.RC {
		// UET's spraying: the sender chooses each request's entropy,
		// from its own stream.
		qp.Entropy = sp.New(sender.Engine().Rand(fmt.Sprintf("multipath/%d/%d", sender.ID, qp.QPN)))
	}
	if n.Scenario.UET.ReceiverCredits && prof.Transport == fabric.UET && qp.Type == hca.RC {
		n.attachCredits(qp, path, sender.FrameOf(mtu)) // RCCC (rccc.go); the path MTU's frame, before RTR too
	}
	apply := func(rate fabric.Rate, window int64) { sender.SetRate(qp, rate, window) }
	ctl, ok := congestion.Lookup(prof.CC)
	if !ok {
		return nil
	}
	cc := ctl.New(n.Scenario.CC[prof.CC], congestion.Env{Engine: sender.Engine(), Path: path, Apply: apply, Trimming: n.trimming,
		ReceiverCredits: qp.Credits != nil})
	if ctl.ECN {
		qp.ECT = true // ECN-capable (FECN-capable on InfiniBand): the switches may mark it
	}
	if ctl.INT {
		qp.INT = true
	}
	qp.CC = cc
	if t, ok := cc.(congestion.TargetDelayer); ok && prof.Transport == fabric.UET && qp.Type == hca.RC && !n.Scenario.UET.SleekOff && !n.Scenario.UET.ROD {
		sender.SetSleekProbe(qp, path.BaseRTT, t.TargetDelay())
	}
	return cc
}
