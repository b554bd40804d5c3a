package scenario

// The congestion controls and the switches' load balancing modes
// register themselves in the tables (kind.CCs, kind.LoadBalances) that
// hca.cc, hca:'s parameter keys and switch.load_balance are read from;
// the format's tests read files that name them.
import (
	_ "github.com/lfsim/lfsim/congestion"
	_ "github.com/lfsim/lfsim/switch"
)
