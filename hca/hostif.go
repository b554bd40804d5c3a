package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// HostInterface is an adapter's host interface (PCIe), shared by the
// HCAs of its ports (a VPI adapter's PCI functions, resolve/vpi.go):
// every payload byte a port sends (a WRITE's or SEND's data, a READ
// response's) is read from host memory across it, one packet after
// another at Rate, so two busy ports share it as on a real card. Control
// packets (ACKs, NAKs, CNPs) carry no payload and pass. It models the
// transmit direction, the DMA reads; PCIe is full duplex, and the
// receive direction's writes are left to hca.rx_rate.
//
// Only the ports put behind one (ShareHostInterface) read it: an HCA
// without one sends as before, with no work added to its transmit path.
type HostInterface struct {
	// Rate is hca.host_bandwidth: payload bytes per second across the
	// interface.
	Rate  fabric.Rate
	eng   *sim.Engine
	free  sim.Time // when the reads so far are done
	ports []*fabric.Port
	wake  bool // a kick of the ports is scheduled at free
	turn  int  // the port kicked first when the interface is free: the one after the last to send
}

// NewHostInterface returns a host interface of rate on eng, the engine
// of the ports that share it.
func NewHostInterface(eng *sim.Engine, rate fabric.Rate) *HostInterface {
	return &HostInterface{Rate: rate, eng: eng}
}

// ShareHostInterface puts h's port behind hi: a data packet leaves only
// once hi has read the packets before it.
func (h *HCA) ShareHostInterface(hi *HostInterface) {
	o := &hostIFOwner{HCA: h, hi: hi}
	h.port.SetOwner(o)
	hi.ports = append(hi.ports, h.port)
	if p2 := h.Port2(); p2 != nil { // a dual-port HCA's second port (dualport.go)
		p2.SetOwner(o)
		hi.ports = append(hi.ports, p2)
	}
}

// hostIFOwner is an HCA whose port waits for its host interface: the
// HCA's own NextPacket with the interface's turn before its data.
type hostIFOwner struct {
	*HCA
	hi *HostInterface
}

// NextPacket sends a control packet at once, and a data packet when the
// host interface has read those before it, holding the interface for
// its payload at Rate; otherwise nil, with a kick of the ports scheduled
// for when the interface is free.
func (o *hostIFOwner) NextPacket(port *fabric.Port) *fabric.Packet {
	if p := o.nextControl(port); p != nil {
		return o.encap(o.sendControl(p))
	}
	hi := o.hi
	if now := hi.eng.Now(); now < hi.free {
		if !hi.wake {
			hi.wake = true
			hi.eng.Schedule(hi.free, hi, 0, 0, nil)
		}
		return nil
	}
	p := o.nextData(port)
	if p != nil && p.Payload > 0 {
		hi.free = hi.eng.Now() + fabric.SerializationTime(int64(p.Payload), hi.Rate)
		for i, q := range hi.ports {
			if q == port {
				hi.turn = (i + 1) % len(hi.ports)
			}
		}
	}
	return p
}

// HandleEvent kicks the ports once the interface is free, in round
// robin from the port after the last to send, so that a port never
// waits behind the other for good.
func (hi *HostInterface) HandleEvent(*sim.Event) {
	hi.wake = false
	for i := range hi.ports {
		hi.ports[(hi.turn+i)%len(hi.ports)].Kick()
	}
}
