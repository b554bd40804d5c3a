package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Retransmit is how an RC requester recovers lost packets.
type Retransmit uint8

// Retransmission schemes.
const (
	GoBackN   Retransmit = iota // resend from the first unacknowledged PSN (InfiniBand spec)
	GoBack0                     // resend the whole message (early RoCE NICs)
	Selective                   // resend only what was lost (IRN, SIGCOMM 2018)
)

func (r Retransmit) String() string {
	return [...]string{"go-back-n", "go-back-0", "selective"}[r]
}

// Profile is one NIC's configuration. Defaults in DefaultProfile resemble a
// 100 Gb/s ConnectX-class NIC; each field says its source.
type Profile struct {
	// MTU is the InfiniBand path MTU, payload bytes per packet: 256, 512,
	// 1024, 2048 or 4096. Default 4096 (RoCEv2 deployments with 9000-byte
	// Ethernet frames).
	MTU int
	// Priority is the 802.1p priority of data packets. Default 3. (On
	// InfiniBand, the VL.)
	Priority uint8
	// LinkLayer is the port's link: Ethernet (RoCEv2 framing: Ethernet,
	// IPv4, UDP) or InfiniBand (LRH, and GRH when GRH is set; flow control
	// by credits instead of PFC). Default Ethernet. Beside the MTU: every
	// packet built reads it.
	LinkLayer fabric.LinkLayer
	// Retransmit is the RC recovery scheme. Default go-back-N.
	Retransmit Retransmit
	// Placement is how the RC receiver treats packets that arrive ahead
	// of a gap (reorder.go). Default InOrder.
	Placement Placement
	// BDPCapAuto: BDPCap is the flow path's bandwidth-delay product
	// (the small fields sit together: the HCA holds its Profile).
	BDPCapAuto bool
	// GRH adds the global route header to InfiniBand packets.
	GRH bool
	// Transport frames the packets on Ethernet: RoCEv2 (default) or
	// RoCEv1 (hca.transport).
	Transport fabric.Transport
	// UETAckClass is, on UET, 1 + the 802.1p priority a responder's
	// ACKs and NACKs (SACKs and trim NACKs too) leave at, their DSCP 8
	// times that priority (its class selector); 0 (the default profile)
	// sends them at their request's priority and DSCP, as RoCE's go.
	// resolve sets it from hca.uet.ack_priority (default 7, the trimmed
	// headers' class: uet-htsim serves every header-only packet ahead of
	// data, its CompositeQueue 100,000 to 1;
	// resolve.DefaultUETAckPriority). (In the line's spare byte.)
	UETAckClass uint8
	// Overlay is the encapsulation the adapter puts every frame in
	// (hca.overlay; overlay.go), nil for none (the default). Profiles
	// share it: it is not changed once built. In the profile's first
	// cache line, beside Transport: every packet sent and received
	// reads it.
	Overlay *fabric.Overlay
	// RTOLow, RTOHigh and RTOLowPackets are selective repeat's
	// retransmission timeouts (IRN, Mittal et al., SIGCOMM 2018, §3.1.1:
	// RTO_low while at most N packets are unacknowledged, so that a tail
	// loss is found fast, RTO_high otherwise). Defaults 100 µs, 320 µs
	// and N = 3, IRN's values. Go-back-N and go-back-0 use AckTimeout,
	// but on UET, whose PDS timer these are in either delivery mode.
	RTOLow, RTOHigh sim.Time
	RTOLowPackets   int32
	// RTOGiven: the scenario gave RTOLow or RTOHigh (hca.rto_low,
	// hca.rto_high), which a UET QP then runs in place of uet-htsim's
	// timeout (SetMinRTO; resolve.UET.UETMinRTO).
	RTOGiven bool
	// DSCP, when DSCPSet, is the DSCP of the QPs' packets (hca.dscp);
	// otherwise a QP's packets carry 8 × its priority, the class selector
	// CSn (RFC 2474 §4.2.2), which a switch's default DSCP map (dscp >> 3)
	// takes back to the priority: what lfsim's packets carried before
	// the key. CNPDSCP is the DSCP of the CNPs the NIC sends (cnp_dscp),
	// default 48: NVIDIA's default, with cnp_802p_prio 6 (DOCA's "DCQCN
	// CC Parameters", Notification Point). (Beside RTOLowPackets, in
	// what an int's upper half took: an HCA fills its allocation class.)
	DSCP    uint8
	DSCPSet bool
	CNPDSCP uint8
	// ReorderWindow is, with direct placement, how many PSNs past a gap
	// may arrive before the gap counts as a loss and the receiver NAKs
	// it. Default 256 (1 MiB at MTU 4096, about 84 µs at 100 Gb/s): well
	// above the reorder that spraying over a PFC-bounded fat tree makes
	// (the k=8 permutation test measures it), well below the buffer of
	// 512 packets (srWindow).
	ReorderWindow int
	// AckTimeout is the local ACK timeout exponent: 4.096 µs × 2^AckTimeout
	// (InfiniBand spec, C9-140). Default 14 (67 ms), as perftest sets.
	AckTimeout int
	// RetryCount is how many timeouts or NAKs an RC QP retries before
	// completing with retry_exc_err. Default 7, the maximum.
	RetryCount int
	// RNRRetry is the receiver-not-ready retry count (7 means infinite).
	RNRRetry int
	// MaxRdAtomic is the number of outstanding READ/ATOMIC requests.
	// Default 16, ConnectX-5's limit.
	MaxRdAtomic int
	// RxRate is the receive drain rate; 0 means line rate.
	RxRate fabric.Rate
	// AckEvery is how many packets the requester sends between AckReq
	// bits (the last packet of a message always asks). Default 16.
	AckEvery int
	// MinRNRTimer is the responder's min_rnr_timer code (IBTA vol. 1,
	// table 45): how long a requester waits after an RNR NAK. Default 12
	// (0.64 ms), the value rdma-core's rping and many applications use.
	MinRNRTimer int
	// MaxDestRdAtomic is how many READ/ATOMIC requests the responder
	// keeps in progress. Default 16, as MaxRdAtomic.
	MaxDestRdAtomic int
	// MaxMsgSize is the longest message one work request may carry.
	// Default 1 GiB: the max_msg_sz that ibv_devinfo -v reports for
	// ConnectX ports (0x40000000); InfiniBand allows up to 2^31 bytes
	// (the RETH's DMA length is 32 bits).
	MaxMsgSize int64
	// MaxInline is the largest inline payload. Default 220 bytes, what
	// perftest gets from ConnectX-4/5 (its default --inline_size).
	MaxInline int
	// MaxSendWR, MaxRecvWR and CQDepth are the default queue depths
	// (perftest's defaults: tx depth 128, rx depth 512, CQ as deep as
	// both).
	MaxSendWR, MaxRecvWR, CQDepth int

	// NIC timing. The defaults make a 2-byte inline ib_write_lat back to
	// back about 0.9 µs, near what ConnectX-5 shows (NVIDIA publishes
	// 0.8-1.0 µs for 100 Gb/s ConnectX-5/6).
	//
	// DoorbellLatency is from ibv_post_send to the NIC seeing the
	// doorbell: an MMIO posted write across PCIe (about half a PCIe round
	// trip; Neugebauer et al., "Understanding PCIe performance for end
	// host networking", SIGCOMM 2018). Default 200 ns.
	DoorbellLatency sim.Time
	// DoorbellCost is what one ibv_post_send call's doorbell takes of the
	// posting thread: an ibv_post_send called while the last one's is
	// still going rings its doorbell when that ends. A chain of WRs posted
	// in one call (PostSendList; perftest's --post_list) rings once, so
	// it pays this once. The model has one posting thread per host.
	// Default 0 (not charged), so that results checked against closed
	// forms and published figures with instant posts stand. About 75 ns
	// models a ConnectX posting thread: what doorbell batching saved per
	// request in Kalia et al., "Design Guidelines for High Performance
	// RDMA Systems" (ATC 2016; Connect-IB, Haswell at 2.0 GHz): 7.0 to
	// 16.6 Mrps per core for the sequencer (§4.2, Fig. 7: 143 to 60 ns
	// a request) and 6.7 to 12.3 for HERD (§4.3.1, Fig. 9: 149 to 81
	// ns); an upper bound, as the batched runs saved other per-call
	// work too.
	DoorbellCost sim.Time
	// WQEFetchLatency is the DMA read of the WQE: a PCIe read round trip,
	// 400-500 ns on Xeon hosts (Neugebauer et al. 2018). Inline WRs skip
	// it (BlueFlame writes the WQE with the doorbell). Default 450 ns.
	WQEFetchLatency sim.Time
	// DMALatency is the DMA of payload: the read of a non-inline payload
	// before its first packet, and on receive the time until written
	// data and the CQE are visible in host memory. Default 300 ns (a
	// posted write's half round trip plus the root complex).
	DMALatency sim.Time
	// TxPktLatency and RxPktLatency are the NIC's per-packet pipeline
	// from the scheduler to the wire and from the wire to the transport
	// logic. Default 200 ns each (ConnectX port-to-port forwarding in
	// the sub-microsecond range; the totals above fix their sum).
	TxPktLatency, RxPktLatency sim.Time
	// RxBuffer is the NIC's receive buffer, and RxXoff and RxXon the
	// occupancy at which it sends PFC PAUSE and RESUME on its data
	// priority when the drain is slower than the wire. Defaults: 256 KiB
	// (the ConnectX-5 port buffer mlnx_qos reports), XOFF at 128 KiB,
	// XON at 96 KiB (leaving 128 KiB of headroom, more than the 802.1Qbb
	// bound for 10 µs of cable at 100 Gb/s).
	RxBuffer, RxXoff, RxXon int64
	// PFCWatchdog, when above 0, is the NIC's PFC storm prevention: a NIC
	// whose receive pipeline has been stalled (or that has been stuck
	// sending PAUSE) for this long stops sending PAUSE, and drops what
	// its full receive buffer cannot take. Off by default; NVIDIA's mlx5
	// driver arms it at 100 ms in its auto mode (ethtool tunable
	// pfc-prevention-tout, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC) and allows
	// up to 8 s.
	PFCWatchdog sim.Time
	// CNPInterval is the least time between two CNPs for one QP
	// (NVIDIA's min_time_between_cnps, default 4 µs on ConnectX-4 and
	// later), and CNPPriority their 802.1p priority (cnp_802p_prio,
	// default 6; CNPDSCP, above, their DSCP).
	CNPInterval sim.Time
	CNPPriority uint8
	// CNPWindowed selects the notification point of the DCQCN paper (Zhu
	// et al., SIGCOMM 2015, section 3.1: "the NIC generates at most one
	// CNP packet every N microseconds for the flow, if any packet that
	// arrives within that time window was marked"): time after a QP's
	// first CNP is cut into windows of CNPInterval, and the first marked
	// packet of a window sends one. Two CNPs can then be closer than
	// CNPInterval (a mark late in one window, another early in the next),
	// and a window sees a CNP with the chance that any of its packets was
	// marked, as the DCQCN fluid model counts cuts (Zhu et al., CoNEXT
	// 2016). When false (the default, ConnectX's min_time_between_cnps),
	// a CNP goes out for the first mark at least CNPInterval after the
	// last CNP.
	CNPWindowed bool
	// EchoECN makes the responder answer CE marks only with its ACKs'
	// ECN-Echo count (fabric.Packet.ECE), sending no CNP: DCTCP's
	// receiver, whose sender reads the echo.
	EchoECN bool
	// APM arms automatic path migration on RC QPs (InfiniBand, with
	// LMC ≥ 1): the alternate path is the peer's other LID of its pair
	// (apm.go).
	APM bool
	// QKey is the default Q_Key of UD QPs (perftest's 0x11111111).
	QKey uint32

	// CC is the congestion control: "none" (PFC only), "dcqcn", "hpcc",
	// "timely", "dctcp" or, on InfiniBand, "ibcc". Default "none".
	CC string
	// CCParams holds congestion-control parameters by NVIDIA's names, as
	// the scenario gave them.
	CCParams map[string]string

	// VLArb is the port's VL arbitration on InfiniBand (IBTA vol. 1,
	// 7.6.9; OpenSM sets a CA port's with qos_ca_vlarb_high/low and
	// qos_ca_high_limit): nil sends the QPs with work in round robin
	// whatever their VL.
	VLArb *VLArb
	// NewGSIAgent makes the owner of the HCA's QP1, the host's connection
	// manager, the first time it is needed (gsi.go); the scenario's
	// builder sets it from hca.cm (this package does not import cm). Nil:
	// QP1 has no owner until one is set (SetGSIAgent), and MADs for it
	// are dropped.
	NewGSIAgent func(h *HCA) GSIAgent
	// TCP is the NIC's TCP when Transport is iWARP (tcp.go); profiles
	// copied from one another share it until one is changed (copy it
	// first: WithTCP).
	TCP *TCPProfile
	// BDPCap caps an RC flow's bytes in flight, whatever its congestion
	// control's window (IRN's BDP-FC, Mittal et al., SIGCOMM 2018,
	// §3.2): bytes, 0 for none (default), unless BDPCapAuto (the
	// simulation's flows set it, SetWindowCap).
	BDPCap int64
}

// TCPProfile is an iWARP NIC's TCP (hca.tcp). The defaults are those of
// Linux's iw_cxgb4 driver for Chelsio's T5/T6 adapters (module
// parameters in drivers/infiniband/hw/cxgb4/cm.c), the iWARP NIC most
// deployments run, except where a field says otherwise.
type TCPProfile struct {
	// CC is the congestion control NewCC makes: "newreno" (default: what
	// Chelsio's TCP offload runs, CONG_ALG_NEWRENO; iw_cxgb4 forces Tahoe
	// on T5 only to work around a hardware issue), "cubic" or "dctcp".
	CC string
	// RTOMin is the least retransmission timeout. Default 200 ms, Linux's
	// TCP_RTO_MIN (RFC 6298 2.4 asks for 1 s; Chelsio's TCP offload
	// firmware keeps 250 ms, cxgb3's TP_RTO_MIN). Data-centre studies
	// lower it to 1 ms or less (Vasudevan et al., SIGCOMM 2009).
	RTOMin sim.Time
	// RTOInitial is the timeout before the first round-trip sample: 1 s
	// (RFC 6298 2.1). RTOMax caps the backed-off timeout: 120 s, Linux's
	// TCP_RTO_MAX.
	RTOInitial, RTOMax sim.Time
	// DelayedAck, above 0, has the receiver acknowledge every second
	// segment, or a lone one after this long (RFC 5681 4.2). Default 0:
	// every segment is acknowledged (iw_cxgb4's dack_mode 0, its default
	// since Linux 5.10).
	DelayedAck sim.Time
	// SACK and Timestamps are the TCP options the connection uses.
	// Default off, as iw_cxgb4 asks (enable_tcp_sack and
	// enable_tcp_timestamps 0). Without SACK, recovery is NewReno's
	// (RFC 6582): one hole per round trip.
	SACK, Timestamps bool
	// RcvWin is the receive window and SndWin the send buffer, bytes:
	// iw_cxgb4's rcv_win 256 KiB and snd_win 128 KiB.
	RcvWin, SndWin int64
	// MPA is what the connection negotiated: CRCs on, markers off
	// (iw_cxgb4's crc_enabled 1, markers_enabled 0).
	MPA fabric.MPA
	// Retries is how many timeouts in a row end the connection (the QP
	// completes with retry_exc_err): 15, Linux's tcp_retries2 and
	// Chelsio's RXTSHIFTMAXR2.
	Retries int
	// DupThresh is how many duplicate ACKs start a fast retransmit: 3
	// (RFC 5681 3.2).
	DupThresh int
	// NewCC makes the congestion control of an RC QP that reaches RTS
	// (TCP always runs one); the scenario's builder sets it from
	// hca.tcp.cc (this package does not import congestion). Nil: the
	// window is SndWin alone. apply sets the stream's rate and window
	// (qp's requests, or the READ responses it sends).
	NewCC func(h *HCA, qp *QP, apply func(rate fabric.Rate, window int64)) CongestionControl
}

// WithTCP gives p a TCP profile of its own, changed by f.
func (p *Profile) WithTCP(f func(t *TCPProfile)) {
	t := *p.TCP
	f(&t)
	p.TCP = &t
}

// DefaultTCPProfile returns the documented defaults.
func DefaultTCPProfile() TCPProfile {
	return TCPProfile{CC: "newreno", RTOMin: 200 * sim.Millisecond, RTOInitial: sim.Second, RTOMax: 120 * sim.Second,
		RcvWin: 256 * 1024, SndWin: 128 * 1024, MPA: fabric.MPA{CRC: true}, Retries: 15, DupThresh: 3}
}

// AckTimeoutDuration is the local ACK timeout: 4.096 µs × 2^AckTimeout.
func (p Profile) AckTimeoutDuration() sim.Time {
	if p.AckTimeout <= 0 {
		return 0 // 0 means infinite in the spec; callers treat 0 as off
	}
	return 4096 * sim.Nanosecond << uint(p.AckTimeout)
}

// DefaultProfile returns the documented defaults.
func DefaultProfile() Profile {
	return Profile{
		MTU:           4096,
		Priority:      3,
		Retransmit:    GoBackN,
		ReorderWindow: 256,
		RTOLow:        100 * sim.Microsecond,
		RTOHigh:       320 * sim.Microsecond,
		RTOLowPackets: 3,
		AckTimeout:    14,
		RetryCount:    7,
		RNRRetry:      7,
		MaxRdAtomic:   16,
		AckEvery:      16,
		CC:            "none",

		MinRNRTimer:     12,
		MaxDestRdAtomic: 16,
		MaxInline:       220,
		MaxMsgSize:      1 << 30,
		MaxSendWR:       128,
		MaxRecvWR:       512,
		CQDepth:         4096,
		DoorbellLatency: 200 * sim.Nanosecond,
		WQEFetchLatency: 450 * sim.Nanosecond,
		DMALatency:      300 * sim.Nanosecond,
		TxPktLatency:    200 * sim.Nanosecond,
		RxPktLatency:    200 * sim.Nanosecond,
		RxBuffer:        256 * 1024,
		RxXoff:          128 * 1024,
		RxXon:           96 * 1024,
		CNPInterval:     4 * sim.Microsecond,
		CNPPriority:     6,
		CNPDSCP:         48,
		QKey:            0x11111111,
		TCP:             new(DefaultTCPProfile()),
	}
}

// rnrTimes is IBTA vol. 1 table 45: the RNR NAK timer field's values.
var rnrTimes = [32]sim.Time{
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
}

// RNRDelay is the time an RNR NAK timer code stands for (IBTA vol. 1,
// table 45); the table above is in microseconds.
func RNRDelay(code int) sim.Time { return rnrTimes[code&31] * sim.Microsecond }

// Zero returns a copy of p without NIC latencies, for tests that check
// the fabric's timing to the picosecond.
func (p Profile) Zero() Profile {
	p.DoorbellLatency, p.WQEFetchLatency, p.DMALatency, p.TxPktLatency, p.RxPktLatency = 0, 0, 0, 0, 0
	return p
}
