package hca

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestCNPPassesPausedACK: a CNP goes on its own priority (cnp_802p_prio,
// 6) so that a PAUSE of the data priority does not hold it back; queued
// behind an ACK on priority 3 while the switch pauses priority 3, it
// leaves at once, and the ACK waits for the RESUME.
func TestCNPPassesPausedACK(t *testing.T) {
	topo, err := fabric.Star(2, fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	routes, _, err := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	prof := DefaultProfile()
	var hs []*HCA
	for i, id := range topo.Hosts() {
		hs = append(hs, New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0]))
	}
	sw := swtch.New(eng, net.Pool, 0, "s0", swtch.DefaultProfile(), net.Ports[0], routes, int64(fabric.RoCEv2Wire(fabric.OpWriteFirst, prof.MTU)))
	h := hs[0]
	toH0, _ := topo.PortTo(0, topo.Hosts()[0])
	sw.Ports()[toH0].SendPause(3, fabric.MaxQuanta)
	eng.Run(5*sim.Microsecond, nil)
	if !h.port.Paused(3) {
		t.Fatal("the switch's PAUSE did not reach h0")
	}
	control := func(kind fabric.PacketKind, prio uint8) *fabric.Packet {
		p := h.pool.Get()
		p.Kind, p.Priority, p.Src, p.Dst, p.InPort = kind, prio, h.ID, hs[1].ID, -1
		p.Wire = int32(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))
		return p
	}
	ack, cnp := control(fabric.KindAck, 3), control(fabric.KindCNP, prof.CNPPriority)
	h.ctrl.Push(ack)
	h.ctrl.Push(cnp)
	h.port.Kick()
	eng.Run(10*sim.Microsecond, nil)
	if h.ctrl.Len != 1 || h.ctrl.Peek() != ack {
		t.Fatalf("after 5 us h0 still holds %d control packets; want the CNP gone and the ACK held", h.ctrl.Len)
	}
	sw.Ports()[toH0].SendPause(3, 0)
	eng.Run(20*sim.Microsecond, nil)
	if h.ctrl.Len != 0 {
		t.Errorf("the ACK did not leave after the RESUME")
	}
}
