package scenarios

// The congestion controls, the switches' load balancing modes and the
// topology generators register themselves in the tables (kind.CCs,
// kind.LoadBalances, kind.Topologies) that hca.cc, hca:'s parameter
// keys, switch.load_balance and topology.kind are read from;
// the library's files name them.
import (
	_ "github.com/lfsim/lfsim/congestion"
	_ "github.com/lfsim/lfsim/multipath"
	_ "github.com/lfsim/lfsim/switch"
	_ "github.com/lfsim/lfsim/topologies"
)
