package congestion

import (
	"sync"

	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// Control is a congestion control as lfsim runs it: its row of the
// table (kind.CC: name, parameters, needs), its defaults and checks, and
// how to make one QP's sender. Each algorithm's file defines its own
// (Define) and registers it in the list below.
type Control struct {
	kind.CC
	// Defaults are new parameters (a pointer to the algorithm's struct),
	// the preset's when the file names one (DCQCN's variant), else the
	// default ones.
	Defaults func(preset string) any
	// Check says what is wrong with a whole set of parameters (a key
	// against another), nil when nothing is.
	Check func(params any) []kind.Problem
	// New makes one sender with the parameters.
	New func(params any, env Env) Sender
	// CNP is the notification point's CNP pacing the parameters ask for:
	// at most one CNP per QP per interval, or one per window of that
	// length (windowed). Nil for an algorithm that takes no CNPs.
	CNP func(params any) (interval sim.Time, windowed bool)
	// CNPClass is the DSCP and 802.1p priority of the CNPs the
	// parameters ask for (DCQCN's cnp_dscp and cnp_802p_prio); nil to
	// keep the NIC's defaults.
	CNPClass func(params any) (dscp, prio uint8)
}

// Env is what a sender is made with besides its parameters.
type Env struct {
	// Engine runs the sender's timers (DCQCN's, IB CC's).
	Engine *sim.Engine
	Path   Path
	Apply  Apply
	// TCP: it runs in iWARP's TCP (hca.tcp.cc), not a QP's rate limiter.
	TCP bool
	// Trimming: the switches trim a packet they would drop (Ultra
	// Ethernet's switch.trim), which NSCC's target delay depends on.
	Trimming bool
	// ReceiverCredits: the receivers run UET's RCCC (rccc.go,
	// hca.uet.receiver_credits), which answers for the last link: NSCC
	// does not cut its window for a packet trimmed there.
	ReceiverCredits bool
	// Given says whether the file gave the parameter key.
	Given func(key string) bool
}

// Define makes a Control of an algorithm whose parameters are a P:
// defaults gives them (by preset), check (nil for none) checks them
// whole, and make makes a sender.
func Define[P any](row kind.CC, defaults func(preset string) P, check func(*P) []kind.Problem, make func(P, Env) Sender) Control {
	c := Control{CC: row}
	c.Defaults = func(preset string) any { p := defaults(preset); return &p }
	c.Check = func(params any) []kind.Problem {
		if check == nil {
			return nil
		}
		return check(params.(*P))
	}
	c.New = func(params any, env Env) Sender { return make(*params.(*P), env) }
	return c
}

var controls struct {
	sync.RWMutex
	list []Control
}

// Register adds c to the table (kind.RegisterCC) and to the controls
// this package makes; unregister takes it out again (a test's toy).
func Register(c Control) (unregister func()) {
	undo := kind.RegisterCC(c.CC)
	controls.Lock()
	controls.list = append(controls.list, c)
	controls.Unlock()
	return func() {
		undo()
		controls.Lock()
		defer controls.Unlock()
		for i, x := range controls.list {
			if x.Name == c.Name {
				controls.list = append(controls.list[:i:i], controls.list[i+1:]...)
				return
			}
		}
	}
}

// Lookup is the control named name.
func Lookup(name string) (Control, bool) {
	controls.RLock()
	defer controls.RUnlock()
	for _, c := range controls.list {
		if c.Name == name {
			return c, true
		}
	}
	return Control{}, false
}

// The registered controls, in the order enumerations and messages list
// them: hca.cc takes the RDMA ones, hca.tcp.cc the TCP ones.
func init() {
	for _, c := range []Control{dcqcnControl(), hpccControl(), timelyControl(), newRenoControl(), cubicControl(), dctcpControl(), ibccControl(), nsccControl()} {
		Register(c)
	}
}
