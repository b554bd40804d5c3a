package fabric

import (
	"math/rand/v2"
	"testing"
)

func TestHostIP(t *testing.T) {
	for _, tc := range []struct {
		index int
		want  uint32
	}{
		{0, 10<<24 | 1},                // 10.0.0.1
		{1, 10<<24 | 2},                // 10.0.0.2
		{254, 10<<24 | 255},            // 10.0.0.255
		{255, 10<<24 | 1<<8},           // 10.0.1.0
		{1023, 10<<24 | 4<<8},          // 10.0.4.0
		{1<<24 - 2, 10<<24 | 0xFFFFFF}, // 10.255.255.255
	} {
		if got := HostIP(tc.index); got != tc.want {
			t.Errorf("HostIP(%d) = %#x, want %#x", tc.index, got, tc.want)
		}
	}
}

// TestSplitmix64Reference checks the finalizer against the first output of
// the reference splitmix64 generator seeded with 0.
func TestSplitmix64Reference(t *testing.T) {
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) = %#x, want 0xe220a8397b1dcdaf", got)
	}
}

// TestHashFixed pins the hash: a change of the function changes which path
// every flow takes, and so every result; it must be deliberate.
func TestHashFixed(t *testing.T) {
	a := FlowKey{SrcIP: HostIP(0), DstIP: HostIP(1), SrcPort: 49152, DstPort: RoCEv2UDPPort}
	b := FlowKey{SrcIP: HostIP(1000), DstIP: HostIP(7), SrcPort: 61234, DstPort: RoCEv2UDPPort}
	for _, tc := range []struct {
		key  FlowKey
		seed uint64
		want uint64
	}{
		{a, 0, 0x90583a76f6d7bd55},
		{b, 0, 0x0c2caca136cdf35a},
		{b, 42, 0x0be3eced51979575},
	} {
		if got := tc.key.Hash(tc.seed); got != tc.want {
			t.Errorf("%+v.Hash(%d) = %#x, want %#x", tc.key, tc.seed, got, tc.want)
		}
		// A switch hashes from its mixed seed (HashMixed): the same hash.
		if got := tc.key.HashMixed(MixSeed(tc.seed)); got != tc.want {
			t.Errorf("%+v.HashMixed(MixSeed(%d)) = %#x, want %#x", tc.key, tc.seed, got, tc.want)
		}
	}
}

// TestPickPortRemainder: PickPort takes ports[hash % len(ports)] for every
// length, the powers of two (by a mask) as the others.
func TestPickPortRemainder(t *testing.T) {
	ports := make([]int32, 17)
	for i := range ports {
		ports[i] = int32(100 + i)
	}
	for n := 1; n <= len(ports); n++ {
		for _, h := range []uint64{0, 1, 7, 12345, 1<<63 + 5, ^uint64(0)} {
			if got, want := PickPort(ports[:n], h), ports[h%uint64(n)]; got != want {
				t.Errorf("PickPort(%d ports, %#x) = %d, want %d", n, h, got, want)
			}
		}
	}
}

// TestHashUsesEveryField flips each bit of each field and checks that the
// hash changes and that about half of its bits do (avalanche).
func TestHashUsesEveryField(t *testing.T) {
	base := FlowKey{SrcIP: HostIP(3), DstIP: HostIP(9), SrcPort: 50000, DstPort: RoCEv2UDPPort}
	h := base.Hash(1)
	flips, bits := 0, 0
	check := func(k FlowKey, what string) {
		d := k.Hash(1) ^ h
		if d == 0 {
			t.Errorf("flipping %s does not change the hash", what)
		}
		flips++
		for ; d != 0; d &= d - 1 {
			bits++
		}
	}
	for i := 0; i < 32; i++ {
		k := base
		k.SrcIP ^= 1 << i
		check(k, "a SrcIP bit")
		k = base
		k.DstIP ^= 1 << i
		check(k, "a DstIP bit")
	}
	for i := 0; i < 16; i++ {
		k := base
		k.SrcPort ^= 1 << i
		check(k, "a SrcPort bit")
		k = base
		k.DstPort ^= 1 << i
		check(k, "a DstPort bit")
	}
	if avg := float64(bits) / float64(flips); avg < 28 || avg > 36 {
		t.Errorf("a one-bit change flips %.1f of 64 hash bits on average, want about 32", avg)
	}
	if base.Hash(1) == base.Hash(2) {
		t.Error("the seed does not change the hash")
	}
}

func TestPickPortSpread(t *testing.T) {
	ports := []int32{4, 5, 6, 7}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 10000
	count := map[int32]int{}
	for i := 0; i < n; i++ {
		k := FlowKey{SrcIP: HostIP(0), DstIP: HostIP(1), SrcPort: uint16(rng.UintN(1 << 16)), DstPort: RoCEv2UDPPort}
		count[PickPort(ports, k.Hash(0))]++
	}
	for _, p := range ports {
		if f := float64(count[p]) / n; f < 0.22 || f > 0.28 {
			t.Errorf("port %d got %.1f%% of the flows, want 25%% ± 3%%", p, 100*f)
		}
	}
	if len(count) != len(ports) {
		t.Errorf("chose ports %v, want only %v", count, ports)
	}
}

func TestPickPortSeeds(t *testing.T) {
	ports := []int32{0, 1, 2, 3}
	differ := 0
	for sp := 0; sp < 100; sp++ {
		k := FlowKey{SrcIP: HostIP(2), DstIP: HostIP(5), SrcPort: uint16(49152 + sp), DstPort: RoCEv2UDPPort}
		if PickPort(ports, k.Hash(0)) != PickPort(ports, k.Hash(1)) {
			differ++
		}
	}
	// Independent choices would differ for 75 of 100 keys.
	if differ < 50 {
		t.Errorf("seeds 0 and 1 choose differently for %d of 100 keys, want most", differ)
	}
}

func TestPickPortEdges(t *testing.T) {
	if got := PickPort(nil, 12345); got != -1 {
		t.Errorf("PickPort(nil) = %d, want -1", got)
	}
	if got := PickPort([]int32{9}, 12345); got != 9 {
		t.Errorf("PickPort([9]) = %d, want 9", got)
	}
	if got := PickPort([]int32{3, 5, 7}, 7); got != 5 {
		t.Errorf("PickPort([3 5 7], 7) = %d, want 5 (7 mod 3 = 1)", got)
	}
}

func TestHashDoesNotAllocate(t *testing.T) {
	k := FlowKey{SrcIP: HostIP(2), DstIP: HostIP(5), SrcPort: 50000, DstPort: RoCEv2UDPPort}
	var sink uint64
	if n := testing.AllocsPerRun(1000, func() { sink += k.Hash(sink) }); n != 0 {
		t.Errorf("Hash: %v allocations per call", n)
	}
}

func BenchmarkFlowHash(b *testing.B) {
	k := FlowKey{SrcIP: HostIP(2), DstIP: HostIP(5), SrcPort: 50000, DstPort: RoCEv2UDPPort}
	var sink uint64
	b.ReportAllocs()
	for b.Loop() {
		k.SrcPort++
		sink += k.Hash(7)
	}
	_ = sink
}

// TestECMPPolarization walks a random permutation of one flow per host
// through a k=8 fat-tree and counts the aggregation-to-core uplinks the
// flows use. When every switch hashes with the same seed, an edge switch
// sends a flow up to its pod's aggregation switch h mod 4 and that switch
// sends it on to its core uplink h mod 4: each of the 32 aggregation
// switches uses one of its 4 uplinks, 32 of 128 at most. With each
// switch's own seed (SwitchECMPSeed) the choices are independent: about
// 3.5 flows go up through each aggregation switch, which use 4(1 -
// (3/4)^3.5) = 2.5 of its uplinks on average, about 80 of 128.
func TestECMPPolarization(t *testing.T) {
	const k = 8
	tp, err := FatTree(k, LinkSpec{Rate: 100 * Gbps})
	if err != nil {
		t.Fatal(err)
	}
	routes, _, err := ComputeRoutes(tp, RoutingECMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts := tp.Hosts()
	perm := rand.New(rand.NewPCG(1, 2)).Perm(len(hosts))
	aggFirst, ok1 := tp.Lookup("s32") // the generator's names: edge s0.., aggregation s32.., core s64..
	coreFirst, ok2 := tp.Lookup("s64")
	if !ok1 || !ok2 || coreFirst != aggFirst+k*k/2 {
		t.Fatal("the k=8 fat-tree's switches are not s0..s79 in tier order")
	}
	uplinks := func(seed func(at NodeID) uint64) int {
		used := map[[2]int]bool{}
		for i, src := range hosts {
			dst := hosts[perm[i]]
			key := FlowKey{SrcIP: HostIP(i), DstIP: HostIP(perm[i]), SrcPort: RoCEv2SourcePort(uint32(17 + i)), DstPort: RoCEv2Port}
			at := tp.Nodes[src].Ports[0].Peer
			for hops := 0; at != dst && hops < 8; hops++ {
				port := PickPort(routes.NextPorts(at, dst), key.Hash(seed(at)))
				next := tp.Nodes[at].Ports[port].Peer
				if at >= aggFirst && at < coreFirst && next >= coreFirst {
					used[[2]int{int(at), int(port)}] = true
				}
				at = next
			}
			if at != dst {
				t.Fatalf("flow %d: no path to %s", i, tp.Nodes[dst].Name)
			}
		}
		return len(used)
	}
	shared := uplinks(func(NodeID) uint64 { return 7 })
	own := uplinks(func(at NodeID) uint64 { return SwitchECMPSeed(7, tp.Nodes[at].Name) })
	t.Logf("aggregation-to-core uplinks used: %d with one seed, %d with each switch's own", shared, own)
	if shared > k*k/2 {
		t.Errorf("one seed everywhere: %d uplinks used, want at most %d (one per aggregation switch)", shared, k*k/2)
	}
	if own < 64 || own > 96 {
		t.Errorf("each switch's own seed: %d uplinks used, want about 80 (64..96)", own)
	}
}
