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

// PartNodes are, for each partition's share of the sampler, the nodes
// whose series it takes (a flow's: its Node), in its order, and how many
// samples each share took.
func (sm *Sampler) PartNodes() (nodes [][]fabric.NodeID, samples []int) {
	nodes = make([][]fabric.NodeID, len(sm.parts))
	for i := range sm.parts {
		p := &sm.parts[i]
		samples = append(samples, p.samples)
		for _, r := range p.runs {
			for j := r.from; j < r.to; j++ {
				switch r.kind {
				case runLinks:
					nodes[i] = append(nodes[i], sm.links[j].Node)
				case runQueues:
					nodes[i] = append(nodes[i], sm.queues[j].port.Node)
				case runSwitches:
					nodes[i] = append(nodes[i], sm.switches[j].Ports()[0].Node)
				case runFlows:
					nodes[i] = append(nodes[i], sm.flows[j].Node)
				}
			}
		}
	}
	return nodes, samples
}
