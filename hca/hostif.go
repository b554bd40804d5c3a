package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// HostInterface is an adapter's host interface (PCIe), shared by the
// HCAs of its ports (a VPI adapter's PCI functions, resolve/vpi.go):
// every payload byte a port sends (a WRITE's or SEND's data, a READ
// response's) is read from host memory across it at Rate, so two busy
// ports share it as on a real card. It models the transmit direction, the
// DMA reads; PCIe is full duplex, and the receive direction's writes are
// left to hca.rx_rate.
//
// The interface is one server that reads packets' payloads one after
// another, in the order the ports take the packets: a packet's read
// starts when the reads before it are done (or at once, the interface
// idle), and takes its payload over Rate. A port sends a packet when it
// takes it, its read running beside its transmission (the adapter
// streams the payload it reads out, or read it ahead while the port's
// previous packet went), and it takes its next data packet once that
// read is done. So a port is held only as long as the interface's rate
// requires: when the interface is at least as fast as the ports together,
// each port's read is done before its link frees and every port runs at
// line rate; when it is slower, the interface is never idle while a
// port waits, and the ports together move payload at Rate, in the turns
// the order of their requests gives. Packets without payload (READ
// requests, and ACKs, NAKs and CNPs) read nothing and wait for no read
// but their own port's last.
//
// Only the ports put behind one (ShareHostInterface) read it: an HCA
// without one sends as before, with no work added to its transmit path.
type HostInterface struct {
	// Rate is hca.host_bandwidth: payload bytes per second across the
	// interface.
	Rate  fabric.Rate
	eng   *sim.Engine
	free  sim.Time // when the reads so far are done
	ports []hostIFPort
}

// hostIFPort is one port behind a host interface.
type hostIFPort struct {
	port *fabric.Port
	done sim.Time // when its last packet's read is done
	wake bool     // a kick of the port is scheduled at done
}

// NewHostInterface returns a host interface of rate on eng, the engine
// of the ports that share it.
func NewHostInterface(eng *sim.Engine, rate fabric.Rate) *HostInterface {
	return &HostInterface{Rate: rate, eng: eng}
}

// ShareHostInterface puts h's port behind hi: a data packet leaves only
// once hi has read the packets its port sent before it.
func (h *HCA) ShareHostInterface(hi *HostInterface) {
	o := &hostIFOwner{HCA: h, hi: hi}
	h.port.SetOwner(o)
	hi.ports = append(hi.ports, hostIFPort{port: h.port})
	if p2 := h.Port2(); p2 != nil { // a dual-port HCA's second port (dualport.go)
		p2.SetOwner(o)
		hi.ports = append(hi.ports, hostIFPort{port: p2})
	}
}

// hostIFOwner is an HCA whose port waits for its host interface: the
// HCA's own NextPacket with the port's last read done before its data.
type hostIFOwner struct {
	*HCA
	hi *HostInterface
}

// NextPacket sends a control packet at once, and a data packet once the
// host interface has read the port's last one, queueing the packet's
// read behind those taken before it (its payload at Rate); otherwise nil,
// with a kick of the port scheduled for when its read is done.
func (o *hostIFOwner) NextPacket(port *fabric.Port) *fabric.Packet {
	if p := o.nextControl(port); p != nil {
		return o.encap(o.sendControl(p))
	}
	hi := o.hi
	i := 0
	for hi.ports[i].port != port {
		i++
	}
	q := &hi.ports[i]
	now := hi.eng.Now()
	if now < q.done {
		if !q.wake {
			q.wake = true
			hi.eng.Schedule(q.done, hi, 0, int64(i), nil)
		}
		return nil
	}
	p := o.nextData(port)
	if p != nil && p.Payload > 0 {
		hi.free = max(hi.free, now) + fabric.SerializationTime(int64(p.Payload), hi.Rate)
		q.done = hi.free
	}
	return p
}

// HandleEvent kicks port ev.N once its last read is done.
func (hi *HostInterface) HandleEvent(ev *sim.Event) {
	q := &hi.ports[ev.N]
	q.wake = false
	q.port.Kick()
}
