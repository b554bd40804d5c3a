package scenarios

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// maxCaptureFrames bounds each pcap's frames held in memory (a copy of
// each packet, about 200 bytes): past it frames are counted, not kept, and
// the run says so.
const maxCaptureFrames = 1 << 20

// capturer collects what observe.pcap's ports carry, in both directions,
// through the ports' OnTx hooks; reports writes the files. A port observed
// twice (h8 and s0:p8 name the same cable's two ends) feeds each capture.
type capturer struct {
	eng  *sim.Engine
	caps []*reports.Capture
}

func newCapturer(n *Network) *capturer {
	c := &capturer{eng: n.Eng}
	t := n.Scenario.Topology
	seen := map[PortRef]bool{}
	feeds := map[*fabric.Port][]*reports.Capture{}
	for _, ref := range n.Scenario.Observe.Pcap {
		if seen[ref] {
			continue
		}
		seen[ref] = true
		node := t.Nodes[ref.Node]
		name := strings.ReplaceAll(t.PortName(ref.Node, ref.Port), ":", "_")
		if node.Kind == fabric.Host && len(node.Ports) == 1 {
			name = node.Name
		}
		cp := &reports.Capture{Name: name}
		c.caps = append(c.caps, cp)
		p := n.Fabric.Ports[ref.Node][ref.Port]
		feeds[p] = append(feeds[p], cp)
		feeds[p.Peer()] = append(feeds[p.Peer()], cp)
	}
	for p, cs := range feeds {
		p.OnTx = func(p *fabric.Port, pkt *fabric.Packet) { c.record(cs, p, pkt) }
	}
	return c
}

func (c *capturer) record(cs []*reports.Capture, p *fabric.Port, pkt *fabric.Packet) {
	peer := p.Peer()
	for _, cp := range cs {
		if len(cp.Frames) >= maxCaptureFrames {
			cp.Dropped++
			continue
		}
		cp.Frames = append(cp.Frames, reports.CapturedFrame{
			TimeNs: c.eng.Now().Nanoseconds(),
			TxNode: p.Node, TxPort: p.Index, RxNode: peer.Node, RxPort: peer.Index,
			Pkt: *pkt,
		})
	}
}

// warnings says which captures were cut short.
func (c *capturer) warnings() []string {
	var out []string
	for _, cp := range c.caps {
		if cp.Dropped > 0 {
			out = append(out, fmt.Sprintf("%s.pcap holds the first %d frames only; %d more were not kept", cp.Name, len(cp.Frames), cp.Dropped))
		}
	}
	return out
}

// reportTopology is topology.json: what the report draws.
func reportTopology(t *fabric.Topology) *reports.Topo {
	out := &reports.Topo{Nodes: []reports.TopoNode{}, Links: []reports.TopoLink{}}
	for _, n := range t.Nodes {
		out.Nodes = append(out.Nodes, reports.TopoNode{Name: n.Name, Kind: n.Kind.String()})
	}
	for _, l := range t.Links {
		out.Links = append(out.Links, reports.TopoLink{A: t.PortName(l.A, l.APort), B: t.PortName(l.B, l.BPort), RateGbps: l.Rate.Gbps()})
	}
	return out
}
