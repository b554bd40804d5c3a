// Package pingpong is the skeleton of lab 1, "Your first verbs program":
// ibv_rc_pingpong written by you against lfsim's verbs (package hca).
// Fill in the TODOs, then run
//
//	go test ./scenarios/labs/first-verbs-program/pingpong/
//
// from the top of the lfsim source tree: the test runs your program
// between two simulated hosts and checks it against lfsim's own
// ibv_rc_pingpong (programs.Pingpong). Until the TODOs are done it says
// so and skips.
//
// A program in lfsim runs inside the simulation: it does not block in
// ibv_poll_cq, it reacts. Give each CQ an OnEvent function; the NIC calls
// it when completions arrive, and there you poll the CQ (CQ.Poll) as
// ibv_poll_cq does, and post what comes next.
//
// This package imports only hca and sim; it must not import the rest of
// lfsim.
package pingpong

import (
	"errors"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// ErrTODO is what the skeleton returns until its TODOs are done.
var ErrTODO = errors.New("pingpong: the TODOs are not done yet")

// Side is one end of the pingpong: what ibv_rc_pingpong keeps in its
// struct pingpong_context.
type Side struct {
	HCA *hca.HCA
	PD  *hca.PD
	MR  *hca.MR // the message buffer, Size bytes
	CQ  *hca.CQ
	QP  *hca.QP

	// Sent counts the SENDs posted, Received the RECVs completed; Done
	// is when the side finished its iterations (0 until then).
	Sent, Received int
	Done           sim.Time
}

// Setup is ibv_rc_pingpong's pp_init_ctx and pp_connect_ctx, for both
// sides at once: side 0 is the client, side 1 the server. The real tool
// exchanges QP numbers and PSNs over a TCP socket; here both QPs are in
// reach, so read the other side's QP number directly (QP.QPN) and start
// both at PSN 0.
func Setup(client, server *hca.HCA, size int64, rxDepth int) ([2]*Side, error) {
	var s [2]*Side
	for i, h := range []*hca.HCA{client, server} {
		s[i] = &Side{HCA: h}
		// TODO 1: allocate a protection domain (ibv_alloc_pd: HCA.AllocPD).
		// TODO 2: register a buffer of size bytes, make([]byte, size),
		// with local write access (ibv_reg_mr: HCA.RegMR,
		// hca.AccessLocalWrite).
		// TODO 3: create a completion queue of rxDepth+1 entries
		// (ibv_create_cq: HCA.CreateCQ).
		// TODO 4: create an RC QP on the PD with that CQ for sends and
		// receives, one send WR and rxDepth receive WRs
		// (ibv_create_qp: HCA.CreateQPWith, hca.QPCaps).
	}
	// TODO 5: move each QP to INIT (HCA.ModifyQP, hca.QPAttr{State:
	// hca.QPInit}), then to RTR with the other side's address and QP
	// number (Dest: the other HCA's ID, DestIP: its IP, DestQPN), then to
	// RTS. Check every error.
	return s, ErrTODO
}

// Start posts rxDepth RECVs on each side, arms both CQs, and posts the
// client's first SEND. From then on the CQs' OnEvent functions drive the
// run: when a side's RECV completes, it posts a RECV again (to keep
// rxDepth posted), counts it, and, until it has done iters, SENDs back
// (the server answers each SEND; the client sends the next). A side is
// done (Side.Done, the engine's Now) when it has received iters
// messages.
func Start(s [2]*Side, size int64, rxDepth, iters int) error {
	// TODO 6: post rxDepth RECVs on each QP (ibv_post_recv:
	// HCA.PostRecv, hca.RecvWR with one hca.SGE over the MR: Addr,
	// Len: size, LKey).
	// TODO 7: set each CQ's OnEvent to a function that polls it
	// (CQ.Poll(CQ.Len())) and handles each completion: check its
	// Status is hca.WCSuccess; for a RECV (Opcode hca.WCOpRecv) do what
	// the comment above says. SEND with HCA.PostSend, hca.SendWR{Op:
	// hca.WRSend, SGL over the MR, Signaled: true}; a message that fits
	// the NIC's max_inline_data (HCA.Prof.MaxInline) goes inline
	// (IBV_SEND_INLINE: Inline: true), as ibv_rc_pingpong sends it.
	// TODO 8: post the client's first SEND.
	return ErrTODO
}
