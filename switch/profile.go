// Package swtch models a switch of a lossless Ethernet fabric: ingress
// accounting in a shared buffer, per-priority egress queues, PFC (IEEE
// 802.1Qbb) generation and reaction, ECN marking and forwarding by routing
// table with per-flow ECMP. (The folder is switch/; switch is a Go keyword.)
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
	// Latency is the fixed pipeline latency from the last bit in to the
	// packet being queued at egress. Default 500 ns, typical of
	// store-and-forward datacenter switches at 100 Gb/s.
	Latency sim.Time
	// CutThrough forwards before the last bit arrives (not modelled yet).
	CutThrough bool
	PFC        PFC
	ECN        ECN
	// DWRR holds per-priority weights when egress scheduling is deficit
	// weighted round robin; nil means strict priority (the default).
	DWRR map[uint8]int
	// ECMPSeed perturbs the per-flow ECMP hash of this switch. Default 0.
	ECMPSeed uint64
	// LinkLayer is "ethernet" (PFC) or "infiniband" (credits).
	LinkLayer string
}

// PFC configures priority flow control on lossless priorities.
type PFC struct {
	// Priorities are the lossless priorities (0..7); empty turns PFC off.
	// Default [3], the priority RoCEv2 deployments conventionally use.
	Priorities []uint8
	// XOFF is the ingress bytes per port and priority at which the switch
	// sends PAUSE upstream. Default 96 KiB. XOFFAlpha > 0 asks for a dynamic
	// threshold (free shared buffer × alpha) instead.
	XOFF      fabric.Size
	XOFFAlpha float64
	// XON is the level at which it sends RESUME (pause quanta 0). Default
	// 80 KiB. XONOffset > 0 puts XON that far below XOFF instead.
	XON       fabric.Size
	XONOffset fabric.Size
	// HeadroomAuto sizes the headroom from the IEEE 802.1Qbb bound;
	// otherwise Headroom bytes per port and lossless priority.
	HeadroomAuto bool
	Headroom     fabric.Size
	// ResponseAuto uses the standard's pause response time per speed;
	// otherwise Response.
	ResponseAuto bool
	Response     sim.Time
	// Watchdog, when not nil, is the PFC watchdog (not modelled yet).
	Watchdog *Watchdog
}

// Watchdog is the PFC watchdog configuration.
type Watchdog struct {
	Detect, Restore sim.Time
	Action          string // "drop" or "forward"
}

// ECN configures RED-style ECN marking per egress queue.
type ECN struct {
	Enabled    bool
	Kmin, Kmax fabric.Size
	Pmax       float64
	// AtEnqueue marks when the packet is queued rather than when it leaves
	// (the DCQCN paper argues for marking at dequeue, the default).
	AtEnqueue bool
}

// DefaultProfile returns the documented defaults.
func DefaultProfile() Profile {
	return Profile{
		Buffer:  32 * fabric.MiB,
		Latency: 500 * sim.Nanosecond,
		PFC: PFC{
			Priorities:   []uint8{3},
			XOFF:         96 * fabric.KiB,
			XON:          80 * fabric.KiB,
			HeadroomAuto: true,
			ResponseAuto: true,
		},
		ECN:       ECN{Enabled: false, Kmin: 100 * fabric.KiB, Kmax: 400 * fabric.KiB, Pmax: 0.2},
		LinkLayer: "ethernet",
	}
}
