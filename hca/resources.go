package hca

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The verbs that make, change and destroy the HCA's objects: protection
// domains, memory regions, CQs, SRQs and QPs (ibv_alloc_pd, ibv_reg_mr,
// ibv_create_cq, ibv_create_qp, ibv_modify_qp, ibv_destroy_qp), and the
// simple API's defaults over them (CreateQP, Connect).

// AllocPD makes a protection domain (ibv_alloc_pd).
func (h *HCA) AllocPD() *PD {
	c := h.coldPart()
	pd := &PD{Handle: uint32(len(c.pds) + 1), hca: h}
	c.pds = append(c.pds, pd)
	return pd
}

// RegMR registers length bytes of memory in pd (ibv_reg_mr). With buf not
// nil the region is those bytes (length is len(buf)) and data really
// moves; with buf nil it only has a size. The HCA gives the region a
// virtual address of its own, 4 KiB aligned, and one key used as both
// lkey and rkey.
func (h *HCA) RegMR(pd *PD, length int64, buf []byte, access Access) *MR {
	if buf != nil {
		length = int64(len(buf))
	}
	addr, key := h.ReserveMR(length)
	mr := &MR{PD: pd, Addr: addr, Len: length, LKey: key, RKey: key, Access: access, Buf: buf}
	h.mrs[key] = mr
	return mr
}

// ReserveMR takes the address and key the next region of length bytes
// would get (RegMR), for a region registered later with them
// (RegReservedMR): a run that must tell a flow's requester its
// responder's region before the responder's host registers it.
func (h *HCA) ReserveMR(length int64) (addr uint64, key uint32) {
	c := h.coldPart()
	addr, key = firstVA+c.vaUsed, h.nextKey
	h.nextKey += 0x100 // keys differ in more than their low bits, as real ones do
	c.vaUsed += (uint64(length) + 0xFFF) &^ 0xFFF
	c.vaUsed += 0x1000 // a guard page between regions
	return addr, key
}

// RegReservedMR registers length bytes, without bytes of their own, at
// the address and key ReserveMR gave.
func (h *HCA) RegReservedMR(pd *PD, addr uint64, key uint32, length int64, access Access) *MR {
	mr := &MR{PD: pd, Addr: addr, Len: length, LKey: key, RKey: key, Access: access}
	h.mrs[key] = mr
	return mr
}

// DeregMR removes a region (ibv_dereg_mr); later accesses with its keys
// fail, and so does the rest of a WRITE into it already in progress: a
// real HCA translates every packet's address through the region, so once
// it is gone the next packet is an R_Key violation, answered with a
// Remote Access Error NAK (the requester completes with rem_access_err),
// not a write through a stale mapping.
func (h *HCA) DeregMR(mr *MR) {
	delete(h.mrs, mr.LKey)
	h.mrGen++
}

// NumMRs is the number of registered memory regions.
func (h *HCA) NumMRs() int { return len(h.mrs) }

// CreateCQ makes a completion queue of depth entries (ibv_create_cq).
func (h *HCA) CreateCQ(depth int) *CQ { return &CQ{Depth: depth, hca: h} }

// CreateSRQ makes a shared receive queue of at most max RECVs.
func (h *HCA) CreateSRQ(pd *PD, max int) *SRQ { return &SRQ{PD: pd, Max: max} }

// CreateQPWith makes a QP in the RESET state (ibv_create_qp).
func (h *HCA) CreateQPWith(c QPCaps) *QP {
	qp := h.newQP(h.nextQPN, c)
	h.nextQPN++
	return qp
}

// newQP makes QP number qpn (QP1, the GSI QP, is the CM's).
func (h *HCA) newQP(qpn uint32, c QPCaps) *QP {
	p := h.Prof
	qp := &QP{QPN: qpn, Type: c.Type, State: QPReset, Priority: p.Priority, DSCP: p.DSCP, DSCPSet: p.DSCPSet,
		PD: c.PD, SendCQ: c.SendCQ, RecvCQ: c.RecvCQ, SRQ: c.SRQ, SigAll: c.SigAll,
		QKey: p.QKey, timeoutExp: p.AckTimeout, retryCnt: p.RetryCount, rnrRetry: p.RNRRetry,
		minRNRTimer: p.MinRNRTimer, maxRdAtomic: p.MaxRdAtomic, maxDestRdAtomic: p.MaxDestRdAtomic,
		maxSend: c.MaxSend, maxRecv: c.MaxRecv}
	if qp.maxSend == 0 {
		qp.maxSend = p.MaxSendWR
	}
	if qp.maxRecv == 0 {
		qp.maxRecv = p.MaxRecvWR
	}
	qp.apm = p.APM && c.Type == RC
	qp.pmtu = uint16(p.MTU)
	h.qps[qp.QPN] = qp
	return qp
}

// DestroyQP destroys qp (ibv_destroy_qp) and frees what the HCA holds for
// it. Work requests still posted complete first with wr_flush_err, as on
// a move to ERR, so that every posted WR completes exactly once (an
// application that wants their completions drains them before); its
// timers stop, it leaves the transmit arbiter and the QP table. A control
// packet it already queued (an ACK) still goes out. Its number is never
// handed out again, so a packet that arrives for it later cannot reach
// another QP: the HCA drops it and counts it in Stats.ClosedQPDrops, as a
// NIC drops packets for a QP number it does not know. A QP destroyed
// already, or of another HCA, is ErrInvalidState.
func (h *HCA) DestroyQP(qp *QP) error {
	if qp.destroyed || h.qps[qp.QPN] != qp {
		return ErrInvalidState
	}
	h.toErr(qp) // unparks it
	h.abandonUC(qp)
	if qp.tcp != nil {
		h.iwDestroyed(qp)
	}
	qp.destroyed = true
	delete(h.qps, qp.QPN)
	if h.lastQP == qp {
		h.lastQP = nil
	}
	h.leaveRing(qp)
	h.cancelKept(qp)
	qp.queuedAck = nil
	h.srFree(qp)
	qp.sr = nil
	qp.atomics = nil
	qp.curMR = nil
	qp.CC, qp.OnCNP = nil, nil
	return nil
}

// leaveRing takes qp out of its transmit ring, if it is in one, as
// NextPacket would drop it when its turn came: the QPs after it keep
// their order and the cursor its QP. A QP destroyed or reset leaves it
// at once: reset clears active, and a QP brought back to RTS and posted
// to before its turn would join the ring a second time (activate), its
// pointer in it twice.
func (h *HCA) leaveRing(qp *QP) {
	if !qp.active {
		return
	}
	ring, cursor, pk := &h.active, &h.cursor, h.park
	if h.arb != nil {
		ring, cursor, pk = &h.arb.rings[qp.ring], &h.arb.cursors[qp.ring], h.arb.parks[qp.ring]
	}
	for i, x := range *ring {
		if x == qp {
			h.deactivate(ring, pk, i)
			if i < *cursor {
				*cursor--
			}
			return
		}
	}
}

// cancelKept cancels the timers of qp that toErr leaves running, the
// RCCC RTS's (rccc.go) and SLEEK's probe's (uet.go), whose events find a
// QP in ERR and do nothing: a QP destroyed or reset loses its
// selective-repeat state, and the probe's event, reading it, found nil
// (a panic: TestResetOrDestroyCancelsProbe), or, on a QP
// brought back to RTS, would probe for the old connection.
func (h *HCA) cancelKept(qp *QP) {
	h.eng.Cancel(qp.rts)
	qp.rts = sim.Timer{}
	if s := qp.sr; s != nil {
		h.eng.Cancel(s.probeTimer)
		s.probeTimer = sim.Timer{}
	}
}

// NumQPs is the number of QPs that exist (created and not destroyed).
func (h *HCA) NumQPs() int { return len(h.qps) }

// defaults returns the PD and CQ of the simple API, made on first use.
func (h *HCA) defaults() (*PD, *CQ) {
	c := h.coldPart()
	if c.defPD == nil {
		c.defPD = h.AllocPD()
		c.defCQ = h.CreateCQ(1 << 30)
	}
	return c.defPD, c.defCQ
}

// DefaultPD is the protection domain of QPs made by CreateQP.
func (h *HCA) DefaultPD() *PD { pd, _ := h.defaults(); return pd }

// DefaultCQ is the (practically unbounded) CQ of QPs made by CreateQP.
func (h *HCA) DefaultCQ() *CQ { _, cq := h.defaults(); return cq }

// CreateQP makes an RC QP on the default PD and CQ, signaling every WR,
// in the INIT state; Connect moves it to RTS.
func (h *HCA) CreateQP() *QP { return h.CreateTypedQP(RC) }

// CreateTypedQP is CreateQP for any type, with every remote access (the
// scenario's flows WRITE, READ and do atomics); a UD QP goes straight to
// RTS.
func (h *HCA) CreateTypedQP(t QPType) *QP { return h.CreateTypedQPNumbered(t, h.ReserveQPN()) }

// ReserveQPN takes the number the next QP would get, for a QP made later
// with it (CreateTypedQPNumbered): a run that must tell a flow's
// requester its responder's QP before the responder's host makes it.
// Numbers are never reused.
func (h *HCA) ReserveQPN() uint32 {
	q := h.nextQPN
	h.nextQPN++
	return q
}

// CreateTypedQPNumbered is CreateTypedQP for qpn, a number ReserveQPN
// gave and no QP has.
func (h *HCA) CreateTypedQPNumbered(t QPType, qpn uint32) *QP {
	if _, taken := h.qps[qpn]; taken || qpn < firstQPN || qpn >= h.nextQPN {
		panic(fmt.Sprintf("hca: QP number %d was not reserved, or is taken", qpn))
	}
	pd, cq := h.defaults()
	qp := h.newQP(qpn, QPCaps{Type: t, PD: pd, SendCQ: cq, RecvCQ: cq, SigAll: true, MaxSend: 1 << 30, MaxRecv: 1 << 30})
	h.must(h.ModifyQP(qp, QPAttr{State: QPInit, Access: AccessAll}))
	if t == UD {
		h.must(h.ModifyQP(qp, QPAttr{State: QPRTR}))
		h.must(h.ModifyQP(qp, QPAttr{State: QPRTS}))
	}
	return qp
}

func (h *HCA) must(err error) {
	if err != nil {
		panic(err)
	}
}

// Connect ties an RC or UC qp to the remote QP and moves it through RTR
// to RTS, as ibv_modify_qp does after the connection parameters are
// exchanged. Both sides start at PSN 0. A QP still in RESET goes to INIT
// first, with no remote access (as ibv_rc_pingpong's, which only SENDs).
func (h *HCA) Connect(qp *QP, remote fabric.NodeID, remoteIP uint32, remoteQPN uint32) {
	if qp.State == QPReset {
		h.must(h.ModifyQP(qp, QPAttr{State: QPInit}))
	}
	h.must(h.ModifyQP(qp, QPAttr{State: QPRTR, Dest: remote, DestIP: remoteIP, DestQPN: remoteQPN}))
	h.must(h.ModifyQP(qp, QPAttr{State: QPRTS}))
}

// Accept is Connect for the passive side of a connection (the server:
// rdma_accept's, a flow's responder). On iWARP that side is MPA's
// Responder, which sends no FPDU until it has received the Initiator's
// first (RFC 5044's connection startup rules, rule 4): its requests and
// READ responses wait, its TCP acknowledgements do not. On RoCE and
// InfiniBand it is Connect. (Connect and Accept connect out of band, as
// a scenario's connect: instant does, on every transport alike: on
// iWARP the NICs' TCP handshake and MPA exchange, RFC 6581's RTR with
// them, are IWConnect's and IWListen's, which rdma_cm uses: iwconn.go.)
func (h *HCA) Accept(qp *QP, remote fabric.NodeID, remoteIP uint32, remoteQPN uint32) {
	h.Connect(qp, remote, remoteIP, remoteQPN)
	if qp.tcp != nil {
		qp.tcp.await = true
	}
}

// pathMTU is the path MTU an RC or UC QP takes at RTR: a.PathMTU where
// given (at most the port's MTU), else the smaller of the port's MTU and
// the destination's (SetPeerMTU).
func (h *HCA) pathMTU(a *QPAttr) int {
	m := h.Prof.MTU
	if a.PathMTU > 0 {
		return min(m, a.PathMTU)
	}
	if c := h.cold; c != nil && c.peerMTU != nil {
		if p := c.peerMTU(a.Dest); p > 0 {
			m = min(m, p)
		}
	}
	return m
}

// SetPeerMTU gives the HCA the MTU of each destination's port, so that a
// connected QP takes the smaller of the two as its path MTU at RTR
// (QPAttr.PathMTU), as the SA's path record gives it: two HCAs with
// different hca.mtu then cut every request and a READ's responses the
// same way. Without it a QP takes its port's MTU.
func (h *HCA) SetPeerMTU(mtu func(fabric.NodeID) int) { h.coldPart().peerMTU = mtu }

// ModifyQP moves qp to a.State, taking the attributes that transition
// needs (ibv_modify_qp): RESET→INIT (access, Q_Key), INIT→RTR (the remote
// QP and the receive PSN, min_rnr_timer, max_dest_rd_atomic), RTR→RTS (the
// send PSN, timeout, retry counts, max_rd_atomic), RTS↔SQD, and any state
// to ERR or RESET. Another transition is ErrTransition; any on a destroyed
// QP is ErrInvalidState. With a mask (a.Mask), the transition's required
// attributes must be in it (ErrAttrMask otherwise), as in verbs.
func (h *HCA) ModifyQP(qp *QP, a QPAttr) error {
	h.touch(qp)
	h.unpark(qp) // before RESET forgets it
	from, to := qp.State, a.State
	switch {
	case qp.destroyed:
		return ErrInvalidState
	case to == QPErr:
		h.toErr(qp)
		return nil
	case to == QPReset:
		h.toErr(qp) // flush what is posted, then forget it
		h.leaveRing(qp)
		h.cancelKept(qp)
		h.srFree(qp)
		*qp = QP{QPN: qp.QPN, Type: qp.Type, PD: qp.PD, SendCQ: qp.SendCQ, RecvCQ: qp.RecvCQ, SRQ: qp.SRQ,
			SigAll: qp.SigAll, Priority: qp.Priority, SL: qp.SL, DSCP: qp.DSCP, DSCPSet: qp.DSCPSet, Access: qp.Access, QKey: qp.QKey,
			timeoutExp: qp.timeoutExp, retryCnt: qp.retryCnt, rnrRetry: qp.rnrRetry, minRNRTimer: qp.minRNRTimer,
			maxRdAtomic: qp.maxRdAtomic, maxDestRdAtomic: qp.maxDestRdAtomic, maxSend: qp.maxSend, maxRecv: qp.maxRecv,
			pmtu: uint16(h.Prof.MTU), cw: qp.cw} // its place in the count of credits, which reads it again (touch)
		return nil
	case !transitions[[2]QPState{from, to}]:
		return ErrTransition
	case a.Mask != 0 && a.Mask&requiredAttrs[[2]QPState{from, to}][qp.Type] != requiredAttrs[[2]QPState{from, to}][qp.Type]:
		return ErrAttrMask
	}
	if a.sets(AttrAccessFlags, a.Access != 0) {
		qp.Access = a.Access
	}
	if a.sets(AttrQKey, a.QKey != 0) {
		qp.QKey = a.QKey
	}
	switch {
	case from == QPInit && to == QPRTR:
		if qp.Type != UD {
			qp.Remote, qp.RemoteIP, qp.RemoteQPN = a.Dest, a.DestIP, a.DestQPN
			qp.flow = fabric.FlowKey{SrcIP: h.IP, DstIP: a.DestIP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
			qp.pmtu = uint16(h.pathMTU(&a))
		}
		qp.ePSN = int64(a.RQPSN)
		if a.sets(AttrMinRNRTimer, a.MinRNRTimer != 0) {
			qp.minRNRTimer = a.MinRNRTimer
		}
		if a.sets(AttrMaxDestRdAtomic, a.MaxDestRdAtomic != 0) {
			qp.maxDestRdAtomic = a.MaxDestRdAtomic
		}
	case from == QPRTR && to == QPRTS:
		qp.basePSN = int64(a.SQPSN)
		qp.nextPSN, qp.endPSN, qp.una, qp.ackHigh, qp.maxSent = qp.basePSN, qp.basePSN, qp.basePSN, qp.basePSN, qp.basePSN
		qp.readPSNs = 0
		qp.acked = qp.basePSN
		if a.sets(AttrTimeout, a.Timeout != 0) {
			qp.timeoutExp = a.Timeout
		}
		if a.sets(AttrRetryCnt, a.RetryCnt != 0 || a.SetRetries) {
			qp.retryCnt = a.RetryCnt
		}
		if a.sets(AttrRNRRetry, a.RNRRetry != 0 || a.SetRetries) {
			qp.rnrRetry = a.RNRRetry
		}
		if a.sets(AttrMaxRdAtomic, a.MaxRdAtomic != 0) {
			qp.maxRdAtomic = a.MaxRdAtomic
		}
	case to == QPSQD:
		qp.State = QPSQD
		if qp.una >= qp.nextPSN {
			h.asyncEvent(AsyncEvent{Type: EventSQDrained, QP: qp})
		}
		return nil
	}
	qp.State = to
	if to == QPRTS {
		if qp.tcp == nil && qp.Type == RC && h.iwarp() {
			h.tcpStart(qp)
		}
		h.activate(qp)
	}
	return nil
}

// QP returns the QP with number qpn, or nil when there is none (never
// made, or destroyed).
func (h *HCA) QP(qpn uint32) *QP {
	if qp := h.lastQP; qp != nil && qp.QPN == qpn {
		return qp
	}
	qp := h.qps[qpn]
	if qp != nil {
		h.lastQP = qp
	}
	return qp
}

// QPs returns every QP of the HCA that exists, by number.
func (h *HCA) QPs() []*QP {
	out := make([]*QP, 0, len(h.qps))
	for _, qp := range h.qps {
		out = append(out, qp)
	}
	slices.SortFunc(out, func(a, b *QP) int { return cmp.Compare(a.QPN, b.QPN) })
	return out
}
