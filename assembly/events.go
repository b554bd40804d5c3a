package assembly

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// maxEvents bounds the asynchronous events a run keeps (events.csv);
// past it they are counted, and a warning says so.
const maxEvents = 1 << 16

// eventLog collects the asynchronous events of a partition's HCAs as
// they are raised (one partition unless the run is cut): each its row, and
// beside it when and where, by which the partitions' logs merge (rows).
type eventLog struct {
	rows    []reports.EventRow
	keys    []eventKey
	dropped int64
}

type eventKey struct {
	at   sim.Time
	host fabric.NodeID
}

// logEvents hooks every HCA's asynchronous events into its partition's
// log.
func (n *Network) logEvents() {
	n.events = make([]eventLog, len(n.parts))
	for id, h := range n.HCAs {
		if h == nil {
			continue
		}
		host, hid, log := n.Scenario.Topology.Nodes[id].Name, fabric.NodeID(id), &n.events[n.Fabric.Partition(fabric.NodeID(id))]
		h.OnAsyncEvent = func(ev hca.AsyncEvent) {
			now := h.Engine().Now()
			// A partition keeps its first maxEvents, and the rest of
			// the instant of its last: the merge (eventRows) cuts the
			// whole by time and host, so a cut inside an instant does
			// not depend on the partitions.
			if n := len(log.keys); n >= maxEvents && log.keys[n-1].at != now {
				log.dropped++
				return
			}
			log.rows = append(log.rows, reports.EventRow{TimeNs: now.Nanoseconds(), Host: host,
				Event: ev.Type.String(), Code: int(ev.Type), Object: n.eventObject(hid, ev)})
			log.keys = append(log.keys, eventKey{at: now, host: hid})
		}
	}
}

// eventRows are the run's first maxEvents asynchronous events, by time
// and then by host (a host's own in the order it raised them), and how
// many more were not kept: the same whatever the partitions.
func (n *Network) eventRows() (rows []reports.EventRow, dropped int64) {
	type keyed struct {
		k   eventKey
		row reports.EventRow
	}
	var all []keyed
	for i := range n.events {
		l := &n.events[i]
		dropped += l.dropped
		for j, r := range l.rows {
			all = append(all, keyed{l.keys[j], r})
		}
	}
	slices.SortStableFunc(all, func(a, b keyed) int {
		if a.k.at != b.k.at {
			return cmp.Compare(a.k.at, b.k.at)
		}
		return cmp.Compare(a.k.host, b.k.host)
	})
	if len(all) > maxEvents {
		dropped += int64(len(all) - maxEvents)
		all = all[:maxEvents]
	}
	for _, a := range all {
		rows = append(rows, a.row)
	}
	return rows, dropped
}

// eventObject says what an event is about: the port, a QP (with its
// flow, when it carries one) or a CQ.
func (n *Network) eventObject(host fabric.NodeID, ev hca.AsyncEvent) string {
	switch {
	case ev.QP != nil:
		s := fmt.Sprintf("qp 0x%06x", ev.QP.QPN)
		if fr := n.dyn.reqs[host][ev.QP]; fr != nil {
			s += fmt.Sprintf(" flow %d requester", fr.Flow.ID)
		} else if fr := n.dyn.resps[host][ev.QP]; fr != nil {
			s += fmt.Sprintf(" flow %d responder", fr.Flow.ID)
		}
		return s
	case ev.CQ != nil:
		return "cq"
	}
	return fmt.Sprintf("port %d", max(ev.Port, 1))
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
	rows, _ := n.eventRows()
	var b strings.Builder
	for _, id := range n.Scenario.AsyncWatch {
		host := n.Scenario.Topology.Nodes[id].Name
		fmt.Fprintf(&b, "# asyncwatch on %s: ibv_asyncwatch -d lfsim0\nlfsim0: async event FD 3\n", host)
		for _, e := range rows {
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
