package resolve

import (
	"testing"
)

// TestCollectiveErrors: a collective or nccl_tests the model cannot run
// is refused at its key's line and column, naming what is allowed.
func TestCollectiveErrors(t *testing.T) {
	const top = "topology: {kind: star, hosts: 3}\ntraffic:\n"
	for _, c := range []struct{ name, src, want string }{
		{"one rank", top + "  - collective: {op: all_reduce, size: 1MiB, hosts: [h0]}\n",
			`t.yaml:3:53: traffic[0].collective.hosts: a collective needs at least 2 ranks (hosts), not 1`},
		{"tree for all_to_all", top + "  - collective: {op: all_to_all, size: 1MiB, algorithm: tree}\n",
			`t.yaml:3:57: traffic[0].collective.algorithm: tree does not run all_to_all; all_to_all runs on direct`},
		{"root of all_reduce", top + "  - collective: {op: all_reduce, size: 1MiB, root: h1}\n",
			`t.yaml:3:52: traffic[0].collective.root: all_reduce has no root (broadcast and reduce have)`},
		{"root not a rank", top + "  - collective: {op: broadcast, size: 1MiB, hosts: [h0, h1], root: h2}\n",
			`t.yaml:3:68: traffic[0].collective.root: the root h2 is not one of the collective's hosts`},
		{"after a flow", top + "  - flow: {from: h0, to: h1, size: 1}\n  - collective: {op: all_reduce, size: 1MiB, after: [0]}\n",
			`t.yaml:4:54: traffic[1].collective.after: traffic[0] is not an earlier collective; after lists the traffic: indices of collectives above this one (there is none)`},
		{"ll on halving_doubling", "topology: {kind: star, hosts: 4}\ntraffic:\n  - collective: {op: all_reduce, size: 1MiB, algorithm: halving_doubling, protocol: ll}\n",
			`t.yaml:3:85: traffic[0].collective.protocol: halving_doubling does not run on ll; halving_doubling runs on simple`},
		{"ll128 on halving_doubling", "topology: {kind: star, hosts: 4}\ntraffic:\n  - nccl_tests: {op: all_gather, algorithm: halving_doubling, protocol: ll128}\n",
			`t.yaml:3:73: traffic[0].nccl_tests.protocol: halving_doubling does not run on ll128; halving_doubling runs on simple`},
		{"ll128 on direct", top + "  - collective: {op: all_to_all, size: 1MiB, protocol: ll128}\n",
			`t.yaml:3:56: traffic[0].collective.protocol: direct does not run on ll128; direct runs on ll, simple`},
		{"rail_aware: false on a tree", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - collective: {op: all_reduce, size: 1MiB, algorithm: tree, rail_aware: false}\n",
			`t.yaml:3:75: traffic[0].collective.rail_aware: a tree's chains are always on the rails (NCCL's tree pattern: each server's GPUs in a chain, its head on the channel's rail); rail_aware: false is for rings`},
		{"pxn on a tree", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - nccl_tests: {op: all_reduce, algorithm: tree, pxn: false}\n",
			`t.yaml:3:56: traffic[0].nccl_tests.pxn: a tree never relays a step (each server's chain head sends from its own NIC, on the channel's rail); pxn is for rings and direct`},
		{"rail_aware on halving_doubling", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - collective: {op: all_reduce, size: 1MiB, algorithm: halving_doubling, rail_aware: true}\n",
			`t.yaml:3:87: traffic[0].collective.rail_aware: halving_doubling pairs rank r with r XOR 2^k, as MPICH and Gloo do, which know no rails; rail_aware is for rings`},
		{"pxn on halving_doubling", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - nccl_tests: {op: reduce_scatter, algorithm: halving_doubling, pxn: false}\n",
			`t.yaml:3:72: traffic[0].nccl_tests.pxn: halving_doubling sends each step from its rank's own NIC, as MPICH and Gloo do, which know no PXN; pxn is for rings and direct`},
		{"rail_aware on direct", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - collective: {op: all_to_all, size: 1MiB, rail_aware: false}\n",
			`t.yaml:3:58: traffic[0].collective.rail_aware: direct sends to every peer at once and lays no ring (whether a send to another rail goes through the GPU on that rail is pxn); rail_aware is for rings`},
		{"tree on uneven servers", "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1}\ntraffic:\n  - collective: {op: all_reduce, size: 1MiB, algorithm: tree, hosts: [s0/g0, s0/g1, s1/g0]}\n",
			`t.yaml:3:70: traffic[0].collective.hosts: a tree needs the same GPUs of every server: server of rank 0 takes GPUs [0 1], server of rank 2 [0] (list whole servers)`},
		// Found by the random-scenario test (seed 30000703): priority 7
		// on InfiniBand with data_vls: 1 was taken as the QPs' VL, one
		// without credits, and the run panicked.
		{"priority on infiniband", "topology: {kind: star, hosts: 2}\nswitch: {link_layer: infiniband, ib: {data_vls: 1}}\ntraffic:\n  - collective: {op: all_reduce, size: 64KiB, priority: 7}\n",
			`t.yaml:4:57: traffic[0].collective.priority: an 802.1p priority is Ethernet's, and rank h0 is on InfiniBand, where a collective's QPs use SL 0 (VL 0): remove priority`},
		{"nccl_tests priority on infiniband", "topology: {kind: star, hosts: 2}\nswitch: {link_layer: infiniband}\ntraffic:\n  - nccl_tests: {op: all_gather, priority: 0}\n",
			`t.yaml:4:44: traffic[0].nccl_tests.priority: an 802.1p priority is Ethernet's, and rank h0 is on InfiniBand, where a collective's QPs use SL 0 (VL 0): remove priority`},
		{"unknown op", top + "  - collective: {op: allreduce, size: 1MiB}\n",
			`t.yaml:3:22: traffic[0].collective.op: unknown value allreduce (did you mean all_reduce?); expected one of all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce`},
		{"nccl_tests sizes upside down", top + "  - nccl_tests: {op: all_reduce, minbytes: 1MiB, maxbytes: 1KiB}\n",
			`t.yaml:3:44: traffic[0].nccl_tests.minbytes: minbytes (1MiB) is above maxbytes (1KiB), as nccl-tests refuses ("invalid sizes for 'minbytes' and 'maxbytes'")`},
		{"nccl_tests too many sizes", top + "  - nccl_tests: {op: all_reduce, minbytes: 1, maxbytes: 1GiB, stepbytes: 1KiB}\n",
			`t.yaml:3:5: traffic[0].nccl_tests: this nccl_tests runs 1001 sizes; at most 1000 are supported (raise stepfactor or stepbytes)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("loaded without error; want\n%s", c.want)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestCollectiveSize: a collective's size is an NCCL call of floats: it
// is rounded down to whole floats, per rank for all_gather,
// reduce_scatter and all_to_all (whose calls take a count per rank), as
// nccl-tests' count = size / sizeof(float) does, with a warning at the
// size's line and column; a size of 0 (given, or rounded to) is a call
// NCCL returns from at once (src/enqueue.cc: "Empty collectives can be
// discarded"), warned of too. A whole size is kept without a word.
// Before the fix size: 3 on 8 ranks ran as given, split into 1-byte
// parts, and size: 0 was simulated (112 packets, 51 us), both silently.
func TestCollectiveSize(t *testing.T) {
	const top = "topology: {kind: star, hosts: 8}\ntraffic:\n"
	for _, c := range []struct {
		name, op, size string
		want           int64
		warn           string
	}{
		{"whole floats per rank", "all_gather", "1KiB", 1024, ""},
		{"whole floats", "all_reduce", "100", 100, ""},
		{"zero", "all_gather", "0", 0, "t.yaml:3:40: traffic[0].collective.size: a collective of 0 bytes: NCCL returns at once for a count of 0 (no kernel, no traffic); each call takes no time"},
		{"less than a float per rank", "all_gather", "3", 0, "t.yaml:3:40: traffic[0].collective.size: 3 bytes is less than a float (4 bytes) per rank (all_gather over 8 ranks takes a count per rank): NCCL's count rounds to 0, a call it returns from at once; each call takes no time"},
		{"not whole per rank", "reduce_scatter", "100", 96, "t.yaml:3:44: traffic[0].collective.size: 100 bytes is not a whole number of floats (4 bytes) per rank (reduce_scatter over 8 ranks takes a count per rank): rounded down to 96 bytes, as nccl-tests' count = size / sizeof(float) does"},
		{"all_to_all per peer", "all_to_all", "1000", 992, "t.yaml:3:40: traffic[0].collective.size: 1000 bytes is not a whole number of floats (4 bytes) per rank (all_to_all over 8 ranks takes a count per rank): rounded down to 992 bytes, as nccl-tests' count = size / sizeof(float) does"},
		{"not whole floats", "broadcast", "1023", 1020, "t.yaml:3:39: traffic[0].collective.size: 1023 bytes is not a whole number of floats (4 bytes): rounded down to 1020 bytes, as nccl-tests' count = size / sizeof(float) does"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(top+"  - collective: {op: "+c.op+", size: "+c.size+"}\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Collectives[0].Size; got != c.want {
				t.Errorf("size %d bytes; want %d", got, c.want)
			}
			var warned []string
			for _, w := range s.Warnings {
				warned = append(warned, w.Error())
			}
			if c.warn == "" && len(warned) > 0 || c.warn != "" && (len(warned) != 1 || warned[0] != c.warn) {
				t.Errorf("warnings %q; want %q", warned, c.warn)
			}
		})
	}
}

// TestCollectiveUnevenServersWithoutRails: halving_doubling and direct
// sends lay no ring on the rails, so their servers need not hold the
// same GPUs of the collective; rings on rails (the default) still do.
// Before, rail_aware's default (true) refused halving_doubling and
// direct on them too, advising rail_aware: false, which did nothing
// else for them.
func TestCollectiveUnevenServersWithoutRails(t *testing.T) {
	const top = "topology: {kind: rail-optimized, servers: 3, gpus_per_server: 2, spines: 1}\ntraffic:\n"
	for _, c := range []struct {
		name, coll string
		ok         bool
	}{
		{"halving_doubling", "{op: all_reduce, size: 1MiB, algorithm: halving_doubling, hosts: [s0/g0, s0/g1, s1/g0, s2/g1]}", true},
		{"direct", "{op: all_to_all, size: 1MiB, hosts: [s0/g0, s0/g1, s1/g0]}", true},
		{"ring on rails", "{op: all_reduce, size: 1MiB, hosts: [s0/g0, s0/g1, s1/g0]}", false},
		{"ring off rails", "{op: all_reduce, size: 1MiB, hosts: [s0/g0, s0/g1, s1/g0], rail_aware: false}", true},
	} {
		_, err := Parse("t.yaml", []byte(top+"  - collective: "+c.coll+"\n"))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v; want accepted %v", c.name, err, c.ok)
		}
	}
}

// TestNCCLTestsZeroMinbytes: nccl_tests with minbytes 0 and a
// stepfactor above 1 runs one size, 0 bytes (nccl-tests' loop, size
// times stepfactor, never leaves 0: the real program runs 0 bytes
// forever), and says so at minbytes; review B found it silent. From 0
// by stepbytes, or from 0 to 0, the real program hangs too, in its
// warm-up (src/common.cu:925 at NVIDIA/nccl-tests a0b82b2, size = size *
// 2 whatever the step), and it says so (review C, finding 8: it was
// silent); from 1 KiB by a factor it is silent.
func TestNCCLTestsZeroMinbytes(t *testing.T) {
	const top = "topology: {kind: star, hosts: 4}\ntraffic:\n"
	for _, c := range []struct {
		name, keys string
		sizes      int
		warn       string
	}{
		{"from 0 by a factor", "minbytes: 0, maxbytes: 1MiB, stepfactor: 2", 1,
			"t.yaml:3:44: traffic[0].nccl_tests.minbytes: minbytes 0 times stepfactor 2 stays 0: nccl-tests would run 0 bytes forever; this runs it once and no other size (give minbytes above 0)"},
		{"from 0 by steps", "minbytes: 0, maxbytes: 4KiB, stepbytes: 1KiB", 5,
			"t.yaml:3:44: traffic[0].nccl_tests.minbytes: minbytes 0 doubled stays 0: nccl-tests' warm-up (size = size * 2, whatever stepbytes or stepfactor) would run 0 bytes forever and never time a size; this warms up 0 bytes once and goes on (give minbytes above 0)"},
		{"from 0 to 0", "minbytes: 0, maxbytes: 0, stepfactor: 2", 1,
			"t.yaml:3:44: traffic[0].nccl_tests.minbytes: minbytes 0 doubled stays 0: nccl-tests' warm-up (size = size * 2, whatever stepbytes or stepfactor) would run 0 bytes forever and never time a size; this warms up 0 bytes once and goes on (give minbytes above 0)"},
		{"from 1 KiB by a factor", "minbytes: 1KiB, maxbytes: 4KiB, stepfactor: 2", 3, ""},
	} {
		s, err := Parse("t.yaml", []byte(top+"  - nccl_tests: {op: all_reduce, "+c.keys+"}\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := len(s.NCCLTests[0].Sizes()); got != c.sizes {
			t.Errorf("%s: %d sizes, want %d", c.name, got, c.sizes)
		}
		var warned []string
		for _, w := range s.Warnings {
			warned = append(warned, w.Error())
		}
		if c.warn == "" && len(warned) > 0 || c.warn != "" && (len(warned) != 1 || warned[0] != c.warn) {
			t.Errorf("%s: warnings %q; want %q", c.name, warned, c.warn)
		}
	}
}
