package hca

import (
	"github.com/lfsim/lfsim/sim"
)

// The verbs of the data path: posting send and receive work requests
// (ibv_post_send, ibv_post_recv), their checks against the QP and its
// PD, the doorbell, and their completions (what ibv_poll_cq finds).

// PostSend posts a send work request now (ibv_post_send). A WR the QP
// cannot take returns an error and is not posted: a QP not yet in RTS (or
// destroyed), a full send queue, a message longer than Prof.MaxMsgSize,
// READ or ATOMIC on UC, anything but SEND on UD or a UD message longer
// than the MTU, an atomic that is not 8 bytes, an inline payload over
// MaxInline. On a QP in ERR the WR is posted and flushed. A local
// protection error (an lkey that is not the QP's PD's, or out of bounds)
// completes the WR with loc_prot_err and moves the QP to ERR.
func (h *HCA) PostSend(qp *QP, wr SendWR) (*WQE, error) {
	w := newWQE(wr)
	if _, err := h.postChain(qp, []*WQE{w}); err != nil {
		return nil, err
	}
	return w, nil
}

// newWQE is wr's WQE, not yet posted.
func newWQE(wr SendWR) *WQE {
	return &WQE{ID: wr.ID, Op: wr.Op, wr: wr, Size: sglLen(wr.SGL, wr.Length)}
}

// postChain is one ibv_post_send of wqes: each is checked and posted in
// turn, the doorbell rung once, with the first; it stops at the first the
// QP refuses and returns how many it posted, and the error.
func (h *HCA) postChain(qp *QP, wqes []*WQE) (int, error) {
	var ring sim.Time
	for i, w := range wqes {
		if err := h.checkSend(qp, w); err != nil {
			return i, err
		}
		if i == 0 {
			ring = h.ringDoorbell()
		}
		h.post(qp, w, ring, len(wqes) > 1)
	}
	return len(wqes), nil
}

// PostSendList posts a chain of work requests with one ibv_post_send
// call, as a linked list of ibv_send_wr does: one doorbell for them all
// (Profile.DoorbellCost is paid once), and the NIC reads the WQEs from
// the send queue (WQEFetchLatency, even for inline WRs: BlueFlame carries
// a WQE with its doorbell only when a call posts one; rdma-core's mlx5
// provider, providers/mlx5/qp.c, post_send_db: a BlueFlame copy when
// nreq == 1, one doorbell write otherwise). As ibv_post_send,
// it stops at the first WR it refuses and returns the error with the
// WQEs posted before it (bad_wr is the next one).
func (h *HCA) PostSendList(qp *QP, wrs []SendWR) ([]*WQE, error) {
	wqes := make([]*WQE, len(wrs))
	for i, wr := range wrs {
		wqes[i] = newWQE(wr)
	}
	n, err := h.postChain(qp, wqes)
	return wqes[:n], err
}

// PostSendAt posts wr at time at (now or later), for programs scheduled
// ahead (traffic generators). A WR that PostSend would refuse then
// completes with loc_qp_op_err.
func (h *HCA) PostSendAt(qp *QP, wr SendWR, at sim.Time) *WQE {
	w := newWQE(wr)
	h.eng.Schedule(at, h, evPost, 0, &post{qp: qp, one: w})
	return w
}

// PostSendListAt posts wrs as one chain (PostSendList) at time at. A WR
// that PostSendList would refuse completes with loc_qp_op_err, and so do
// those after it, which ibv_post_send would not have posted.
func (h *HCA) PostSendListAt(qp *QP, wrs []SendWR, at sim.Time) []*WQE {
	out := make([]*WQE, len(wrs))
	for i, wr := range wrs {
		out[i] = newWQE(wr)
	}
	h.eng.Schedule(at, h, evPost, 0, &post{qp: qp, wqes: out})
	return out
}

// ringDoorbell returns when the posting thread rings the doorbell of an
// ibv_post_send called now: at once, unless it is still busy with the
// doorbell of an earlier call (Profile.DoorbellCost), whose end it
// waits for.
func (h *HCA) ringDoorbell() sim.Time {
	now := h.eng.Now()
	cost := h.Prof.DoorbellCost
	if cost <= 0 {
		return now
	}
	c := h.coldPart()
	ring := max(now, c.doorbellFree)
	c.doorbellFree = ring + cost
	return ring
}

// PostWrite posts an RDMA WRITE of size bytes (a synthetic payload) to
// qp.RemoteAddr with qp.RemoteRKey at time at, as the simple API's
// ibv_post_send. It returns the WQE, which records the completion.
func (h *HCA) PostWrite(qp *QP, id int, size int64, at sim.Time) *WQE {
	return h.PostSendAt(qp, SendWR{ID: uint64(id), Op: WRWrite, Length: size, Signaled: true,
		RemoteAddr: qp.RemoteAddr, RKey: qp.RemoteRKey}, at)
}

// post is a scheduled ibv_post_send: one WQE (one), or a chain (wqes).
type post struct {
	qp   *QP
	one  *WQE
	wqes []*WQE
}

func (h *HCA) checkSend(qp *QP, w *WQE) error {
	if qp.destroyed {
		return ErrInvalidState
	}
	switch qp.State {
	case QPRTS, QPSQD, QPErr:
	default:
		return ErrInvalidState
	}
	wr := &w.wr
	switch {
	case qp.Type == UC && (wr.Op.isRead() || wr.Op.isAtomic()):
		return ErrInvalidWR
	case qp.Type == UD && (!wr.Op.isSend() || w.Size > int64(h.Prof.MTU) || wr.AH == nil):
		return ErrInvalidWR
	case wr.Op.isAtomic() && (w.Size != 8 || wr.RemoteAddr%8 != 0):
		return ErrInvalidWR
	case wr.Inline && (w.Size > int64(h.Prof.MaxInline) || wr.Op.isRead() || wr.Op.isAtomic()):
		return ErrInvalidWR
	case w.Size < 0 || w.Size > h.Prof.MaxMsgSize:
		return ErrInvalidWR
	case len(qp.sq) >= qp.maxSend && qp.State != QPErr:
		return ErrQueueFull
	}
	return nil
}

// sinkWritable reports whether an iWARP READ's sink buffer takes remote
// writes: the responses are tagged writes into it (RFC 5040 §4.4; an
// iWARP application registers it with IBV_ACCESS_REMOTE_WRITE).
func sinkWritable(h *HCA, sgl []SGE) bool {
	for _, s := range sgl {
		if h.mrs[s.LKey].Access&AccessRemoteWrite == 0 {
			return false
		}
	}
	return true
}

// checkLocal validates the SGL against the QP's PD (lkey, bounds, local
// write for what the HCA writes into).
func (h *HCA) checkLocal(qp *QP, sgl []SGE, write bool) bool {
	for _, s := range sgl {
		mr := h.mrs[s.LKey]
		if mr == nil || mr.PD != qp.PD || !mr.contains(s.Addr, s.Len) {
			return false
		}
		if write && mr.Access&AccessLocalWrite == 0 {
			return false
		}
	}
	return true
}

// gather copies the SGL's bytes, or returns nil when any part has none.
func (h *HCA) gather(sgl []SGE, size int64) []byte {
	if len(sgl) == 0 || size == 0 {
		return nil
	}
	out := make([]byte, 0, size)
	for _, s := range sgl {
		b := h.mrs[s.LKey].Bytes(s.Addr, s.Len)
		if b == nil {
			return nil
		}
		out = append(out, b...)
	}
	return out
}

// scatter writes data at offset off of the SGL's concatenation.
func (h *HCA) scatter(sgl []SGE, off int64, data []byte) {
	for _, s := range sgl {
		if len(data) == 0 {
			return
		}
		if off >= s.Len {
			off -= s.Len
			continue
		}
		n := min(int64(len(data)), s.Len-off)
		if b := h.mrs[s.LKey].Bytes(s.Addr+uint64(off), n); b != nil {
			copy(b, data[:n])
		}
		data = data[n:]
		off = 0
	}
}

// post puts w on qp's send queue. ring is when its doorbell was rung
// (ringDoorbell), and chained says that the call posted more than one WR,
// so the NIC reads the WQE from memory even if it is inline.
func (h *HCA) post(qp *QP, w *WQE, ring sim.Time, chained bool) {
	now := h.eng.Now()
	w.Posted = now
	w.signaled = w.wr.Signaled || qp.SigAll
	mtu := int64(qp.pmtu)
	switch {
	case w.Op.isAtomic():
		w.NPkts, w.reqPkts = 1, 1
	case w.Op.isRead():
		w.NPkts, w.reqPkts = max(1, (w.Size+mtu-1)/mtu), 1
	default:
		w.NPkts = max(1, (w.Size+mtu-1)/mtu)
		w.reqPkts = w.NPkts
	}
	p := &h.Prof
	w.rung = ring
	w.ready = ring + p.DoorbellLatency + p.TxPktLatency
	if !w.wr.Inline || chained {
		w.fetched = true
		w.ready += p.WQEFetchLatency
	}
	if !w.wr.Inline && w.Size > 0 && !w.Op.isRead() && !w.Op.isAtomic() {
		w.ready += p.DMALatency
	}
	h.Stats.PostedSend++
	if qp.State == QPErr {
		h.complete(qp, w, WCFlushed)
		return
	}
	writes := w.Op.isRead() || w.Op.isAtomic()
	if !h.checkLocal(qp, w.wr.SGL, writes) || w.Op.isRead() && h.iwarp() && !sinkWritable(h, w.wr.SGL) {
		// The HCA finds the bad lkey when it processes the WQE: the WR
		// completes with loc_prot_err and the QP goes to ERR.
		h.complete(qp, w, WCLocProtError)
		h.toErr(qp)
		h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
		return
	}
	w.FirstPSN = qp.endPSN
	qp.endPSN += w.NPkts
	qp.readPSNs += w.NPkts - w.reqPkts
	qp.sq = append(qp.sq, w)
	if !writes {
		w.data = h.gather(w.wr.SGL, w.Size)
	}
	h.activate(h.touched(qp)) // (touched: its RCCC count, creditwait.go)
}

// PostRecv posts a receive (ibv_post_recv). It fails on a QP in RESET,
// a destroyed one, one with an SRQ, or a full queue; on a QP in ERR the
// RECV is flushed.
func (h *HCA) PostRecv(qp *QP, wr RecvWR) error {
	if qp.State == QPReset || qp.SRQ != nil || qp.destroyed {
		return ErrInvalidState
	}
	if len(qp.rq) >= qp.maxRecv {
		return ErrQueueFull
	}
	if !h.checkLocal(qp, wr.SGL, true) {
		return ErrInvalidWR
	}
	r := &recvWQE{wr: wr, size: sglLen(wr.SGL, wr.Length)}
	h.Stats.PostedRecv++
	if qp.State == QPErr {
		h.completeRecv(qp, r, WC{Status: WCFlushed, Opcode: WCOpRecv})
		return nil
	}
	qp.rq = append(qp.rq, r)
	return nil
}

// PostRecvAt posts wr at time at (now or later), for programs scheduled
// ahead (a traffic generator whose receiver posts its RECVs late). A
// RECV that PostRecv would refuse then (the QP destroyed, its queue
// full) is not posted, as an application's failed ibv_post_recv posts
// nothing.
func (h *HCA) PostRecvAt(qp *QP, wr RecvWR, at sim.Time) {
	h.eng.Schedule(at, h, evPostRecv, 0, &postRecv{qp: qp, wr: wr})
}

type postRecv struct {
	qp *QP
	wr RecvWR
}

// PostSRQRecv posts a receive on a shared receive queue.
func (h *HCA) PostSRQRecv(s *SRQ, wr RecvWR) error {
	if len(s.rq) >= s.Max {
		return ErrQueueFull
	}
	for _, g := range wr.SGL {
		mr := h.mrs[g.LKey]
		if mr == nil || mr.PD != s.PD || !mr.contains(g.Addr, g.Len) || mr.Access&AccessLocalWrite == 0 {
			return ErrInvalidWR
		}
	}
	h.Stats.PostedRecv++
	s.rq = append(s.rq, &recvWQE{wr: wr, size: sglLen(wr.SGL, wr.Length)})
	return nil
}

// takeRecv removes the next RECV of qp (from its SRQ if it has one).
func (h *HCA) takeRecv(qp *QP) *recvWQE {
	q := &qp.rq
	if qp.SRQ != nil {
		q = &qp.SRQ.rq
	}
	if len(*q) == 0 {
		return nil
	}
	r := (*q)[0]
	(*q)[0] = nil
	*q = (*q)[1:]
	return r
}

type pendingWC struct {
	qp   *QP
	w    *WQE // a send completion, or nil
	wc   WC
	cqe  bool // write a CQE
	recv bool
}

type writeVisible struct {
	qp   *QP
	mr   *MR
	addr uint64
	n    int64
}

// complete finishes a send WQE with status; its CQE (if signaled or an
// error) becomes visible DMALatency later.
func (h *HCA) complete(qp *QP, w *WQE, status WCStatus) {
	if w.done {
		h.Stats.DoubleCompletions++
		return
	}
	w.done = true
	w.Status = status
	h.Stats.CompletedSend++
	op := [...]WCOpcode{WCOpWrite, WCOpWrite, WCOpSend, WCOpSend, WCOpRead, WCOpCompSwap, WCOpFetchAdd}[w.Op]
	pw := &pendingWC{qp: qp, w: w, wc: WC{WRID: w.ID, Status: status, Opcode: op, QPN: qp.QPN, ByteLen: w.Size},
		cqe: w.signaled || status != WCSuccess}
	h.eng.After(h.Prof.DMALatency, h, evComplete, 0, pw)
}

func (w *WQE) reqSent() bool { return w.requested }

func (h *HCA) completeRecv(qp *QP, r *recvWQE, wc WC) {
	if r.done {
		h.Stats.DoubleCompletions++
		return
	}
	r.done = true
	h.Stats.CompletedRecv++
	wc.WRID, wc.QPN = r.wr.ID, qp.QPN
	h.eng.After(h.Prof.DMALatency, h, evComplete, 0, &pendingWC{qp: qp, wc: wc, cqe: true, recv: true})
}

func (h *HCA) deliverCompletion(pw *pendingWC) {
	now := h.eng.Now()
	pw.wc.At = now
	if pw.w != nil {
		pw.w.Completed = now
		if h.OnComplete != nil {
			h.OnComplete(pw.qp, pw.w)
		}
	}
	if pw.recv && h.OnRecv != nil {
		h.OnRecv(pw.qp, pw.wc)
	}
	if !pw.cqe {
		return
	}
	cq := pw.qp.SendCQ
	if pw.recv {
		cq = pw.qp.RecvCQ
	}
	if cq != nil {
		cq.push(pw.wc)
	}
}
