package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// lftKey is one forwarding-table entry: a switch's LID and a
// destination LID.
type lftKey struct{ sw, dst uint16 }

// openSMRun is what OpenSM made of a fabric on ibsim: its tables, read
// back from the switches with ibroute, and its log.
type openSMRun struct {
	lft   map[lftKey]int
	names map[uint16]string // the node each LID names in ibroute's dumps
	log   string
}

// runOpenSM runs OpenSM once with the routing engine (and its extra
// flags) on topology tp as ibsim simulates it, with lfsim's LIDs
// (guid2lid), and reads every switch's linear forwarding table with
// ibroute.
func runOpenSM(t *testing.T, tools map[string]string, tp *fabric.Topology, lids *fabric.LIDs, engine string, extra ...string) openSMRun {
	t.Helper()
	dir := t.TempDir()
	var net, g2l bytes.Buffer
	if err := fabric.WriteIBSimNet(&net, tp, lids); err != nil {
		t.Fatal(err)
	}
	if err := fabric.WriteGUID2LID(&g2l, tp, lids); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("net", net.Bytes())
	write("guid2lid", g2l.Bytes())
	// Each run its own ibsim socket (abstract names), so that runs do
	// not meet.
	env := append(os.Environ(), "IBSIM_SOCKNAME=lfsim"+strconv.Itoa(os.Getpid())+filepath.Base(dir),
		"OSM_CACHE_DIR="+dir, "OSM_TMP_DIR="+dir)
	sim := exec.Command(tools["ibsim"], "-n", "-s", "net")
	sim.Dir, sim.Env = dir, env
	var simOut bytes.Buffer
	sim.Stdout, sim.Stderr = &simOut, &simOut
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = sim.Process.Kill()
		_ = sim.Wait()
	}()
	run := func(args ...string) []byte {
		var out bytes.Buffer
		var err error
		for try := 0; try < 50; try++ { // ibsim may not listen yet
			out.Reset()
			c := exec.Command(tools["ibsim-run"], args...)
			c.Dir, c.Env = dir, env
			c.Stdout, c.Stderr = &out, &out
			if err = c.Run(); err == nil {
				return out.Bytes()
			}
			if !strings.Contains(out.String(), "sim_connect") && !strings.Contains(out.String(), "can't connect") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("ibsim-run %s: %v\n%s\nibsim: %s", strings.Join(args, " "), err, out.Bytes(), simOut.Bytes())
		return nil
	}
	args := []string{tools["opensm"], "-o", "-f", filepath.Join(dir, "osm.log"), "-d", "0", "-l", strconv.Itoa(lids.LMC())}
	if engine != "minhop" {
		args = append(args, "-R", engine)
	}
	run(append(args, extra...)...)
	logText, _ := os.ReadFile(filepath.Join(dir, "osm.log"))
	res := openSMRun{lft: map[lftKey]int{}, names: map[uint16]string{}, log: string(logText)}
	// "0xLID PORT : (Channel Adapter portguid 0xGUID: 'NAME')", or for
	// an LMC's other LIDs "(path #2 out of 2: portguid 0xGUID)".
	entry := regexp.MustCompile(`(?m)^0x([0-9a-f]+) (\d+) : \((?:[^'\n]*'([^'\n]*)')?`)
	for id, n := range tp.Nodes {
		if n.Kind != fabric.Switch {
			continue
		}
		sw := lids.Of(fabric.NodeID(id))
		out := run(tools["ibroute"], strconv.Itoa(int(sw)))
		for _, m := range entry.FindAllStringSubmatch(string(out), -1) {
			dst, _ := strconv.ParseUint(m[1], 16, 16)
			port, _ := strconv.Atoi(m[2])
			res.lft[lftKey{sw, uint16(dst)}] = port
			if m[3] != "" {
				res.names[uint16(dst)] = m[3]
			}
		}
	}
	return res
}

// lfsimTables is lfsim's forwarding tables for tp by algo, read from its
// lfts.txt, as port numbers by (switch LID, destination LID).
func lfsimTables(t *testing.T, tp *fabric.Topology, algo fabric.RoutingAlgo, lids *fabric.LIDs) map[lftKey]int {
	t.Helper()
	r, _, err := fabric.ComputeRoutesLMC(tp, algo, nil, lids.LMC())
	if err != nil {
		t.Fatal(err)
	}
	out := map[lftKey]int{}
	head := regexp.MustCompile(`^Unicast lids \[0-\d+\] of switch Lid (\d+) `)
	entry := regexp.MustCompile(`^0x([0-9a-f]+) (\d+) # Channel Adapter`)
	var sw uint64
	for _, l := range strings.Split(string(fabric.LFTDump(tp, r, lids)), "\n") {
		if m := head.FindStringSubmatch(l); m != nil {
			sw, _ = strconv.ParseUint(m[1], 10, 16)
		} else if m := entry.FindStringSubmatch(l); m != nil {
			dst, _ := strconv.ParseUint(m[1], 16, 16)
			port, _ := strconv.Atoi(m[2])
			out[lftKey{uint16(sw), uint16(dst)}] = port
		}
	}
	return out
}

// agreement counts the entries of ours that OpenSM's tables hold too,
// and describes the first few that differ.
func agreement(ours, osm map[lftKey]int) (same int, first []string) {
	for k, p := range ours {
		if osm[k] == p {
			same++
		} else if len(first) < 100 {
			first = append(first, fmt.Sprintf("switch LID %d to LID %d: lfsim port %d, OpenSM %d", k.sw, k.dst, p, osm[k]))
		}
	}
	return same, first
}

// TestOpenSMTablesOnIBSim: OpenSM 3.3 run on ibsim, with lfsim's fabric
// and LIDs (fabric.WriteIBSimNet, WriteGUID2LID), fills every switch's
// forwarding table as lfsim's lfts.txt does, entry by entry over (switch,
// host LID), for minhop, updn, ftree, lash and dfsssp on a k=4 fat tree,
// a ring of 6 switches with 2 hosts each, a leaf-spine of 4 leaves, 2
// spines and 3 hosts a leaf, and the same with a fourth host on its first
// leaf; minhop and updn also with LMC 1 on the fat tree; with
// LFSIM_SLOW=1 also a k=6 fat tree. OpenSM gives every host lfsim's LID
// (which LMC 1 proves: at LMC 0 OpenSM's own numbering is lfsim's). On the ring OpenSM's updn
// finds no root and its ftree no fat tree: both route minhop (the log
// says why, the test checks, and lfsim's minhop is what they route);
// lfsim's updn there is OpenSM's given the root s0 (-a), which the test
// also runs. docs/RELIABILITY.md has the numbers and the reasons.
func TestOpenSMTablesOnIBSim(t *testing.T) {
	tools := map[string]string{}
	for _, n := range []string{"ibsim", "ibsim-run", "opensm", "ibroute"} {
		tools[n] = needTool(t, n)
	}
	link := fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}
	fat, err := fabric.FatTree(4, link)
	if err != nil {
		t.Fatal(err)
	}
	fat6, err := fabric.FatTree(6, link)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := fabric.Ring(6, 2, link)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := fabric.LeafSpine(4, 2, 3, link, link)
	if err != nil {
		t.Fatal(err)
	}
	// A leaf-spine whose first leaf has a fourth host: ftree routes a
	// dummy destination on each of the others (max_cn_per_leaf).
	uneven, err := fabric.LeafSpine(4, 2, 3, link, link)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := uneven.AddNode("h12", fabric.Host)
	if err != nil {
		t.Fatal(err)
	}
	uneven.Connect(uneven.Nodes[uneven.Hosts()[0]].Ports[0].Peer, extra, link)
	for _, c := range []struct {
		fabric string
		tp     *fabric.Topology
		algo   fabric.RoutingAlgo
		same   int                // entries that agree (of 320 or 72)
		log    string             // what OpenSM's log must say, if anything
		asIf   fabric.RoutingAlgo // lfsim's engine that OpenSM's tables equal, when not algo's
		root   string             // the switch OpenSM is given for updn's root (-a), if any
		slow   bool               // only with LFSIM_SLOW=1 (the k=6 fat tree's 45 switches: some 35 s)
		lmc    int                // subnet_manager.lmc, OpenSM's -l
	}{
		{"fattree-k4", fat, fabric.RoutingMinHop, 320, "", "", "", false, 0},
		{"fattree-k4", fat, fabric.RoutingUpDn, 320, "", "", "", false, 0},
		{"fattree-k4", fat, fabric.RoutingFtree, 320, "", "", "", false, 0},
		{"fattree-k4", fat, fabric.RoutingLASH, 320, "", "", "", false, 0},
		{"fattree-k4", fat, fabric.RoutingDFSSSP, 320, "", "", "", false, 0},
		// LMC 1: two LIDs a host, OpenSM's numbering no longer the
		// order it meets ports in; minhop and updn spread a host's
		// LIDs as lfsim does, lash keeps them on one path, dfsssp
		// routes each LID in a round of its own (ftree:
		// docs/RELIABILITY.md).
		{"fattree-k4", fat, fabric.RoutingMinHop, 640, "", "", "", false, 1},
		{"fattree-k4", fat, fabric.RoutingUpDn, 640, "", "", "", false, 1},
		{"fattree-k4", fat, fabric.RoutingLASH, 640, "", "", "", false, 1},
		{"fattree-k4", fat, fabric.RoutingDFSSSP, 640, "", "", "", false, 1},
		// dfsssp's rounds per LID on more than the one fabric they were
		// written against, and at LMC 2 (review J).
		{"fattree-k4", fat, fabric.RoutingDFSSSP, 1280, "", "", "", false, 2},
		{"ring-6", ring, fabric.RoutingDFSSSP, 144, "", "", "", false, 1},
		{"ring-6", ring, fabric.RoutingDFSSSP, 288, "", "", "", false, 2},
		{"leafspine-4x2", ls, fabric.RoutingDFSSSP, 144, "", "", "", false, 1},
		{"fattree-k6", fat6, fabric.RoutingMinHop, 2430, "", "", "", true, 0},
		{"fattree-k6", fat6, fabric.RoutingUpDn, 2430, "", "", "", true, 0},
		{"fattree-k6", fat6, fabric.RoutingFtree, 2430, "", "", "", true, 0},
		{"fattree-k6", fat6, fabric.RoutingLASH, 2430, "", "", "", true, 0},
		{"fattree-k6", fat6, fabric.RoutingDFSSSP, 2430, "", "", "", true, 0},
		{"ring-6", ring, fabric.RoutingMinHop, 72, "", "", "", false, 0},
		{"ring-6", ring, fabric.RoutingUpDn, 63, "disabling UPDN algorithm, no root nodes were found", fabric.RoutingMinHop, "", false, 0},
		{"ring-6", ring, fabric.RoutingUpDn, 72, "", "", "s0", false, 0},
		{"ring-6", ring, fabric.RoutingFtree, 72, "ERR AB2B: Found more than one root on fabric with maximum rank 0", fabric.RoutingMinHop, "", false, 0},
		{"ring-6", ring, fabric.RoutingLASH, 72, "", "", "", false, 0},
		{"ring-6", ring, fabric.RoutingDFSSSP, 72, "", "", "", false, 0},
		{"leafspine-4x2", ls, fabric.RoutingMinHop, 72, "", "", "", false, 0},
		{"leafspine-4x2", ls, fabric.RoutingUpDn, 72, "", "", "", false, 0},
		{"leafspine-4x2", ls, fabric.RoutingFtree, 72, "", "", "", false, 0},
		{"leafspine-4x2", ls, fabric.RoutingLASH, 72, "", "", "", false, 0},
		{"leafspine-4x2", ls, fabric.RoutingDFSSSP, 72, "", "", "", false, 0},
		{"leafspine-uneven", uneven, fabric.RoutingMinHop, 78, "", "", "", false, 0},
		{"leafspine-uneven", uneven, fabric.RoutingUpDn, 78, "", "", "", false, 0},
		{"leafspine-uneven", uneven, fabric.RoutingFtree, 78, "", "", "", false, 0},
		{"leafspine-uneven", uneven, fabric.RoutingLASH, 78, "", "", "", false, 0},
		{"leafspine-uneven", uneven, fabric.RoutingDFSSSP, 78, "", "", "", false, 0},
	} {
		name := fmt.Sprintf("%s/%s", c.fabric, c.algo)
		if c.root != "" {
			name += "-root-" + c.root
		}
		if c.lmc > 0 {
			name += fmt.Sprintf("-lmc%d", c.lmc)
		}
		t.Run(name, func(t *testing.T) {
			if c.slow && os.Getenv("LFSIM_SLOW") != "1" {
				t.Skip("the k=6 fat tree takes some 35 s; LFSIM_SLOW=1 runs it")
			}
			lids := fabric.AssignLIDsLMC(c.tp, c.lmc)
			var extra []string
			if c.root != "" {
				id, ok := c.tp.Lookup(c.root)
				if !ok {
					t.Fatalf("no switch %s", c.root)
				}
				file := filepath.Join(t.TempDir(), "roots")
				if err := os.WriteFile(file, []byte(fmt.Sprintf("0x%016x\n", fabric.GUID(id))), 0o644); err != nil {
					t.Fatal(err)
				}
				extra = []string{"-a", file}
			}
			osm := runOpenSM(t, tools, c.tp, lids, string(c.algo), extra...)
			ours := lfsimTables(t, c.tp, c.algo, lids)
			// OpenSM's LIDs are lfsim's (guid2lid), not a coincidence
			// of the order OpenSM numbers ports in.
			for id, n := range c.tp.Nodes {
				if lid := lids.Of(fabric.NodeID(id)); n.Kind == fabric.Host && osm.names[lid] != n.Name {
					t.Errorf("OpenSM gave LID %d to %q; lfsim gives it %s", lid, osm.names[lid], n.Name)
				}
			}
			if len(osm.lft) < len(ours) {
				t.Fatalf("ibroute read %d entries from OpenSM's switches; lfsim has %d", len(osm.lft), len(ours))
			}
			if dir := os.Getenv("LFSIM_OPENSM_RECORD"); dir != "" {
				recordOpenSM(t, filepath.Join(dir, strings.ReplaceAll(name, "/", "-")+".txt"), osm.lft, ours)
			}
			same, first := agreement(ours, osm.lft)
			t.Logf("%s %s: %d of %d entries agree", c.fabric, c.algo, same, len(ours))
			if same != c.same {
				t.Errorf("%d of %d entries agree, want %d (docs/RELIABILITY.md); differing: \n%s", same, len(ours), c.same, strings.Join(first, "\n"))
			}
			if c.log != "" && !strings.Contains(osm.log, c.log) {
				t.Errorf("OpenSM's log does not say %q", c.log)
			}
			if c.asIf != "" {
				if same, first := agreement(lfsimTables(t, c.tp, c.asIf, lids), osm.lft); same != len(ours) {
					t.Errorf("OpenSM's %s tables agree with lfsim's %s on %d of %d entries, want all:\n%s", c.algo, c.asIf, same, len(ours), strings.Join(first, "\n"))
				}
			}
		})
	}
}

// recordOpenSM writes OpenSM's entries for the destinations lfsim's
// tables hold (the hosts') to file, a line "SWITCH-LID DESTINATION-LID
// PORT" each in LID order, for fabric's tests
// (fabric/testdata/opensm, TestOpenSMRecordedTables), which hold lfsim's
// tables to them where no OpenSM is installed.
func recordOpenSM(t *testing.T, file string, lft, ours map[lftKey]int) {
	keys := make([]lftKey, 0, len(ours))
	for k := range ours {
		if _, ok := lft[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].sw < keys[j].sw || keys[i].sw == keys[j].sw && keys[i].dst < keys[j].dst
	})
	var b strings.Builder
	fmt.Fprintf(&b, "# OpenSM 3.3's forwarding tables on ibsim (ibroute), recorded by TestOpenSMTablesOnIBSim: switch LID, destination LID, port\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%d %d %d\n", k.sw, k.dst, lft[k])
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIBSimCommand: lfsim ibsim writes an InfiniBand example's fabric as
// ibsim's net file (a record per node: 7 switches and 7 hosts for
// ib-credit-loop's ring) and guid2lid (a line per port with a LID), and
// refuses an Ethernet scenario and a flag it does not know.
func TestIBSimCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := lfsim(t, "ibsim", "ib-credit-loop", dir); code != exitOK || !strings.Contains(stdout, "ibsim-run opensm") {
		t.Fatalf("lfsim ibsim: exit %d\n%s%s", code, stdout, stderr)
	}
	net, err := os.ReadFile(filepath.Join(dir, "net"))
	if err != nil {
		t.Fatal(err)
	}
	g2l, err := os.ReadFile(filepath.Join(dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	if sw, ca, lines := strings.Count(string(net), "\nSwitch\t"), strings.Count(string(net), "\nHca\t"), strings.Count(string(g2l), "\n\n"); sw != 7 || ca != 7 || lines != 14 {
		t.Errorf("net has %d switches and %d CAs, guid2lid %d lines; want 7, 7 and 14", sw, ca, lines)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ibsim", "incast-8to1", dir}, exitFailed, "has no InfiniBand switches"},
		{[]string{"ibsim", "--lmc", dir}, exitUsage, "unknown flag --lmc"},
		{[]string{"ibsim"}, exitUsage, "takes a scenario"},
	} {
		if code, _, stderr := lfsim(t, c.args...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("lfsim %v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
