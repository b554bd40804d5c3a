package swtch

import "github.com/lfsim/lfsim/fabric"

// SetMulticast sets the ports of multicast group g's tree at this switch
// (fabric.MulticastTree): a packet for g that arrives on one of them is
// copied to the others. No ports removes the group.
func (s *Switch) SetMulticast(g fabric.NodeID, ports []int32) {
	if s.mcast == nil {
		s.mcast = map[fabric.NodeID][]int32{}
	}
	if len(ports) == 0 {
		delete(s.mcast, g)
		return
	}
	s.mcast[g] = append([]int32(nil), ports...)
}

// multicast replicates an admitted packet for a group to the group's
// ports but the one it came in on, as flood does to every port: the
// first copy is the packet, each further one a clone charged to the same
// ingress port and priority (Stats.Replicated counts them). A packet for
// a group the switch has no tree for, or that came in off its tree, is
// dropped as no_route.
func (s *Switch) multicast(p *fabric.Packet, i int, frame int64) {
	ports := s.mcast[p.Dst]
	on := false
	for _, o := range ports {
		on = on || int(o) == i
	}
	if !on {
		s.dropNoRoute(p, i, frame)
		return
	}
	in := s.ports[i]
	sent := false
	for _, o := range ports {
		if int(o) == i {
			continue
		}
		c := p
		if sent {
			c = s.copyCharged(p, i, frame)
			s.Stats.Replicated++
		}
		sent = true
		s.forward(c, in, int(o))
	}
	if !sent {
		s.dropNoRoute(p, i, frame)
	}
}
