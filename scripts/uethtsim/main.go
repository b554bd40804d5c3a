// Command uethtsim writes the inputs that run an lfsim scenario's load in
// uet-htsim, the UEC's own simulator (htsim_uec), and the topologies
// lfsim's generators do not give, for the side-by-side runs in
// docs/RELIABILITY.md:
//
//	uethtsim cm [-nodes N] FLOWS.csv
//	    lfsim's flows.csv (a run's flows, hosts hN) as an htsim connection
//	    matrix on standard output: "Nodes N", "Connections M", then one
//	    "src->dst start PS size BYTES" line a flow (host hN is htsim's node
//	    N; the start in picoseconds, as htsim's ConnectionMatrix::load
//	    reads it). N defaults to the highest host number plus one.
//	uethtsim fat-tree -k K [-rate R] [-delay D] [-slow A,B,RATE]
//	    a k-ary fat tree as an explicit topology block (YAML) on standard
//	    output: the nodes, ports and links fabric.FatTree gives (hosts
//	    h0.., edge switches s0.., aggregation, then core), so that a
//	    link may take its own rate: -slow names one link (two nodes) and
//	    its rate, as uet-htsim's -failed degrades a core link.
//	uethtsim topo -k K | -star N [-gbps G] [-delay D] [-latency L]
//	    the same topology as a uet-htsim topology file (-topo): a k-ary
//	    fat tree as three tiers (k/2 hosts and k/2 uplinks a ToR, k pods
//	    of k²/4 hosts, k/2 uplinks an aggregation switch, k pods a core),
//	    or lfsim's star of N hosts as one ToR of N hosts with a single
//	    idle uplink; every link at G Gb/s with D of delay (lfsim's link
//	    delay is htsim's Downlink_Latency_ns) and every switch's latency
//	    L (lfsim's switch.latency, 500 ns by default; htsim's
//	    Switch_Latency_ns).
//	uethtsim fct HTSIM-OUTPUT | FLOWS.csv
//	    what htsim_uec printed, or lfsim's flows.csv, summed up alike:
//	    the flows that finished, the mean and the latest of their finish
//	    times in microseconds from the run's start (htsim's "finished
//	    at", lfsim's end_ns: a flow that starts later, as the connection
//	    matrix carries its start, is compared where it ends), then
//	    htsim's last line's counts of new packets, retransmissions and
//	    NACKs, or lfsim's retransmissions.
//
// It reads and writes files only: no simulator runs here.
package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "uethtsim:", err)
		os.Exit(2)
	}
}

const usage = "usage: uethtsim cm [-nodes N] FLOWS.csv | uethtsim fat-tree -k K [-rate R] [-delay D] [-slow A,B,RATE] | uethtsim topo -k K | -star N [-gbps G] [-delay D] [-latency L] | uethtsim fct HTSIM-OUTPUT"

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "cm":
		fs := flag.NewFlagSet("cm", flag.ContinueOnError)
		nodes := fs.Int("nodes", 0, "htsim's node count (default: the highest host number + 1)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New(usage)
		}
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		return connectionMatrix(f, fs.Arg(0), *nodes, out)
	case "fat-tree":
		fs := flag.NewFlagSet("fat-tree", flag.ContinueOnError)
		k := fs.Int("k", 0, "the switches' port count, even")
		rate := fs.String("rate", "100Gbps", "every link's rate")
		delay := fs.String("delay", "1us", "every link's one-way delay")
		slow := fs.String("slow", "", "A,B,RATE: the link between nodes A and B at RATE")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return errors.New(usage)
		}
		return fatTree(*k, *rate, *delay, *slow, out)
	case "topo":
		fs := flag.NewFlagSet("topo", flag.ContinueOnError)
		k := fs.Int("k", 0, "a k-ary fat tree")
		star := fs.Int("star", 0, "a star of this many hosts")
		gbps := fs.Int("gbps", 100, "every link's rate, Gb/s")
		delay := fs.Duration("delay", 1000*time.Nanosecond, "every link's one-way delay")
		latency := fs.Duration("latency", 500*time.Nanosecond, "every switch's latency")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 || (*k == 0) == (*star == 0) {
			return errors.New(usage)
		}
		return htsimTopo(*k, *star, *gbps, *delay, *latency, out)
	case "fct":
		if len(args) != 2 {
			return errors.New(usage)
		}
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		if strings.HasSuffix(args[1], ".csv") {
			return summarizeFlows(f, args[1], out)
		}
		return summarize(f, args[1], out)
	}
	return fmt.Errorf("unknown command %q; %s", args[0], usage)
}

// host reads a host name hN as N.
func host(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "h"))
	return n, err == nil && strings.HasPrefix(s, "h") && n >= 0
}

// connectionMatrix converts flows.csv (name is its file, for messages).
func connectionMatrix(in io.Reader, name string, nodes int, out io.Writer) error {
	r := csv.NewReader(in)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range []string{"src", "dst", "size_bytes", "start_ns"} {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s:1: no column %s; expected lfsim's flows.csv (src, dst, size_bytes, start_ns)", name, c)
		}
	}
	var lines []string
	most := -1
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		src, ok1 := host(rec[col["src"]])
		dst, ok2 := host(rec[col["dst"]])
		if !ok1 || !ok2 {
			return fmt.Errorf("%s:%d: hosts %q and %q: expected names hN (htsim numbers its nodes)", name, line, rec[col["src"]], rec[col["dst"]])
		}
		size, err1 := strconv.ParseInt(rec[col["size_bytes"]], 10, 64)
		start, err2 := strconv.ParseInt(rec[col["start_ns"]], 10, 64)
		if err1 != nil || err2 != nil || size <= 0 || size > 1<<31-1 || start < 0 {
			return fmt.Errorf("%s:%d: size %q and start %q: expected a size of 1 to 2^31-1 bytes (htsim's is 32 bits) and a start of 0 ns or more", name, line, rec[col["size_bytes"]], rec[col["start_ns"]])
		}
		most = max(most, src, dst)
		lines = append(lines, fmt.Sprintf("%d->%d start %d size %d", src, dst, start*1000, size))
	}
	if nodes == 0 {
		nodes = most + 1
	}
	if most >= nodes {
		return fmt.Errorf("%s: host h%d, but -nodes is %d", name, most, nodes)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "Nodes %d\nConnections %d\n", nodes, len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return w.Flush()
}

// fatTree writes fabric.FatTree(k)'s nodes and links as an explicit
// topology, in its port order: an edge switch's hosts then its pod's
// aggregation switches; an aggregation switch's edge switches then its
// cores; a core's pods in order.
func fatTree(k int, rate, delay, slow string, out io.Writer) error {
	if k < 2 || k%2 != 0 || k > 64 {
		return fmt.Errorf("-k %d: expected an even k from 2 to 64", k)
	}
	half := k / 2
	edges, aggs, cores := k*half, k*half, half*half
	hosts := edges * half
	sw := func(i int) string { return "s" + strconv.Itoa(i) }
	var slowA, slowB, slowRate string
	if slow != "" {
		p := strings.Split(slow, ",")
		if len(p) != 3 {
			return fmt.Errorf("-slow %q: expected A,B,RATE (two nodes and a rate, such as s64,s32,50Gbps)", slow)
		}
		slowA, slowB, slowRate = p[0], p[1], p[2]
	}
	type link struct{ a, b string }
	var links []link
	for e := 0; e < edges; e++ {
		for i := 0; i < half; i++ {
			links = append(links, link{"h" + strconv.Itoa(e*half+i), sw(e)})
		}
	}
	for e := 0; e < edges; e++ {
		pod := e / half
		for j := 0; j < half; j++ {
			links = append(links, link{sw(e), sw(edges + pod*half + j)})
		}
	}
	for pod := 0; pod < k; pod++ {
		for j := 0; j < half; j++ {
			for c := 0; c < half; c++ {
				links = append(links, link{sw(edges + pod*half + j), sw(edges + aggs + j*half + c)})
			}
		}
	}
	found := slow == ""
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "# a k=%d fat tree as lfsim's fat-tree kind builds it (uethtsim fat-tree -k %d", k, k)
	if slow != "" {
		fmt.Fprintf(w, " -slow %s", slow)
	}
	fmt.Fprintf(w, "):\n# hosts h0..h%d, edge s0..s%d, aggregation s%d..s%d, core s%d..s%d\n", hosts-1, edges-1, edges, edges+aggs-1, edges+aggs, edges+aggs+cores-1)
	fmt.Fprintf(w, "topology:\n  kind: explicit\n  link: {rate: %s, delay: %s}\n  hosts: [", rate, delay)
	for i := 0; i < hosts; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(w, "h%d", i)
	}
	w.WriteString("]\n  switches: [")
	for i := 0; i < edges+aggs+cores; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(sw(i))
	}
	w.WriteString("]\n  links:\n")
	for _, l := range links {
		if (l.a == slowA && l.b == slowB) || (l.a == slowB && l.b == slowA) {
			found = true
			fmt.Fprintf(w, "    - {a: %s, b: %s, rate: %s}\n", l.a, l.b, slowRate)
			continue
		}
		fmt.Fprintf(w, "    - [%s, %s]\n", l.a, l.b)
	}
	if !found {
		return fmt.Errorf("-slow %q: no link between %s and %s in a k=%d fat tree", slow, slowA, slowB, k)
	}
	return w.Flush()
}

// htsimTopo writes a uet-htsim topology file (FatTreeTopologyCfg::load's
// keys) for a k-ary fat tree (k > 0) or a star of star hosts.
func htsimTopo(k, star, gbps int, delay, latency time.Duration, out io.Writer) error {
	if gbps <= 0 || delay < 0 || latency < 0 {
		return fmt.Errorf("-gbps %d, -delay %v, -latency %v: expected a positive rate and delays of 0 or more", gbps, delay, latency)
	}
	w := bufio.NewWriter(out)
	tier := func(n, down, up, oversub int, bundle bool) {
		fmt.Fprintf(w, "\nTier %d\nDownlink_speed_Gbps %d\nRadix_Down %d\n", n, gbps, down)
		if up > 0 {
			fmt.Fprintf(w, "Radix_Up %d\n", up)
		}
		if oversub > 0 {
			fmt.Fprintf(w, "Oversubscribed %d\n", oversub)
		}
		fmt.Fprintf(w, "Downlink_Latency_ns %d\nSwitch_Latency_ns %d\n", delay.Nanoseconds(), latency.Nanoseconds())
		if bundle {
			w.WriteString("Bundle 1\n")
		}
	}
	switch {
	case k > 0:
		if k%2 != 0 || k > 64 {
			return fmt.Errorf("-k %d: expected an even k from 2 to 64", k)
		}
		fmt.Fprintf(w, "# a k=%d fat tree (uethtsim topo -k %d)\nNodes %d\nTiers 3\nPodsize %d\n", k, k, k*k*k/4, k*k/4)
		tier(0, k/2, k/2, 1, false)
		tier(1, k/2, k/2, 1, true)
		tier(2, k, 0, 0, true)
	default:
		if star < 2 || star > 1024 {
			return fmt.Errorf("-star %d: expected 2 to 1024 hosts", star)
		}
		fmt.Fprintf(w, "# a star of %d hosts: one ToR, its one uplink idle (uethtsim topo -star %d)\nNodes %d\nTiers 2\nPodsize %d\n", star, star, star, star)
		tier(0, star, 1, star, false)
		tier(1, 1, 0, 0, false)
	}
	return w.Flush()
}

// summarize reads htsim_uec's output (name is its file, for messages):
// each "Flow NAME flowId ID uecSrc S finished at T ..." line, and the
// last line's "New: N Rtx: R ... NACKs: K".
func summarize(in io.Reader, name string, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var n int
	var sum, last float64
	var counts string
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 9 && f[0] == "Flow" && f[6] == "finished" && f[7] == "at":
			t, err := strconv.ParseFloat(f[8], 64)
			if err != nil {
				return fmt.Errorf("%s:%d: finish time %q: expected microseconds", name, line, f[8])
			}
			n++
			sum += t
			last = max(last, t)
		case len(f) >= 6 && f[0] == "New:" && f[2] == "Rtx:":
			counts = fmt.Sprintf("new %s, retransmitted %s", f[1], f[3])
			for i := 4; i+1 < len(f); i++ {
				if f[i] == "NACKs:" {
					counts += ", NACKs " + f[i+1]
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if n == 0 || counts == "" {
		return fmt.Errorf("%s: no finished flow or no summary line (\"New: ... Rtx: ...\"): expected htsim_uec's output", name)
	}
	_, err := fmt.Fprintf(out, "flows %d, mean %.1f us, last %.1f us; %s\n", n, sum/float64(n), last, counts)
	return err
}

// summarizeFlows reads lfsim's flows.csv as summarize reads htsim's
// output: each flow's end_ns, its finish time from the run's start, as
// htsim prints it (its connection matrix carries lfsim's starts).
func summarizeFlows(in io.Reader, name string, out io.Writer) error {
	r := csv.NewReader(in)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range []string{"end_ns", "retransmits", "status"} {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s:1: no column %s; expected lfsim's flows.csv", name, c)
		}
	}
	var n, rtx int64
	var sum, last float64
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if rec[col["status"]] != "success" {
			continue
		}
		end, err1 := strconv.ParseInt(rec[col["end_ns"]], 10, 64)
		re, err2 := strconv.ParseInt(rec[col["retransmits"]], 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s:%d: end_ns %q and retransmits %q: expected integers", name, line, rec[col["end_ns"]], rec[col["retransmits"]])
		}
		n++
		rtx += re
		us := float64(end) / 1e3 // from the run's start, as htsim's finish times
		sum += us
		last = max(last, us)
	}
	if n == 0 {
		return fmt.Errorf("%s: no flow completed", name)
	}
	_, err = fmt.Fprintf(out, "flows %d, mean %.1f us, last %.1f us; retransmitted %d\n", n, sum/float64(n), last, rtx)
	return err
}
