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
