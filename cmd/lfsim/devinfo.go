package main

import (
	"fmt"
	"io"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
)

// devinfoCmd is `lfsim devinfo [SCENARIO] [HOST]`: what ibv_devinfo -v
// prints for the scenario's HCAs (every host's, or HOST's), from the
// values the model runs with. devicesCmd is `lfsim devices [SCENARIO]`:
// what ibv_devices prints. SCENARIO is a file or an example's name
// (default the default example).
func devinfoCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 2 {
		fmt.Fprintln(stderr, "lfsim devinfo takes a scenario (a file or an example's name) and a host, both optional")
		return exitUsage
	}
	sc, code := devScenario("devinfo", args, stderr)
	if sc == nil {
		return code
	}
	hosts := sc.Topology.Hosts()
	if len(args) == 2 {
		h, ok := sc.Topology.Lookup(args[1])
		if !ok || sc.Topology.Nodes[h].Kind != fabric.Host {
			fmt.Fprintf(stderr, "lfsim devinfo: %s has no host %s%s\n", sc.Name, scenario.Show(args[1]), scenario.DidYouMean(args[1], hostNames(sc)))
			return exitUsage
		}
		hosts = []fabric.NodeID{sc.Topology.Owner(h)} // a second port's HCA is its host's
	}
	for _, h := range hosts {
		if len(hosts) > 1 {
			fmt.Fprintf(stdout, "# %s\n", sc.Topology.Nodes[h].Name)
		}
		fmt.Fprint(stdout, sc.DevInfo(h, true))
	}
	return exitOK
}

func devicesCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintln(stderr, "lfsim devices takes a scenario (a file or an example's name), optional")
		return exitUsage
	}
	sc, code := devScenario("devices", args, stderr)
	if sc == nil {
		return code
	}
	fmt.Fprint(stdout, sc.Devices())
	return exitOK
}

// devScenario loads args[0] (default the default example) for devinfo
// or devices.
func devScenario(cmd string, args []string, stderr io.Writer) (*resolve.Scenario, int) {
	name := defaultScenario()
	if len(args) > 0 {
		name = args[0]
	}
	sc, err := resolve.LoadNamed(name)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim %s: %v\n", cmd, err)
		return nil, exitFailed
	}
	return sc, exitOK
}

func hostNames(sc *resolve.Scenario) []string {
	var out []string
	for _, h := range sc.Topology.Hosts() {
		out = append(out, sc.Topology.Nodes[h].Name)
	}
	return out
}
