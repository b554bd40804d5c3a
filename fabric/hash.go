package fabric

// Per-flow ECMP hashing. A switch that has several next-hop ports toward a
// destination (Routes.NextPorts) picks one per flow, so that the packets of
// one queue pair stay in order on one path, by hashing the flow's 5-tuple
// with the switch's ECMP seed: the scenario's switch.ecmp_seed mixed with
// the switch's name (SwitchECMPSeed), so that tiers do not polarize, or
// the bare seed on every switch when switch.ecmp_per_switch is false:
//
//	port := PickPort(routes.NextPorts(at, dst), key.Hash(seed))
//
// The hash is a pure function of its inputs: the same key and seed choose
// the same port on every machine and in every run.

// RoCEv2UDPPort is the UDP destination port of every RoCEv2 packet (IANA).
const RoCEv2UDPPort = 4791

// FlowKey is the 5-tuple a switch hashes (RoCEv2: UDP destination port is
// always 4791; the source port varies per QP). The protocol (UDP) is the same
// for every packet and so is left out. It is the packet's outermost IP and
// UDP headers: on a packet an overlay encapsulates, the tunnel's
// (overlay.go), whose source port the endpoint hashed from the inner one.
type FlowKey struct {
	SrcIP, DstIP     uint32
	SrcPort, DstPort uint16
}

// HostIP is the IPv4 address of host index i: 10.x.y.z with the index in the
// low 24 bits, plus 1 (10.0.0.1 for host 0, 10.0.1.0 for host 255). Indexes
// of 2^24-1 and above wrap within 10.0.0.0/8.
func HostIP(hostIndex int) uint32 {
	return 10<<24 | uint32(hostIndex+1)&0xFFFFFF
}

// Hash returns a well-mixed 64-bit hash of the key and seed. The fields are
// packed into two 64-bit words (SrcIP<<32|DstIP and SrcPort<<16|DstPort)
// that are folded into the seed one after the other, each fold followed by
// the splitmix64 finalizer (Steele, Lea and Flood, OOPSLA 2014), so that
// every input bit affects every output bit. It does not allocate.
func (k FlowKey) Hash(seed uint64) uint64 { return k.HashMixed(MixSeed(seed)) }

// MixSeed is the hash's first step, which depends on the seed alone: a
// switch does it once, not for every packet (HashMixed).
func MixSeed(seed uint64) uint64 { return splitmix64(seed) }

// HashMixed is Hash of the seed whose MixSeed is mixed: Hash(seed) ==
// HashMixed(MixSeed(seed)), with one splitmix64 step fewer a packet.
func (k FlowKey) HashMixed(mixed uint64) uint64 {
	h := splitmix64(mixed ^ (uint64(k.SrcIP)<<32 | uint64(k.DstIP)))
	return splitmix64(h ^ (uint64(k.SrcPort)<<16 | uint64(k.DstPort)))
}

// splitmix64 is one step of the splitmix64 generator: add the golden-ratio
// increment and apply its finalizer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// SwitchECMPSeed is the seed the switch named name hashes flows with when
// each switch hashes its own way: seed mixed with the name's FNV-1a hash.
// Switches that hash identically polarize: in a fat-tree an edge switch
// sends a flow up to aggregation switch h mod k/2, and that switch, with
// the same h, to its core uplink h mod k/2, so each aggregation switch
// uses one of its k/2 uplinks. Operators give each switch its own seed to
// avoid this, and the HPCC authors' simulator seeds each switch with its
// ID (switch-node.cc, m_ecmpSeed).
func SwitchECMPSeed(seed uint64, name string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a 64 offset basis
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211 // FNV-1a 64 prime
	}
	return splitmix64(seed ^ h)
}

// PickPort chooses one of ports by hash: ports[hash % len(ports)]. It
// returns -1 when ports is empty (no route). A power of two of ports (a
// fat tree's uplinks) takes the hash's low bits, the same remainder
// without a 64-bit division.
func PickPort(ports []int32, hash uint64) int32 {
	n := uint64(len(ports))
	if n == 0 {
		return -1
	}
	if n&(n-1) == 0 {
		return ports[hash&(n-1)]
	}
	return ports[hash%n]
}
