package kind

// LoadBalance is one way a switch chooses among equal-cost ports
// (switch.load_balance): its row of the table, which the switch model
// registers (RegisterLoadBalance).
type LoadBalance struct {
	// Name is switch.load_balance's value.
	Name string
	// Doc is one line for the docs: what it does and its source.
	Doc string
	// Chooses: the switch chooses among a group's ports itself, per
	// packet or flowlet, where the default hashes a flow onto one port
	// (or, on InfiniBand, takes the routes' one port). A RoCEv1 spanning
	// tree has nothing to choose among; on InfiniBand the routing engine
	// must allow it.
	Chooses bool
	// Keys are the keys of switch: that tune it; given with another mode
	// they are refused.
	Keys []string
}

var balances = table[LoadBalance]{name: func(l LoadBalance) string { return l.Name }}

// RegisterLoadBalance adds l to the table, after those registered
// before it (the order of switch.load_balance's enumeration). A second
// row with the same name panics.
func RegisterLoadBalance(l LoadBalance) {
	balances.register("load balance", l, func(n string) bool { return n != "" })
}

// LoadBalances is the table, in registration order.
func LoadBalances() []LoadBalance { return balances.all() }

// LookupLoadBalance is the row named name.
func LookupLoadBalance(name string) (LoadBalance, bool) { return balances.lookup(name) }
