package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestIWARPConnectCMCloses: flows with connect: cm on iWARP close as
// Linux's iw_cm and TCP close them: the source's rdma_disconnect sends a
// FIN and its QP is destroyed, its connection living on (hca's
// iwDestroyed); the destination's NIC answers with its own FIN
// (FIN-ACK, iw_cxgb4's peer_close) and rdma_cm raises DISCONNECTED there,
// on which the responder closes (destroys its QP); the source's last ACK
// ends it. h0's capture of three connections shows, for each (by its
// source port), one FIN from h0, one FIN-ACK from h1 and one last ACK,
// no RST; every responder closed. Before the fix the
// source forgot its connection as its QP went and the responder closed
// out of band before the FIN came: h0 sent FIN and nothing came back.
func TestIWARPConnectCMCloses(t *testing.T) {
	n, r := runSource(t, "c.yaml", `stop: {at: 1s}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp}
observe: {pcap: [h0]}
traffic:
  - flow: {from: h0, to: h1, size: 64KiB, connect: cm}
  - flow: {from: h0, to: h1, size: 64KiB, connect: cm, start: 50us}
  - flow: {from: h0, to: h1, size: 16KiB, connect: cm, start: 100us, op: send}
`)
	h0, _ := n.Scenario.Topology.Lookup("h0")
	type count struct{ fin, finAck, lastAck, rst int }
	conns := map[uint16]*count{} // by h0's port
	for _, f := range r.Captures[0].Frames {
		p := &f.Pkt
		if p.Kind != fabric.KindSetup {
			continue
		}
		port := p.Flow.SrcPort
		if p.Src != h0 {
			port = p.Flow.DstPort
		}
		c := conns[port]
		if c == nil {
			c = &count{}
			conns[port] = c
		}
		switch s := p.Step(); {
		case s == fabric.StepFIN && p.Src == h0:
			c.fin++
		case s == fabric.StepFINACK && p.Src != h0:
			c.finAck++
		case s == fabric.StepLastACK && p.Src == h0:
			c.lastAck++
		case s == fabric.StepRST:
			c.rst++
		}
	}
	if len(conns) != 3 {
		t.Fatalf("%d connections in h0's capture; want 3", len(conns))
	}
	for port, c := range conns {
		if *c != (count{1, 1, 1, 0}) {
			t.Errorf("connection from port %d: %d FIN from h0, %d FIN-ACK from h1, %d last ACK, %d RST; want 1, 1, 1, 0", port, c.fin, c.finAck, c.lastAck, c.rst)
		}
	}
	for _, fr := range n.Flows {
		if !fr.responderClosed || fr.Live != nil {
			t.Errorf("flow %d: responder closed %v, live %v; want closed on DISCONNECTED", fr.Flow.ID, fr.responderClosed, fr.Live)
		}
	}
	for _, f := range r.Flows {
		if f.Status != "success" {
			t.Errorf("flow %d: %s", f.ID, f.Status)
		}
	}
}
