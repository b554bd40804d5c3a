package assembly

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// maxEvents bounds the asynchronous events a run keeps (events.csv);
// past it they are counted, and a warning says so.
const maxEvents = 1 << 16

// eventLog collects every HCA's asynchronous events as they are raised.
type eventLog struct {
	rows    []reports.EventRow
	dropped int64
}

// logEvents hooks every HCA's asynchronous events into n.events.
func (n *Network) logEvents() {
	n.events = &eventLog{}
	for id, h := range n.HCAs {
		if h == nil {
			continue
		}
		host := n.Scenario.Topology.Nodes[id].Name
		h.OnAsyncEvent = func(ev hca.AsyncEvent) {
			if len(n.events.rows) >= maxEvents {
				n.events.dropped++
				return
			}
			n.events.rows = append(n.events.rows, reports.EventRow{TimeNs: n.Eng.Now().Nanoseconds(), Host: host,
				Event: ev.Type.String(), Code: int(ev.Type), Object: n.eventObject(ev)})
		}
	}
}

// eventObject says what an event is about: the port, a QP (with its
// flow, when it carries one) or a CQ.
func (n *Network) eventObject(ev hca.AsyncEvent) string {
	switch {
	case ev.QP != nil:
		s := fmt.Sprintf("qp 0x%06x", ev.QP.QPN)
		if fr := n.dyn.reqs[ev.QP]; fr != nil {
			s += fmt.Sprintf(" flow %d requester", fr.Flow.ID)
		} else if fr := n.dyn.resps[ev.QP]; fr != nil {
			s += fmt.Sprintf(" flow %d responder", fr.Flow.ID)
		}
		return s
	case ev.CQ != nil:
		return "cq"
	}
	return fmt.Sprintf("port %d", max(ev.Port, 1))
}

// asyncwatch reads an asyncwatch generator: its hosts join the watched.
func (b *builder) asyncwatch(g *scenario.AsyncwatchS, path string) {
	var hosts []fabric.NodeID
	switch {
	case !g.Hosts.Set:
		return
	case g.Hosts.All:
		hosts = b.t.Hosts()
	default:
		for _, name := range g.Hosts.Names {
			if h, ok := b.hostIf(name, path+".hosts"); ok {
				hosts = append(hosts, h)
			}
		}
	}
	b.s.AsyncWatch = append(b.s.AsyncWatch, hosts...)
	slices.Sort(b.s.AsyncWatch)
	b.s.AsyncWatch = slices.Compact(b.s.AsyncWatch)
}

// asyncwatchReport is asyncwatch.txt: for each watched host, what
// ibv_asyncwatch prints on it (rdma-core's libibverbs/examples/
// asyncwatch.c), its device lfsim0:
//
//	lfsim0: async event FD 3
//	  event_type IBV_EVENT_PORT_ERR (10), port 1
//
// with two differences: the tool names only port and device events and
// prints "unexpected" for the others, where this names each (a QP's or
// CQ's with the QP's number in place of the port); and each line ends
// with the simulated time, which the tool, reading events live, does not
// need.
func (n *Network) asyncwatchReport() []byte {
	var b strings.Builder
	for _, id := range n.Scenario.AsyncWatch {
		host := n.Scenario.Topology.Nodes[id].Name
		fmt.Fprintf(&b, "# asyncwatch on %s: ibv_asyncwatch -d lfsim0\nlfsim0: async event FD 3\n", host)
		for _, e := range n.events.rows {
			if e.Host != host {
				continue
			}
			obj := e.Object
			if q, ok := strings.CutPrefix(obj, "qp "); ok {
				obj = "qp " + strings.Fields(q)[0]
			}
			fmt.Fprintf(&b, "  event_type %s (%d), %s   at %v\n", e.Event, e.Code, obj, sim.Time(e.TimeNs)*sim.Nanosecond)
		}
	}
	return []byte(b.String())
}
