// Package testnet builds the small network the model packages' tests and
// examples run their HCAs on, where the assembly would be too much: hosts
// around one switch, built from the models alone (fabric's topology and
// routes, an HCA per host, one switch). hca's, cm's and programs' tests
// and lab 1's skeleton share it, where each wrote the same twenty lines.
//
// It imports the models it wires (sim, fabric, switch, hca) and nothing
// above them; only tests and examples import it.
package testnet

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Net is a network Star built: its engine, its HCAs in host order (h0,
// h1, ...), its switch s0, its topology and its links (a test that loses
// frames on one reaches it through Links.LinkFrom).
type Net struct {
	Eng    *sim.Engine
	HCAs   []*hca.HCA
	Switch *swtch.Switch
	Topo   *fabric.Topology
	Links  *fabric.Network
}

// Star builds n hosts around one switch, every link at rate and delay,
// routed by ECMP on one engine: each host's HCA with prof, the switch
// with sp taking frames of up to maxFrame bytes (0 takes the largest
// RoCEv2 WRITE frame of prof's MTU, fabric.RoCEv2Wire).
func Star(n int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile, maxFrame int64) (*Net, error) {
	topo, err := fabric.Star(n, fabric.LinkSpec{Rate: rate, Delay: delay})
	if err != nil {
		return nil, err
	}
	routes, _, err := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	if err != nil {
		return nil, err
	}
	if maxFrame == 0 {
		maxFrame = int64(fabric.RoCEv2Wire(fabric.OpWriteFirst, prof.MTU))
	}
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	var hcas []*hca.HCA
	for i, id := range topo.Hosts() {
		hcas = append(hcas, hca.New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0]))
	}
	sw := swtch.New(eng, net.Pool, 0, "s0", sp, net.Ports[0], routes, maxFrame)
	return &Net{Eng: eng, HCAs: hcas, Switch: sw, Topo: topo, Links: net}, nil
}
