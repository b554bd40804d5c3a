package programs_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/internal/testnet"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// hosts builds n hosts around one switch with every link at rate and
// delay, the switch taking frames of up to maxFrame bytes (testnet.Star),
// and returns the engine, the HCAs, the switch and the topology.
func hosts(n int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile, maxFrame int64) (*sim.Engine, []*hca.HCA, *swtch.Switch, *fabric.Topology, error) {
	net, err := testnet.Star(n, rate, delay, prof, sp, maxFrame)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return net.Eng, net.HCAs, net.Switch, net.Topo, nil
}

// star is hosts for a test, which fails on an error; the switch takes
// the largest RoCEv2 WRITE frame of prof's MTU (as hca's tests build it).
func star(t testing.TB, n int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile) (*sim.Engine, []*hca.HCA, *swtch.Switch) {
	t.Helper()
	eng, nic, sw, _, err := hosts(n, rate, delay, prof, sp, int64(fabric.RoCEv2Wire(fabric.OpWriteFirst, prof.MTU)))
	if err != nil {
		t.Fatal(err)
	}
	return eng, nic, sw
}

// exampleHosts is n hosts for an example: 100 Gb/s links of 1 us, the
// default NIC and switch profiles, and multicast group 0 at the switch
// with every host in its tree (Example_mckey).
func exampleHosts(n int) (*sim.Engine, []*hca.HCA) {
	prof := hca.DefaultProfile()
	eng, nic, sw, topo, err := hosts(n, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile(), fabric.MaxRoCEv2Frame(prof.MTU))
	if err != nil {
		panic(err)
	}
	ports, err := fabric.MulticastTree(topo, topo.Hosts()[0], topo.Hosts())
	if err != nil {
		panic(err)
	}
	sw.SetMulticast(fabric.MulticastGroup(0), ports[0])
	return eng, nic
}
