package hca

import "github.com/lfsim/lfsim/sim"

// What a send WQE meets in the NIC between its doorbell and its first
// packet, step by step, for a timeline of one message (observe's
// timeline.csv). post sums the same latencies into the WQE's ready time;
// SendSteps names them in the order the NIC takes them.

// Step is one of the NIC's fixed latencies: its name (as timeline.csv
// writes it) and how long it takes.
type Step struct {
	Name string
	D    sim.Time
}

// SendSteps are the latencies post added to w between its doorbell
// (Rung) and the time the NIC may send its first packet (Ready), in the
// NIC's order: the doorbell (Profile.DoorbellLatency), the WQE's fetch
// from the send queue when it did not come inline with the doorbell
// (WQEFetchLatency), the DMA read of a payload that is not inline
// (DMALatency; none for READ and atomics, whose requests carry no
// payload), and the transmit pipeline (TxPktLatency). Steps of zero
// length are left out. Their sum is Ready − Rung.
func (h *HCA) SendSteps(w *WQE) []Step {
	p := &h.Prof
	steps := []Step{{"doorbell", p.DoorbellLatency}}
	if w.fetched {
		steps = append(steps, Step{"wqe_fetch", p.WQEFetchLatency})
	}
	if !w.wr.Inline && w.Size > 0 && !w.Op.isRead() && !w.Op.isAtomic() {
		steps = append(steps, Step{"dma_read", p.DMALatency})
	}
	steps = append(steps, Step{"tx_pipeline", p.TxPktLatency})
	out := steps[:0]
	for _, s := range steps {
		if s.D > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Rung is when w's doorbell was rung: its post, or later when the
// posting thread was still busy with an earlier doorbell
// (Profile.DoorbellCost).
func (w *WQE) Rung() sim.Time { return w.rung }

// Ready is when the NIC may start sending w's first packet: Rung plus
// SendSteps. The transmit arbiter may start it later (the port busy, the
// QP's turn not come, its window or rate).
func (w *WQE) Ready() sim.Time { return w.ready }
