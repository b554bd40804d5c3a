package kind

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
)

// CC is one congestion control's row of the table: what a file calls
// it, its parameters, and what it needs of the rest of the simulator.
// The model package that implements it registers it (RegisterCC).
type CC struct {
	// Name is hca.cc's value (hca.tcp.cc's for a TCP one) and, when it has
	// Params, the key of its parameters under hca:.
	Name string
	// Title is the name as its paper writes it (DCQCN), for messages and
	// the report.
	Title string
	// Basis says what it reacts to, as a message names it ("RTT-based").
	Basis string
	// Doc is one line for the docs' table: what it is and its source.
	Doc string
	// Params are hca.<Name>'s keys, in the order a message lists them.
	Params []Param

	// RDMA: a NIC's QPs run it, chosen by hca.cc. TCP: iWARP's TCP runs
	// it, chosen by hca.tcp.cc.
	RDMA, TCP bool
	// Ethernet and InfiniBand are the link layers whose NICs run it.
	Ethernet, InfiniBand bool

	// ECN: it reacts to the marks switches write (ECN in the IP header
	// on Ethernet, FECN on InfiniBand): its packets go ECN-capable, and
	// the switches mark unless the file turns marking off.
	ECN bool
	// Marking is the switches' marking it asks for when the file gives
	// no switch.ecn; nil for the switches' defaults.
	Marking *Marking
	// Unmarked says what it does when no switch marks; when set, a
	// scenario that turns marking off is warned so.
	Unmarked string
	// INT: it reads the in-band telemetry switches stamp on RoCEv2's UDP
	// packets (its packets ask for it).
	INT bool
	// AckEvery: the receiver acknowledges every packet. EchoECN: the
	// receiver echoes marks in its ACKs instead of sending CNPs.
	AckEvery, EchoECN bool
	// ControlsReads: it controls a READ's responses (they go from the
	// responder, which no ACK answers: a control that reacts to ACKs
	// cannot).
	ControlsReads bool
	// Metrics are the time series it adds per flow, by their names in
	// timeseries.csv (reports' Metric...: rc_gbps, rt_gbps, alpha,
	// window_bytes, ccti, rtt_us), for the memory estimate and the
	// report's charts, which name the controls that draw each.
	Metrics []string
}

// Marking is a switch's ECN marking profile: a RED ramp from Kmin to
// Kmax up to probability Pmax, at enqueue or at dequeue.
type Marking struct {
	Kmin, Kmax fabric.Size
	Pmax       float64
	AtEnqueue  bool
}

// Problem is what a whole-parameter check finds: the key it is about
// and the message.
type Problem struct {
	Key, Msg string
}

// Problemf is a Problem with a formatted message.
func Problemf(key, format string, args ...any) Problem {
	return Problem{Key: key, Msg: fmt.Sprintf(format, args...)}
}

var ccs = table[CC]{name: func(c CC) string { return c.Name }}

// RegisterCC adds c to the table, after those registered before it (the
// order of enumerations and messages). A second row with the same name,
// or one named none (hca.cc's word for no control), is a programming
// error: it panics. unregister takes it out again (for a test's toy
// controller).
func RegisterCC(c CC) (unregister func()) {
	return ccs.register("congestion control", c, func(n string) bool { return n != "" && n != "none" })
}

// CCs is the table, in registration order.
func CCs() []CC { return ccs.all() }

// LookupCC is the row named name.
func LookupCC(name string) (CC, bool) { return ccs.lookup(name) }

// Names are the names of the rows that keep says, in table order.
func Names(keep func(CC) bool) []string {
	var out []string
	for _, r := range CCs() {
		if keep(r) {
			out = append(out, r.Name)
		}
	}
	return out
}
