package cm_test

import (
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/internal/testnet"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// star makes hosts around one switch (testnet.Star), each HCA with prof
// and a connection manager with the default profile that owns its QP1
// (as the assembly gives every host one), and the switch with sp.
func star(t testing.TB, hosts int, rate fabric.Rate, delay sim.Time, prof hca.Profile, sp swtch.Profile) (*sim.Engine, []*hca.HCA, *swtch.Switch) {
	t.Helper()
	prof.NewGSIAgent = cm.Agent(cm.DefaultProfile(), nil)
	n, err := testnet.Star(hosts, rate, delay, prof, sp, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n.Eng, n.HCAs, n.Switch
}
