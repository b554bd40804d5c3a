package cm

import (
	"github.com/lfsim/lfsim/sim"
)

// Profile is the connection manager's timing and its protocol
// constants.
type Profile struct {
	// QPCommand is what one QP command (create, or one modify) takes of
	// the HCA's command interface, which runs them one at a time.
	// Default 222 µs: with it, 1,000 connections between two hosts take
	// what librdmacm's cmtime measured for them in rdma-core pull request
	// 1448 (2024; the hardware is not stated): the last is made after
	// 888.6 ms (each side runs four commands per connection, 4,000 in
	// all), the first after 449.1 ms (the active side's 2,000 creates
	// and moves to INIT run before the first REP's two commands) — the
	// model gives 888.9 and 444.4 ms (TestCMThousandConnections). Only
	// that run's "full connect" row (first, last, total) was available:
	// one cost for every command (create, INIT, RTR, RTS) is the simplest
	// model that matches it, not a measured split between them; it
	// matches in lfsim's schedule, where the passive side's commands
	// overlap the active side's creates. Under cmtime's own phases (all
	// creates, all INITs, then the connects) it puts the last connection
	// at 1,332 ms (TestCMTimePhases); see ConnectModify.
	QPCommand sim.Time
	// ConnectModify is what each move to RTR and to RTS takes of the
	// command interface instead of QPCommand; 0 (the default): QPCommand.
	// cmtime's own phases (TestCMTimePhases) fit QPCommand for the create
	// and the move to INIT with RTR and RTS next to free (at most about
	// 7 µs each with the default QPCommand), not one cost for all four:
	// docs/RELIABILITY.md, "rdma_cm's timing".
	ConnectModify sim.Time
	// MADProcessing is the host's CM work for one received MAD, up to
	// the application's callback, one MAD at a time. Default 10 µs, an
	// estimate (no published figure found): the kernel's MAD receive, the
	// CM's state machine and an event to user space through
	// /dev/infiniband/rdma_cm, each a few microseconds. Against the QP
	// commands it barely shows.
	MADProcessing sim.Time
	// ResponseTimeout is the CM response timeout a REQ states, as an
	// exponent: 4.096 µs × 2^n (librdmacm's CMA_CM_RESPONSE_TIMEOUT, 20:
	// 4.3 s). PacketLifetime is the path's packet lifetime, likewise
	// (CMA_IBOE_PACKET_LIFETIME, 16, on RoCE). A REQ or REP unanswered
	// for 2 × the lifetime + the response timeout (the kernel's
	// cm_convert_to_ms rounds each to a power of two milliseconds) is
	// sent again, at most MaxRetries times (CMA_MAX_CM_RETRIES, 15).
	ResponseTimeout, PacketLifetime uint8
	MaxRetries                      int
	// RecvQueue is how many receive buffers QP1 keeps posted (the
	// kernel's ib_mad mad_recvq_size, 512); a MAD that finds none is
	// dropped, and its sender's timeout resends it.
	RecvQueue int
}

// DefaultProfile is librdmacm's and the upstream kernel's constants,
// with QPCommand and MADProcessing as Profile's fields say.
func DefaultProfile() Profile {
	return Profile{QPCommand: 222 * sim.Microsecond, MADProcessing: 10 * sim.Microsecond,
		ResponseTimeout: 20, PacketLifetime: 16, MaxRetries: 15, RecvQueue: 512}
}

// connectModify is what a move to RTR or RTS takes.
func (p Profile) connectModify() sim.Time {
	if p.ConnectModify > 0 {
		return p.ConnectModify
	}
	return p.QPCommand
}

// cmMillis is the kernel's cm_convert_to_ms: an exponent n (4.096 µs ×
// 2^n) as 2^(n-8) ms, at least 1.
func cmMillis(n uint8) sim.Time { return sim.Millisecond << max(int(n)-8, 0) }

// reqTimeout is how long the active side waits for an answer to its REQ
// (and later its DREQ) before sending it again: ib_send_cm_req's 2 × the
// packet lifetime + the remote response timeout (4,608 ms with
// librdmacm's values). The passive side waits the REQ's local response
// timeout for the RTU (and a DREP): 4,096 ms.
func (p Profile) reqTimeout() sim.Time {
	return 2*cmMillis(p.PacketLifetime) + cmMillis(p.ResponseTimeout)
}
