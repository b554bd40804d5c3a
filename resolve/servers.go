package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// GPU servers (issue 48): a server holds G GPUs, each a host with its
// own NIC (as on NVIDIA DGX/HGX systems), and a scale-up domain
// (NVLink through NVSwitch) that joins its GPUs beside the network.
// A rank of a collective is a GPU, so a host of the topology.

// Server is one GPU server of the topology.
type Server struct {
	// Name is the server's name, "s0" for the rail-optimized generator's
	// first server; its GPUs' hosts are named Name+"/g"+G.
	Name string
	// GPUs are the hosts of GPU 0..G-1, in GPU order; each has its own
	// NIC (the host's port on the network).
	GPUs []fabric.NodeID
	// ScaleUp is the server's scale-up domain.
	ScaleUp ScaleUp
}

// ScaleUp is a server's scale-up domain: a non-blocking fabric (an
// NVSwitch) between its GPUs, of its own rate and latency.
type ScaleUp struct {
	// Rate is each GPU's bandwidth into the domain, per direction, in
	// bits per second.
	Rate fabric.Rate
	// Delay is one transfer's latency across the domain, GPU to GPU.
	Delay sim.Time
}

// ServerOf returns the server and GPU index of host h, and whether h is
// a GPU of a server.
func (s *Scenario) ServerOf(h fabric.NodeID) (server, gpu int, ok bool) {
	if int(h) < 0 || int(h) >= len(s.serverOf) {
		return 0, 0, false
	}
	e := s.serverOf[h]
	if e.server < 0 {
		return 0, 0, false
	}
	return int(e.server), int(e.gpu), true
}

// SetServers records the topology's GPU servers and indexes them by
// host, for ServerOf. nodes is the topology's node count.
func (s *Scenario) SetServers(servers []Server, nodes int) {
	s.Servers = servers
	s.serverOf = make([]serverSlot, nodes)
	for i := range s.serverOf {
		s.serverOf[i] = serverSlot{server: -1}
	}
	for si, sv := range servers {
		for g, h := range sv.GPUs {
			s.serverOf[h] = serverSlot{server: int32(si), gpu: int32(g)}
		}
	}
}

// serverSlot is a host's place among the servers; server -1: none.
type serverSlot struct{ server, gpu int32 }
