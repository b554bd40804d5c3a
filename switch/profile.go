// Package swtch models a switch of a lossless Ethernet fabric: a shared
// buffer with ingress and egress accounting (reserved minimums, static or
// dynamic thresholds, a headroom pool), per-priority egress queues served
// by strict priority or DWRR with round-robin among ingress ports, PFC
// (IEEE 802.1Qbb) generation and reaction, RED/ECN marking, cut-through or
// store-and-forward forwarding and per-flow ECMP. (The folder is switch/;
// switch is a Go keyword.) It imports only sim and fabric of lfsim's: no
// other model, no scenario file.
package swtch

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Profile is the hardware and configuration of one switch. Every field has
// a default in DefaultProfile with its source.
type Profile struct {
	// Buffer is the shared packet buffer, bytes. Default 32 MiB, the size
	// of a Broadcom Tomahawk 3 class switch (SCENARIO.md's example).
	Buffer fabric.Size
	// SharedPool, when above 0, is the shared pool's size, bytes, as a
	// SONiC switch's BUFFER_POOL gives it (switch.buffer: {shared}), and
	// Buffer is then the shared pool, the reserved minimums and the
	// headroom together (New sets it). Default 0: the shared pool is
	// what Buffer leaves.
	SharedPool fabric.Size
	// Latency is the fixed pipeline latency from the last bit in (first
	// bit, with cut-through) to the packet being queued at egress. Default
	// 500 ns, typical of datacenter switches at 100 Gb/s.
	Latency sim.Time
	// CutThrough starts forwarding once the header has arrived instead of
	// the whole frame. Default off (store-and-forward).
	CutThrough bool
	// Reserved is the guaranteed minimum each ingress port and priority may
	// hold before drawing on the shared pool, bytes. Default 0: the whole
	// buffer is shared.
	Reserved fabric.Size
	// IngressThreshold limits what a lossy ingress port and priority may
	// take from the shared pool. Default dynamic, alpha 1 (the free pool is
	// split evenly with one competitor; Choudhury and Hahne, 1998).
	IngressThreshold Threshold
	// EgressThreshold limits a lossy egress queue. Default dynamic, alpha 1.
	// Lossless queues have no egress limit: PFC bounds them at ingress.
	EgressThreshold Threshold
	PFC             PFC
	ECN             ECN
	// DWRR holds per-traffic-class weights (per priority, with the
	// identity Prio2TC) when egress scheduling is deficit weighted round
	// robin; classes without a weight are served first, in strict
	// priority. nil means strict priority for all (the default). ETS
	// (switch.scheduler.ets, IEEE 802.1Qaz) is given here as its shares'
	// percentages over their greatest common divisor.
	DWRR map[uint8]int
	// DWRRUnit is the bytes one unit of a DWRR weight is worth: 0 for the
	// largest frame (the default); 64 on InfiniBand, whose VL arbitration
	// weights count 64-byte units.
	DWRRUnit int64
	// HighLimit bounds the bytes the strict-priority queues (InfiniBand's
	// high-priority VL arbitration table) may send while a DWRR queue
	// (the low-priority table) has a packet waiting: past it, one packet
	// of the low table goes. 0: no limit. (IBTA vol. 1, 7.6.9:
	// Limit_Of_High_Priority, in 4 KiB units; 255 is unlimited, 0 one
	// packet.)
	HighLimit int64
	// ECMPSeed perturbs the per-flow ECMP hash of this switch. Default 0.
	ECMPSeed uint64
	// ECMPPerSwitch mixes the switch's name into ECMPSeed
	// (fabric.SwitchECMPSeed), so that each switch hashes its own way, as
	// operators configure fabrics to avoid hash polarisation. Default true;
	// false hashes the same way on every switch, as identical switches do
	// out of the box, which polarises multi-tier fabrics.
	ECMPPerSwitch bool
	// LoadBalance is how the switch chooses among equal-cost ports
	// (balance.go). Default ECMP, per-flow hashing.
	LoadBalance LoadBalance
	// FlowletTimeout is the gap within a flow after which flowlet mode
	// may move it to another port. Default 50 µs, SCENARIO.md's: several
	// RTTs of a datacenter fabric at 100 Gb/s, long enough for the queues
	// on the old path to drain.
	FlowletTimeout sim.Time
	// Spray is how spray mode picks a packet's port. Default round robin.
	Spray SprayMode
	// AdaptiveBias is how many fewer bytes another port must have queued
	// than the flow's hashed port for adaptive mode to take it. Default 0:
	// the least loaded port, ties to the hashed one.
	AdaptiveBias fabric.Size
	// EgressFIFO queues each egress port and priority in one FIFO, as a
	// shared-memory switch's MMU queues per class of service and the HPCC
	// authors' simulator does. Default false: a FIFO per ingress port,
	// served round robin (queue.go), as switch fabrics arbitrate among
	// inputs; PFC-only sharing is then per input port, not per flow.
	EgressFIFO bool
	// LinkLayer is "ethernet" (PFC) or "infiniband" (credits).
	LinkLayer string
	// CBFC: the switch's Ethernet links run Ultra Ethernet's credit-based
	// flow control (fabric.Port.EnableCBFC): a packet is admitted without
	// a check, as on InfiniBand, and its credit goes back upstream when it
	// leaves; no PFC. Default off.
	CBFC bool
	// Trim: a packet the switch would drop for want of buffer (a lossy
	// class) is cut to its first TrimBytes and sent on at the highest
	// priority (Ultra Ethernet's packet trimming), so that its receiver
	// learns of the loss at once. Default off.
	Trim bool
	// HOQLifetime, on InfiniBand, is how long a packet may wait at the
	// head of an output VL (for credit) before the switch discards it,
	// IB's own breaker of credit loops (IBTA vol. 1, 18.2.5.4: HOQLife,
	// 4.096 µs × 2^value; OpenSM's default head_of_queue_lifetime is 0x12,
	// about 1 s, and 0x14 or more is infinite). 0: off, the default.
	HOQLifetime sim.Time
	// LMC, on InfiniBand, is the subnet manager's LID mask control: each
	// host has 2^LMC LIDs, each forwarded on its own path where the
	// fabric has several (fabric.Routes.LFTPort). A QP's packets go to
	// the LID its QP number's low LMC bits pick (through the UDP source
	// port lfsim derives from it, which InfiniBand packets carry in the
	// model as the flow's key). 0: one LID per port, the default.
	LMC int
	// FloodLossless floods a lossless packet for which the switch has no
	// forwarding entry to every port but the one it came in on, as
	// Ethernet switches flood unknown unicast (IEEE 802.1D) and as Guo et
	// al. (SIGCOMM 2016, §4.2) found it deadlocking a RoCE fabric. Default
	// true; false drops it (reason no_route), their fix.
	FloodLossless bool
	// Tagger moves a packet that bounces against the up*/down* order (it
	// came down to this switch and goes up again) to the next lossless
	// priority, and beyond the last one to the lowest lossy priority (Hu
	// et al., "Tagger", CoNEXT 2017). Default off. It needs the order:
	// Switch.SetUpDownRanks.
	Tagger bool
	// RangeExtender makes the switch an InfiniBand range extender
	// (rangeextender.go). Default: not one.
	RangeExtender RangeExtender
	// TrustDSCP classifies an arriving packet by its IP DSCP
	// (switch.trust: dscp): its priority becomes its DSCP's
	// (DSCPPriority), for its buffer accounting, PFC, queue and onward
	// tag. Default false: the packet's 802.1p priority (PCP) is trusted,
	// as before the key. ETS says DWRR came from switch.scheduler.ets
	// (its shares over their greatest common divisor). (The QoS fields
	// are last and the maps pointers, so that the switch's fields after
	// its profile stay in the cache lines they had.)
	TrustDSCP, ETS bool
	// DSCP2Prio is each DSCP's priority under TrustDSCP; nil is the
	// default, dscp >> 3 (DefaultDSCP2Prio says whose).
	DSCP2Prio *[64]uint8
	// Prio2TC, when not nil, is each priority's traffic class
	// (switch.prio2tc), which the scheduler serves; nil is the identity
	// (IEEE 802.1Qaz's default with eight classes).
	Prio2TC *[8]uint8
}

// DSCPPriority is the priority a switch trusting DSCP gives DSCP d
// (DSCP2Prio, or dscp >> 3).
func (p *Profile) DSCPPriority(d uint8) uint8 {
	if p.DSCP2Prio == nil {
		return (d & 63) >> 3
	}
	return p.DSCP2Prio[d&63]
}

// Threshold is a static limit in bytes, or a dynamic one: Alpha × the
// shared buffer still free, as merchant-silicon MMUs compute it
// (Choudhury and Hahne, "Dynamic queue length thresholds for shared-memory
// packet switches", IEEE/ACM ToN 1998).
type Threshold struct {
	Bytes fabric.Size
	Alpha float64 // > 0 selects the dynamic threshold
}

// Limit returns the threshold in bytes given the free shared buffer.
func (t Threshold) Limit(free int64) int64 {
	if t.Alpha > 0 {
		return int64(t.Alpha * float64(max(free, 0)))
	}
	return int64(t.Bytes)
}

// PFC configures priority flow control on lossless priorities.
type PFC struct {
	// Priorities are the lossless priorities (0..7); empty turns PFC off.
	// Default [3], the priority RoCEv2 deployments conventionally use.
	Priorities []uint8
	// XOFF is what an ingress port and priority may hold (reserved and
	// shared) before the switch sends PAUSE upstream; beyond it, packets go
	// to headroom. Default 96 KiB. XOFFAlpha > 0 makes it dynamic: Reserved
	// + XOFFAlpha × free shared buffer.
	XOFF      fabric.Size
	XOFFAlpha float64
	// XON is the level at which the switch sends RESUME (quanta 0).
	// Default 80 KiB. XONOffset > 0 puts XON that far below XOFF instead
	// (below the dynamic XOFF when XOFFAlpha > 0).
	XON       fabric.Size
	XONOffset fabric.Size
	// HeadroomAuto sizes each port's headroom from the IEEE 802.1Qbb bound
	// (HeadroomBound); otherwise Headroom bytes per port and lossless
	// priority.
	HeadroomAuto bool
	Headroom     fabric.Size
	// ResponseAuto uses the standard's pause response budget for the port's
	// speed (PauseResponse); otherwise Response. It is how long after a
	// PAUSE arrives this switch's port starts honouring it, on top of
	// finishing the frame in flight.
	ResponseAuto bool
	Response     sim.Time
	// Watchdog, when not nil, is the PFC watchdog. Off by default.
	Watchdog *Watchdog
}

// Watchdog is the PFC watchdog as switch vendors implement it (SONiC's
// pfcwd, Arista's and Cisco's PFC watchdog): a lossless egress queue that
// has been paused for Detect while holding packets is declared stalled;
// for Restore it then ignores PAUSE and either drops its packets and
// those that arrive for it ("drop") or sends them regardless
// ("forward"). After Restore it honours PAUSE again and the detection
// starts over. Defaults (SONiC's): detect 200us, restore 1ms (SONiC
// counts in ms: 200 ms and 200 ms; scenarios of a few ms need shorter
// times), action drop.
type Watchdog struct {
	Detect, Restore sim.Time
	Action          string // "drop" or "forward"
}

// ECN configures RED-style ECN marking per egress queue: no marks below
// Kmin, probability rising linearly to Pmax at Kmax, every packet above
// Kmax (Floyd and Jacobson 1993, as DCQCN uses it).
type ECN struct {
	Enabled    bool
	Kmin, Kmax fabric.Size
	Pmax       float64
	// AtEnqueue marks when the packet is queued rather than when it leaves
	// (the DCQCN paper argues for marking at dequeue, the default: the
	// mark then reflects the queue the packet leaves behind, without its
	// queueing delay).
	AtEnqueue bool
	// Constant marks with probability Pmax whenever the queue is above
	// Kmin (Kmax unused): InfiniBand's FECN marking, with its marking
	// rate as 1/Pmax - 1.
	Constant bool
	// Unmarked are the priorities (bit p for priority p) whose egress
	// queues never mark, as a SONiC switch marks only the queues its
	// QUEUE table gives a WRED profile (switch.ecn.priorities names the
	// others). Default 0: every queue marks.
	Unmarked uint8
	// HostLinksUnmarked: the egress queues toward an attached host never
	// mark. Set where the receivers pace their senders (UET's RCCC,
	// hca.uet.receiver_credits), as uet-htsim turns ECN off on its ToRs'
	// downlinks when its receivers drive (main_uec.cpp:
	// set_ecn_parameters(true, !receiver_driven, ...)): the receiver's
	// credit, not the sender's window, answers for its last link.
	HostLinksUnmarked bool
}

// DefaultProfile returns the documented defaults.
func DefaultProfile() Profile {
	return Profile{
		Buffer:           32 * fabric.MiB,
		Latency:          500 * sim.Nanosecond,
		IngressThreshold: Threshold{Alpha: 1},
		EgressThreshold:  Threshold{Alpha: 1},
		PFC: PFC{
			Priorities:   []uint8{3},
			XOFF:         96 * fabric.KiB,
			XON:          80 * fabric.KiB,
			HeadroomAuto: true,
			ResponseAuto: true,
		},
		// DCQCN paper defaults (Zhu et al., SIGCOMM 2015): Kmin 5 KB,
		// Kmax 200 KB, Pmax 1%. Marking is off until asked for.
		ECN:            ECN{Kmin: 5 * fabric.KB, Kmax: 200 * fabric.KB, Pmax: 0.01},
		LinkLayer:      "ethernet",
		FloodLossless:  true,
		ECMPPerSwitch:  true,
		FlowletTimeout: 50 * sim.Microsecond,
	}
}

// pauseResponseBits are the upper bounds, in bit times, on how long a port
// may take to stop sending after a PAUSE arrives (IEEE 802.3 annex 31B,
// PAUSE reaction timing; the values used for PFC headroom in IEEE 802.1Qbb
// annex N): 60 quanta at 10 Gb/s, 80 at 25, 118 at 40, 394 at 100 and 905
// at 400 Gb/s. A speed between two listed ones takes the faster one's
// budget in bit times; beyond 400 Gb/s, 400 Gb/s's.
var pauseResponseBits = []struct {
	upTo fabric.Rate
	bits int64
}{
	{10 * fabric.Gbps, 30720},
	{25 * fabric.Gbps, 40960},
	{40 * fabric.Gbps, 60416},
	{100 * fabric.Gbps, 201728},
	{400 * fabric.Gbps, 463360},
}

// PauseResponse is the standard's pause response budget at rate r.
func PauseResponse(r fabric.Rate) sim.Time {
	bits := pauseResponseBits[len(pauseResponseBits)-1].bits
	for _, e := range pauseResponseBits {
		if r <= e.upTo {
			bits = e.bits
			break
		}
	}
	return fabric.SerializationTime(bits/8, r)
}

// ResponseDelay is the pause response time this profile gives a port of
// rate r.
func (c PFC) ResponseDelay(r fabric.Rate) sim.Time {
	if c.ResponseAuto {
		return PauseResponse(r)
	}
	return c.Response
}

// HeadroomBound is the buffer a lossless ingress queue needs beyond XOFF
// so that nothing is lost while a PAUSE takes effect (IEEE 802.1Qbb annex
// N): the frame whose arrival crosses XOFF (up to one sender's frame over
// it), the receiver's frame that may be on the wire ahead of the PAUSE,
// the PAUSE frame itself (64 bytes, with preamble and gap), the cable's
// round trip at line rate (data already on the wire, and data sent while
// the PAUSE travels), the upstream's response time at line rate, and the
// sender's frame in flight when it stops. Frames are header to FCS;
// preamble and gap are added here.
func HeadroomBound(r fabric.Rate, delay sim.Time, senderFrame, receiverFrame int64, response sim.Time) int64 {
	sender := senderFrame + fabric.PreambleIFGBytes
	receiver := receiverFrame + fabric.PreambleIFGBytes
	return 2*sender + receiver + fabric.PFCWireBytes + 2*fabric.BytesIn(delay, r) + fabric.BytesIn(response, r)
}

// QoS reports whether the profile configures QoS with switch.trust:
// dscp, scheduler.ets or prio2tc, where the outputs add per-class
// counters (tx_gbps at node:port:priority, summary.json's classes). A
// DWRR scheduler alone, as before those keys, adds none.
func (p *Profile) QoS() bool { return p.TrustDSCP || p.ETS || p.Prio2TC != nil }
