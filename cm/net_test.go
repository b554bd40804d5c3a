package cm_test

import (
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// star makes hosts around one switch, each HCA with prof and a
// connection manager with the default profile that owns its QP1 (as the
// assembly gives every host one), and the switch with sp.
func star(t testing.TB, hosts int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile) (*sim.Engine, []*hca.HCA, *swtch.Switch) {
	t.Helper()
	topo, err := fabric.Star(hosts, fabric.LinkSpec{Rate: rate, Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	routes, _, err := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	var hcas []*hca.HCA
	prof.NewGSIAgent = cm.Agent(cm.DefaultProfile(), nil)
	for i, id := range topo.Hosts() {
		hcas = append(hcas, hca.New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0]))
	}
	sw := swtch.New(eng, net.Pool, 0, "s0", sp, net.Ports[0], routes, int64(fabric.RoCEv2Wire(fabric.OpWriteFirst, prof.MTU)))
	return eng, hcas, sw
}
