package observe

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

// Capturer collects what observe.pcap's ports carry, in both directions,
// through the ports' OnTx hooks; reports writes the files. A port observed
// twice (h8 and s0:p8 name the same cable's two ends) feeds each capture.
//
// Each direction of a capture is kept apart (a half, fed by one port, on
// that port's worker when the run is cut), and Captures merges the two
// by time, in picoseconds, and then by the sending port: the same frames
// in the same order whatever the partitions.
type Capturer struct {
	caps   []*reports.Capture
	halves [][2]*capHalf // by capture: the frames each end sent
	merged bool
}

// capHalf is the frames one port sent, of one capture.
type capHalf struct {
	frames  []reports.CapturedFrame
	at      []sim.Time
	ints    []fabric.INTStack
	dropped int64
	order   int // the sending port's place among the network's ports
}

// NewCapturer hooks a capture onto each port of pcap (observe.pcap).
func NewCapturer(v *View, pcap []PortRef) *Capturer {
	c := &Capturer{}
	t := v.Topology
	seen := map[PortRef]bool{}
	feeds := map[*fabric.Port][]*capHalf{}
	var order []*fabric.Port // the feeding ports, in the order first seen
	number := func(p *fabric.Port) int {
		n := 0
		for id := 0; id < int(p.Node); id++ {
			n += len(v.Ports[id])
		}
		return n + p.Index
	}
	for _, ref := range pcap {
		if seen[ref] {
			continue
		}
		seen[ref] = true
		node := t.Nodes[ref.Node]
		name := strings.ReplaceAll(t.PortName(ref.Node, ref.Port), ":", "_")
		if node.Kind == fabric.Host && len(node.Ports) == 1 {
			name = strings.ReplaceAll(node.Name, "/", "_") // h0/2, a host's second port: h0_2.pcap
		}
		c.caps = append(c.caps, &reports.Capture{Name: name, Transport: v.Transport})
		p := v.Ports[ref.Node][ref.Port]
		var hs [2]*capHalf
		for i, end := range []*fabric.Port{p, p.Peer()} {
			hs[i] = &capHalf{order: number(end)}
			if _, ok := feeds[end]; !ok {
				order = append(order, end)
			}
			feeds[end] = append(feeds[end], hs[i])
		}
		c.halves = append(c.halves, hs)
	}
	for _, p := range order {
		hs, eng := feeds[p], p.Engine()
		p.OnTx = func(p *fabric.Port, pkt *fabric.Packet) { record(hs, eng.Now(), p, pkt) }
	}
	return c
}

// record keeps a copy of pkt, sent by p, in each of the captures hs. An
// InfiniBand flow-control packet is not kept: ibdump, whose captures
// lfsim's InfiniBand pcaps are, receives what it writes on a UD QP that
// the HCA makes its port's sniffer (IBV_FLOW_ATTR_SNIFFER, or the
// firmware's set_port_sniffer command; Mellanox/ibdump, ibdump.c), and
// the link layer consumes flow-control packets below any QP, so ibdump
// never shows them (tshark 4.0 also raises an exception on every such
// record, ERF type 25). fc_packets in summary.json counts them.
func record(hs []*capHalf, now sim.Time, p *fabric.Port, pkt *fabric.Packet) {
	if pkt.Kind == fabric.KindCredit {
		return
	}
	peer := p.Peer()
	for _, h := range hs {
		if len(h.frames) >= maxCaptureFrames {
			h.dropped++
			continue
		}
		f := reports.CapturedFrame{
			TimeNs: now.Nanoseconds(),
			TxNode: p.Node, TxPort: p.Index, RxNode: peer.Node, RxPort: peer.Index,
			Pkt: *pkt,
		}
		if pkt.INT != nil {
			h.ints = append(h.ints, *pkt.INT)
			f.Pkt.INT, f.INT = nil, int32(len(h.ints))
		}
		if pkt.Ext != nil { // the pool's too: a copy of its own
			x := *pkt.Ext
			f.Pkt.Ext = &x
		}
		h.frames = append(h.frames, f)
		h.at = append(h.at, now)
	}
}

// Captures are the frames captured, a capture per pcap file: each the
// first maxCaptureFrames of its two directions merged.
func (c *Capturer) Captures() []*reports.Capture {
	if c.merged {
		return c.caps
	}
	c.merged = true
	for i, cp := range c.caps {
		a, b := c.halves[i][0], c.halves[i][1]
		if b.order < a.order {
			a, b = b, a
		}
		cp.Dropped = a.dropped + b.dropped
		ia, ib := 0, 0
		for ia < len(a.frames) || ib < len(b.frames) {
			h, j := a, ia
			if ia == len(a.frames) || ib < len(b.frames) && b.at[ib] < a.at[ia] {
				h, j = b, ib
				ib++
			} else {
				ia++
			}
			if len(cp.Frames) == maxCaptureFrames {
				cp.Dropped++
				continue
			}
			f := h.frames[j]
			if f.INT > 0 {
				cp.INT = append(cp.INT, h.ints[f.INT-1])
				f.INT = int32(len(cp.INT))
			}
			cp.Frames = append(cp.Frames, f)
		}
		c.halves[i] = [2]*capHalf{}
	}
	return c.caps
}

// Warnings says which captures were cut short.
func (c *Capturer) Warnings() []string {
	var out []string
	for _, cp := range c.Captures() {
		if cp.Dropped > 0 {
			out = append(out, fmt.Sprintf("%s.pcap holds the first %d frames only; %d more were not kept", cp.Name, len(cp.Frames), cp.Dropped))
		}
	}
	return out
}
