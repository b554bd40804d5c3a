package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lfsim/lfsim/fabric"
)

// ibsimCmd is `lfsim ibsim [SCENARIO] DIR`: the scenario's InfiniBand
// fabric as ibsim simulates it, so that OpenSM's own tables can be set
// beside lfts.txt: DIR/net (ibsim's net file, fabric.WriteIBSimNet) and
// DIR/guid2lid (OpenSM's persistent LIDs, lfsim's, WriteGUID2LID). It
// prints the commands that run OpenSM on it and read its tables.
func ibsimCmd(args []string, stdout, stderr io.Writer) int {
	const help = "lfsim ibsim [SCENARIO] DIR: write the scenario's InfiniBand fabric to DIR/net (ibsim's net file) and DIR/guid2lid (OpenSM's persistent LIDs, lfsim's)"
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprintln(stdout, help)
			return exitOK
		}
		if len(a) > 1 && a[0] == '-' {
			fmt.Fprintf(stderr, "lfsim ibsim: unknown flag %s\n%s\n", a, help)
			return exitUsage
		}
	}
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(stderr, "lfsim ibsim takes a scenario (a file or an example's name, optional) and the directory to write ibsim's net file and OpenSM's guid2lid to")
		return exitUsage
	}
	dir := args[len(args)-1]
	sc, code := devScenario("ibsim", args[:len(args)-1], stderr)
	if sc == nil {
		return code
	}
	if sc.LinkLayer != fabric.InfiniBand && !sc.Mixed() {
		fmt.Fprintf(stderr, "lfsim ibsim: %s has no InfiniBand switches (switch.link_layer %s); ibsim simulates InfiniBand's subnet management\n", sc.Name, sc.LinkLayer)
		return exitFailed
	}
	lids := sc.LIDs()
	var net, g2l bytes.Buffer
	err := fabric.WriteIBSimNet(&net, sc.Topology, lids)
	if err == nil {
		err = fabric.WriteGUID2LID(&g2l, sc.Topology, lids)
	}
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "net"), net.Bytes(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "guid2lid"), g2l.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lfsim ibsim: %s: %v\n", sc.Name, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, `wrote %s and %s. Then, in %s:
  ibsim -n -s net &
  OSM_CACHE_DIR=$PWD ibsim-run opensm -o -f $PWD/osm.log -l %d -R ENGINE
  ibsim-run ibroute SWITCH-LID     # each switch; compare with lfts.txt
`, filepath.Join(dir, "net"), filepath.Join(dir, "guid2lid"), dir, lids.LMC())
	return exitOK
}
