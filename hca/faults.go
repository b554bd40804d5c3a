package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Faults of the NIC, as scenarios' faults: apply them, and the NIC
// watchdog (Profile.PFCWatchdog) that contains the worst of them.

// SetRxRate changes the receive drain rate (0: line rate): a slow
// receiver from now on.
func (h *HCA) SetRxRate(r fabric.Rate) { h.Prof.RxRate, h.rxRate = r, r }

// SetRxHang stalls (true) or restarts the receive pipeline. While it is
// stalled, arrivals wait in the receive buffer, which sends PAUSE above
// RxXoff as a slow receiver does; the NIC watchdog, if on, stops that
// PAUSE once the stall has lasted PFCWatchdog, and the NIC then drops
// what its buffer cannot hold.
func (h *HCA) SetRxHang(hung bool) {
	if h.rxHung == hung {
		return
	}
	h.rxHung = hung
	if hung {
		h.startStall()
		return
	}
	h.endStall()
	if h.rxq.Len > 0 && !h.rxBusy {
		h.startDrain()
	}
}

// SetPFCStorm makes the NIC send PAUSE with the longest quanta on prio,
// refreshed before it lapses, until called with on false, when it sends
// RESUME: a NIC stuck pausing its switch port (Guo et al., SIGCOMM 2016,
// §4.3).
func (h *HCA) SetPFCStorm(prio uint8, on bool) {
	if h.storm == on {
		return
	}
	h.storm, h.stormPrio = on, prio
	if on {
		h.startStall()
		h.stormRefresh()
		return
	}
	h.endStall()
	if !h.rxPaused || prio != h.Prof.Priority {
		h.sendPause(prio, 0)
	}
}

func (h *HCA) stormRefresh() {
	if !h.storm || h.wdTripped {
		return
	}
	h.sendPause(h.stormPrio, fabric.MaxQuanta)
	h.eng.After(fabric.PauseDuration(fabric.MaxQuanta, h.port.Rate)/2, h, evStorm, 0, nil)
}

func (h *HCA) startStall() {
	if h.rxHung && h.storm {
		return // already stalled
	}
	h.stallAt = h.eng.Now()
	if h.Prof.PFCWatchdog > 0 {
		h.eng.Cancel(h.wdTimer)
		h.wdTimer = h.eng.After(h.Prof.PFCWatchdog, h, evNICWatchdog, 0, nil)
	}
}

func (h *HCA) endStall() {
	if h.rxHung || h.storm {
		return // still stalled by the other fault
	}
	h.eng.Cancel(h.wdTimer)
	h.wdTripped = false
}

// watchdogTrip stops the NIC's PAUSE: the stall has lasted too long.
func (h *HCA) watchdogTrip() {
	h.wdTimer = sim.Timer{}
	if (!h.rxHung && !h.storm) || h.wdTripped {
		return
	}
	h.wdTripped = true
	h.Stats.WatchdogTrips++
}
