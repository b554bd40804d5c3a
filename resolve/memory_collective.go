package resolve

import (
	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/scenario"
)

// The collectives' part of the memory estimate: each network link's QPs
// at both ends (qps of them each, NCCL_IB_QPS_PER_CONNECTION) with
// their RECVs, and each link's region and step state (assembly's
// connect and connectLink). Measured (peak RSS, /usr/bin/time) on a
// star of 16 hosts, all_to_all of 1 MiB, 15,360 links at channels 64:
// 628 MB at qps 16 (491,520 QPs), 187 MB at qps 4 (122,880 QPs), so
// 1,195 B a QP; 78 MB at qps 1 and 32 MB at channels 16 (3,840 links,
// qps 1), so 3,970 B a link of two QPs, 1,580 B a link besides its
// QPs. Both less MemGarbage, which total adds back. The live heap
// agrees within 4% (assembly's TestMemoryEstimate: 16 hosts' all_to_all
// at qps 4, a tree at qps 8, an all_to_all on 8 servers of 4 GPUs).
// A rank's own state (its CQ, its calls) is not counted: under 1% of
// these.
const (
	memCollQP   = 1110
	memCollLink = 1460
)

// memColl is what the collectives so far need (commSpec counts them).
type memColl struct {
	links, qps int64
}

// countCollective adds s's connections to the estimate's count: links
// network links (collective.NetworkLinks, or counted on the
// communicator laid out on GPU servers), each with s.QPs QPs at both
// ends.
func (b *builder) countCollective(s *CommSpec, links int64) {
	b.memColl.links += links
	b.memColl.qps += 2 * int64(s.QPs) * links
}

// collectivesMemory adds the collectives' connections to e.
func (b *builder) collectivesMemory(e *memEstimate) {
	if m := b.memColl; m.links > 0 {
		e.add(memRun, memCollLink*float64(m.links)+memCollQP*float64(m.qps), "collectives' connections (%d network links, %d QPs)", m.links, m.qps)
	}
}

// collectiveFits reports whether the estimate with the collectives so
// far is within the limit; if not, it refuses the scenario at tv, the
// collective or nccl_tests that takes it over.
func (b *builder) collectiveFits(tv *scenario.TrafficV) bool {
	lim := MemoryLimit()
	if lim == 0 || b.mem == nil {
		return true
	}
	return b.fitsWith(tv, b.flowCount(), tv.Kind+"'s connections", "; fewer channels or qps, or fewer ranks")
}

// networkLinks is the number of s's network links: counted on comm
// where it is laid out (GPU servers), else collective.NetworkLinks'
// closed form for single-NIC hosts, every link of which is a network
// one.
func networkLinks(s *CommSpec, comm *collective.Comm) int64 {
	if comm == nil {
		return collective.NetworkLinks(s.Algorithm, len(s.Hosts), s.Channels)
	}
	var n int64
	for _, l := range comm.Links {
		if l.Kind == collective.Network {
			n++
		}
	}
	return n
}
