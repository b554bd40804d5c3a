package observe

import "github.com/lfsim/lfsim/fabric"

// PauseChanged is the hook the detector puts on every port, for tests
// that drive it by hand.
func (d *Detector) PauseChanged(p *fabric.Port, prio uint8, paused bool) {
	d.pauseChanged(p, prio, paused)
}

// PausedPriorities are the priorities of the paused switch egress queues
// the detector holds, in its order.
func (d *Detector) PausedPriorities() []uint8 {
	out := []uint8{}
	for _, q := range d.paused {
		out = append(out, q.prio)
	}
	return out
}
