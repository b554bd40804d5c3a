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
type Capturer struct {
	eng  *sim.Engine
	caps []*reports.Capture
}

// NewCapturer hooks a capture onto each port of pcap (observe.pcap).
func NewCapturer(v *View, pcap []PortRef) *Capturer {
	c := &Capturer{eng: v.Eng}
	t := v.Topology
	seen := map[PortRef]bool{}
	feeds := map[*fabric.Port][]*reports.Capture{}
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
		cp := &reports.Capture{Name: name}
		c.caps = append(c.caps, cp)
		p := v.Ports[ref.Node][ref.Port]
		feeds[p] = append(feeds[p], cp)
		feeds[p.Peer()] = append(feeds[p.Peer()], cp)
	}
	for p, cs := range feeds {
		p.OnTx = func(p *fabric.Port, pkt *fabric.Packet) { c.record(cs, p, pkt) }
	}
	return c
}

func (c *Capturer) record(cs []*reports.Capture, p *fabric.Port, pkt *fabric.Packet) {
	peer := p.Peer()
	for _, cp := range cs {
		if len(cp.Frames) >= maxCaptureFrames {
			cp.Dropped++
			continue
		}
		f := reports.CapturedFrame{
			TimeNs: c.eng.Now().Nanoseconds(),
			TxNode: p.Node, TxPort: p.Index, RxNode: peer.Node, RxPort: peer.Index,
			Pkt: *pkt,
		}
		if pkt.INT != nil {
			cp.INT = append(cp.INT, *pkt.INT)
			f.Pkt.INT, f.INT = nil, int32(len(cp.INT))
		}
		cp.Frames = append(cp.Frames, f)
	}
}

// Captures are the frames captured, a capture per pcap file.
func (c *Capturer) Captures() []*reports.Capture { return c.caps }

// Warnings says which captures were cut short.
func (c *Capturer) Warnings() []string {
	var out []string
	for _, cp := range c.caps {
		if cp.Dropped > 0 {
			out = append(out, fmt.Sprintf("%s.pcap holds the first %d frames only; %d more were not kept", cp.Name, len(cp.Frames), cp.Dropped))
		}
	}
	return out
}
