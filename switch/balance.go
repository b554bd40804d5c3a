package swtch

import (
	"fmt"
	"math/rand/v2"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// Load balancing: how a switch chooses among the equal-cost ports its
// routes give toward a destination (fabric.Routes.NextPorts). ECMP hashes
// the flow, so a flow keeps one path and two elephants may share an
// uplink while another idles; the others spread a flow's packets:
//
//   - flowlet: a flow keeps its port while its packets come close
//     together; after a gap longer than FlowletTimeout its next packet
//     (the first of a new flowlet) takes a port at random, as LetFlow
//     does (Vanini et al., NSDI 2017; CONGA, Alizadeh et al., SIGCOMM
//     2014, chooses by congestion instead). The gap lets the flowlet
//     before it drain, so flowlets rarely reorder. Flows share a
//     flowlet table of FlowletEntries entries by hash, as in hardware.
//   - adaptive: every packet takes the eligible port with the fewest
//     bytes queued for it (its egress queues, all priorities, and the
//     packets in the pipeline bound for it), as switch vendors describe
//     adaptive routing. A tie goes to the first in the group counting
//     from the flow's hashed port, so equal loads keep ECMP's choice.
//     AdaptiveBias favours the hashed port: another wins only with more
//     than AdaptiveBias bytes less.
//   - spray: every packet takes the next port of the group in turn (a
//     counter per destination), one at random, or the one its entropy
//     hashes to: the flow's key mixed with the packet's PSN, as a sender
//     that varies the entropy value per packet (UET's entropy; a RoCEv2
//     NIC that varies the UDP source port) makes it.
//
// On InfiniBand the choice is among the subnet manager's adaptive-routing
// groups (groups, fabric.Routes.Groups) instead of the LFT's one port.
//
// Every choice is deterministic: the random ones draw from the switch's
// own stream (sim.Engine.Rand), so the same seed gives the same paths.
// A choice is among the ports the routes give: with routing: updown
// those keep to up*/down* order, and no choice can close a buffer
// cycle that the routes do not already allow.

// LoadBalance is how a switch chooses among equal-cost ports.
type LoadBalance uint8

// The load-balancing modes (SCENARIO.md: switch.load_balance).
const (
	ECMP LoadBalance = iota
	Flowlet
	Adaptive
	Spray
)

// loadBalances are the modes' rows of the table of kinds, in the order
// of their values: the scenario format reads switch.load_balance's
// names from the table, the assembly what each needs.
var loadBalances = [...]kind.LoadBalance{
	ECMP: {Name: "ecmp", Doc: "a flow's hash picks one of the equal-cost ports (InfiniBand: the routes' one port)"},
	Flowlet: {Name: "flowlet", Chooses: true, Keys: []string{"flowlet_timeout"},
		Doc: "a flow keeps its port until a gap longer than flowlet_timeout, then takes one at random (LetFlow, Vanini et al., NSDI 2017)"},
	Adaptive: {Name: "adaptive", Chooses: true, Keys: []string{"adaptive_bias"},
		Doc: "each packet takes the port with the fewest bytes queued for it; another than its flow's hashed port wins only with more than adaptive_bias bytes less"},
	Spray: {Name: "spray", Chooses: true, Keys: []string{"spray"},
		Doc: "each packet takes the next port in turn, one at random, or the one its entropy hashes to (switch.spray)"},
}

func init() {
	for _, l := range loadBalances {
		kind.RegisterLoadBalance(l)
	}
}

func (l LoadBalance) String() string {
	if int(l) < len(loadBalances) {
		return loadBalances[l].Name
	}
	return fmt.Sprintf("LoadBalance(%d)", uint8(l))
}

// ParseLoadBalance is the mode switch.load_balance names.
func ParseLoadBalance(name string) (LoadBalance, bool) {
	for i, l := range loadBalances {
		if l.Name == name {
			return LoadBalance(i), true
		}
	}
	return ECMP, false
}

// Chooses reports whether the switch chooses among a group's ports itself
// (kind.LoadBalance.Chooses).
func (l LoadBalance) Chooses() bool { return int(l) < len(loadBalances) && loadBalances[l].Chooses }

// SprayMode is how spray picks a packet's port.
type SprayMode uint8

// The spray modes (SCENARIO.md: switch.spray).
const (
	SprayRoundRobin SprayMode = iota
	SprayRandom
	SprayEntropy
)

var sprayNames = [...]string{"round-robin", "random", "entropy"}

// ParseSprayMode is the mode switch.spray names.
func ParseSprayMode(name string) (SprayMode, bool) {
	for i, n := range sprayNames {
		if n == name {
			return SprayMode(i), true
		}
	}
	return SprayRoundRobin, false
}

func (m SprayMode) String() string {
	if int(m) < len(sprayNames) {
		return sprayNames[m]
	}
	return fmt.Sprintf("SprayMode(%d)", uint8(m))
}

// FlowletEntries is the size of a switch's flowlet table: flows whose
// hashes meet in an entry share its port and its gap clock, as they do in
// a hardware table (CONGA's has 64 K entries for a whole leaf; this is
// per switch, and smaller, since a simulated switch sees fewer flows).
const FlowletEntries = 4096

// balancer is a switch's state for the modes other than ECMP.
type balancer struct {
	// rr is spray's round robin per destination, by node id (grown to
	// the largest seen): the index in the group of the port the next
	// packet takes, two bytes each so that a line holds 32 destinations.
	rr  []uint16
	rng *rand.Rand
	// committed is, per egress port, the bytes of packets chosen for it
	// that are still in the pipeline (adaptive's load counts them).
	committed []int64
	// flowlets: per entry, when its last packet passed and its port.
	flowletSeen []sim.Time
	flowletPort []int32
}

func newBalancer(s *Switch) *balancer {
	b := &balancer{rng: s.eng.Rand("switch/" + s.Name + "/balance")}
	switch s.Prof.LoadBalance {
	case Adaptive:
		b.committed = make([]int64, len(s.ports))
	case Flowlet:
		b.flowletSeen = make([]sim.Time, FlowletEntries)
		b.flowletPort = make([]int32, FlowletEntries)
		for i := range b.flowletSeen {
			b.flowletSeen[i] = -1
		}
	}
	return b
}

// groups returns the tables an InfiniBand switch that balances load
// forwards by: the subnet manager's adaptive-routing groups
// (fabric.Routes.Groups) in place of the LFT's one port per destination.
// Ethernet's routes are groups already (ECMP's equal-cost ports).
func (s *Switch) groups(r *fabric.Routes) *fabric.Routes {
	if s.Prof.LinkLayer == "infiniband" && s.balance != ECMP && r != nil {
		return r.Groups()
	}
	return r
}

// choose returns the index in next (two or more ports) of the port
// packet p takes.
func (s *Switch) choose(p *fabric.Packet, next []int32) int {
	b := s.lb
	n := uint64(len(next))
	switch s.balance {
	case Flowlet:
		h := p.Flow.HashMixed(s.ecmpMix)
		e := h % FlowletEntries
		now := s.eng.Now()
		last := b.flowletSeen[e]
		b.flowletSeen[e] = now
		if last >= 0 && now-last <= s.Prof.FlowletTimeout {
			if k := indexOf(next, b.flowletPort[e]); k >= 0 {
				return k
			}
		}
		k := int(b.rng.Uint64N(n))
		b.flowletPort[e] = next[k]
		return k
	case Adaptive:
		start := p.Flow.HashMixed(s.ecmpMix) % n
		best := int(start)
		bestLoad := s.portLoad(int(next[best])) - int64(s.Prof.AdaptiveBias)
		for i := uint64(1); i < n; i++ {
			k := int((start + i) % n)
			if l := s.portLoad(int(next[k])); l < bestLoad {
				best, bestLoad = k, l
			}
		}
		return best
	default: // Spray (ECMP never asks: Receive hashes)
		switch s.Prof.Spray {
		case SprayRandom:
			return int(b.rng.Uint64N(n))
		case SprayEntropy:
			k := p.Flow
			k.SrcPort ^= uint16(p.PSN) ^ uint16(p.PSN>>16)
			return int(k.HashMixed(s.ecmpMix) % n)
		default:
			d := int(p.Dst)
			if d >= len(b.rr) {
				b.rr = append(b.rr, make([]uint16, d+1-len(b.rr))...)
			}
			c := uint64(b.rr[d])
			if c >= n {
				c = 0 // the group shrank (a link down)
			}
			b.rr[d] = uint16((c + 1) % n)
			return int(c)
		}
	}
}

// portLoad is the bytes queued at egress port o, all priorities, and
// those in the pipeline bound for it.
func (s *Switch) portLoad(o int) int64 {
	load := s.lb.committed[o]
	for _, q := range s.queues[o*int(s.np) : (o+1)*int(s.np)] {
		load += q.Bytes
	}
	return load
}

// indexOf returns the index of port p in ports, or -1.
func indexOf(ports []int32, p int32) int {
	for i, q := range ports {
		if q == p {
			return i
		}
	}
	return -1
}
