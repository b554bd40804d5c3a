package swtch

import "github.com/lfsim/lfsim/fabric"

// Copies of a packet under credit flow control. An InfiniBand switch
// that copies a packet to several output ports (a multicast group's
// tree; it never floods) keeps the one packet in its input buffer until
// its last copy has left, and only then frees the buffer and returns
// its credit upstream: the sender was granted credit for one packet,
// and the input port's VL buffer holds one (IBTA vol. 1, 7.9: credits
// count the receive buffer's blocks, per VL). On each output link a
// copy is a packet like any other, under that link's credit.
//
// So the packet is charged to its ingress port and VL once, when it
// arrives (Receive), each copy (the packet itself among them) is
// recorded in copies against a shared count, and a copy that leaves,
// sent or dropped, frees the buffer only if it is the last (lastCopy).
// Ethernet switches charge each copy instead (copyCharged), as merchant
// MMUs account them; nothing here runs there.

// copyHeld returns a copy of p, an admitted packet that the switch is
// copying to several ports, on InfiniBand: both p and the copy are
// recorded as holding p's input buffer, which the last of its copies to
// leave frees.
func (s *Switch) copyHeld(p *fabric.Packet) *fabric.Packet {
	if s.copies == nil {
		s.copies = map[*fabric.Packet]*int32{}
	}
	n := s.copies[p]
	if n == nil {
		// The packet's first copy: p counts as one.
		if k := len(s.spare); k > 0 {
			n, s.spare = s.spare[k-1], s.spare[:k-1]
		} else {
			n = new(int32)
		}
		*n = 1
		s.copies[p] = n
	}
	c := s.pool.Clone(p)
	*n++
	s.copies[c] = n
	s.copying = true
	return c
}

// lastCopy reports whether p, leaving the switch (sent or dropped),
// frees its input buffer: it is no copy, or the last of its packet's
// copies still here. Called only while s.copying.
func (s *Switch) lastCopy(p *fabric.Packet) bool {
	n := s.copies[p]
	if n == nil {
		return true
	}
	delete(s.copies, p)
	if len(s.copies) == 0 {
		s.copying = false
	}
	*n--
	if *n > 0 {
		return false
	}
	s.spare = append(s.spare, n)
	return true
}

// HeldCopies returns how many packet copies wait in the switch for
// their packet's other copies to leave before its input buffer is
// freed (InfiniBand; 0 on Ethernet).
func (s *Switch) HeldCopies() int { return len(s.copies) }
