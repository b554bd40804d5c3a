package swtch

import (
	"math/bits"

	"github.com/lfsim/lfsim/fabric"
)

// QoS as a switch is configured (switch.trust, dscp2prio, prio2tc,
// scheduler): how an arriving packet is classified to a priority, and how
// the egress scheduler orders the priorities' queues by traffic class.
// The queues stay per priority (PFC pauses priorities, IEEE 802.1Qbb);
// the scheduler serves traffic classes (IEEE 802.1Qaz): strict classes
// first, highest class first, then the weighted ones by DWRR
// (Switch.nextDWRR), a class of several priorities taking them in turn.

// DefaultDSCP2Prio is the DSCP-to-priority map a switch trusting DSCP
// uses for a DSCP its dscp2prio does not list: the DSCP's class selector
// bits, dscp >> 3 (0-7 to 0, 8-15 to 1, ... 56-63 to 7; so CSn, and
// AFn1..AFn3, to n). This is the default of switches that document one
// as a formula: Brocade Network OS ("qos trust dscp", default DSCP
// priority mapping), HPE's Comware (default DSCP-to-CoS table), and of
// NIC drivers that initialise their DCB map so (ZTE's zxdh:
// dscp2prio[i] = i >> 3). It is not SONiC's: SONiC's default
// DSCP_TO_TC_MAP "AZURE" (sonic-buildimage
// files/build_templates/qos_config.j2) maps 3 to 3, 4 to 4, 5 to 2, 8
// to 0, 46 to 5, 48 to 6 and every other DSCP to 1; a file that wants
// it lists it in dscp2prio. NVIDIA's ConnectX and Onyx defaults were not
// in the sources at hand and are not claimed here.
func DefaultDSCP2Prio() [64]uint8 {
	var m [64]uint8
	for d := range m {
		m[d] = uint8(d >> 3)
	}
	return m
}

// classes are what a switch keeps of its QoS configuration beyond each
// class's priorities (Switch.tcPrios), apart from the switch so that a
// switch without it stays in its allocation class: each priority's
// traffic class, each DSCP's priority (with trust: dscp), and per port
// and class the priority its round robin served last (where a weighted
// class has several priorities).
type classes struct {
	tcOf      [8]uint8
	dscp2prio [64]uint8
	tcLast    [][8]uint8
}

// initQoS lays out the classes from the profile: each priority's traffic
// class (Prio2TC, else itself), each class's priorities and the DSCP map.
func (s *Switch) initQoS(ports int) {
	prof := &s.Prof
	var c classes
	for prio := range 8 {
		tc := uint8(prio)
		if prof.Prio2TC != nil {
			tc = prof.Prio2TC[prio] & 7
		}
		c.tcOf[prio] = tc
		s.tcPrios[tc] |= 1 << prio
		if tc != uint8(prio) {
			s.byTC = true
		}
	}
	// An InfiniBand switch of a mixed network (VPI) that inherits the
	// network's trust: dscp classifies by SL and VL all the same: its
	// packets have no IP header.
	if s.trustDSCP = prof.TrustDSCP && !s.credits; s.trustDSCP {
		for d := range c.dscp2prio {
			c.dscp2prio[d] = prof.DSCPPriority(uint8(d)) & 7
		}
	}
	for tc := range prof.DWRR {
		if bits.OnesCount8(s.tcPrios[tc&7]) > 1 {
			c.tcLast = make([][8]uint8, ports)
		}
	}
	if s.trustDSCP || s.byTC || c.tcLast != nil {
		s.qos = &c
	}
}

// classHead is the queue whose head a weighted class tc sends next on
// port: its one priority's, or of its several the next ready one after
// the last served. It returns nil when none is ready, and says whether
// all the class's queues are empty (a class that empties loses its
// deficit; a paused one keeps it).
func (s *Switch) classHead(port *fabric.Port, tc uint8) (uint8, *egressQueue, bool) {
	o := port.Index
	m := s.tcPrios[tc&7]
	if m&(m-1) == 0 { // one priority (or none): the common case
		if m == 0 {
			return 0, nil, true
		}
		prio := uint8(bits.TrailingZeros8(m))
		q := &s.queues[s.at(o, prio)] // weighted priorities have slots from New
		if q.Len == 0 {
			return prio, nil, true
		}
		if s.blocked(port, prio, q) {
			return prio, nil, false
		}
		return prio, q, false
	}
	empty := true
	start := s.qos.tcLast[o][tc&7] + 1 // several priorities: made in initQoS
	for k := range uint8(8) {
		prio := (start + k) & 7
		if m&(1<<prio) == 0 {
			continue
		}
		q := &s.queues[s.at(o, prio)]
		if q.Len == 0 {
			continue
		}
		empty = false
		if !s.blocked(port, prio, q) {
			return prio, q, false
		}
	}
	return 0, nil, empty
}

// blocked says whether non-empty queue q of priority prio may not send:
// paused (and not ignored by the watchdog), or on InfiniBand without
// credit for its head (creditBlocked).
func (s *Switch) blocked(port *fabric.Port, prio uint8, q *egressQueue) bool {
	if s.credits {
		return port.Paused(prio) && !port.HasCredit(prio, q.peek().Frame())
	}
	return port.Paused(prio) && port.OwnerBits[bitWDIgnore]&(1<<prio) == 0
}

// highestClass is, of the strict priorities ready, the one of the
// highest traffic class (of two in one class, the higher priority).
func (s *Switch) highestClass(ready uint8) uint8 {
	best, rank := uint8(0), -1
	for m := ready; m != 0; m &= m - 1 {
		prio := uint8(bits.TrailingZeros8(m))
		if r := int(s.qos.tcOf[prio])<<3 | int(prio); r > rank {
			best, rank = prio, r
		}
	}
	return best
}
