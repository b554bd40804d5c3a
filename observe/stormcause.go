package observe

import (
	"fmt"

	swtch "github.com/lfsim/lfsim/switch"
)

// stormCause says, at the storm rule's verdict on pr, why the traffic
// the pausing ingress holds drains nothing, from what its switch shows
// at that moment: where that traffic waits (the egress queues that hold
// packets from the ingress on its priority) and why that queue does not
// send. A queue paused by a host waits on that NIC's pauses (a stuck
// NIC, Guo et al. SIGCOMM 2016 §4.3, or a slow receiver: one look cannot
// tell them apart); one paused by a switch
// is a pause from downstream (a deadlock when the pauses close a cycle,
// which the deadlock detector reports); one not paused, whose port
// sends or queues a higher priority, is starved by the scheduler (strict
// priority: no NIC and no deadlock); one whose link is down waits for
// it. The first egress queue, by port and priority, with a cause is
// named.
func (d *Detector) stormCause(pr *stormProbe) string {
	sw := pr.sw
	held := fmt.Sprintf("%s held %s paused on priority %d", sw.Name, d.v.Topology.Nodes[sw.Ports()[pr.in].Peer().Node].Name, pr.prio)
	var idle string
	for o, port := range sw.Ports() {
		for p := uint8(0); p < 8; p++ {
			if !sw.QueueHolds(o, p, pr.in, pr.prio) {
				continue
			}
			at := port.Name
			switch {
			case port.Down():
				return fmt.Sprintf("%s; what it holds waits at %s, whose link is down", held, at)
			case sw.Waiting(o, p):
				peer := port.Peer()
				who := d.v.Topology.Nodes[peer.Node].Name
				if d.v.Switches[peer.Node] == nil {
					return fmt.Sprintf("%s; what it holds waits at %s, which %s keeps paused: the pause comes from its NIC (stuck, or taking less than is sent to it)", held, at, who)
				}
				return fmt.Sprintf("%s; what it holds waits at %s, which %s keeps paused: the pause came from downstream (a deadlock if the pauses close a cycle)", held, at, who)
			}
			if hp, ok := servedFirst(sw, o, p); ok {
				return fmt.Sprintf("%s; what it holds waits at %s, not paused, which serves priority %d first: the scheduler starves priority %d (strict priority), no NIC is stuck", held, at, hp, p)
			}
			if idle == "" {
				idle = at
			}
		}
	}
	if idle != "" {
		return fmt.Sprintf("%s; what it holds waits at %s, neither paused nor starved by a higher priority", held, idle)
	}
	return fmt.Sprintf("%s; no egress queue of %s holds what it holds", held, sw.Name)
}

// servedFirst reports a priority above p that port o of sw sends, or
// queues unpaused (the packet on the wire, else the highest with bytes
// queued): under strict priority, what keeps p's queue from sending
// while it is not paused.
func servedFirst(sw *swtch.Switch, o int, p uint8) (uint8, bool) {
	port := sw.Ports()[o]
	if pkt := port.Sending(); pkt != nil && pkt.Priority > p {
		return pkt.Priority, true
	}
	for hp := uint8(7); hp > p; hp-- {
		if sw.QueueBytes(o, hp) > 0 && !port.Paused(hp) {
			return hp, true
		}
	}
	return 0, false
}
