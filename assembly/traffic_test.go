package assembly

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// The websearch CDF's mean under linear interpolation is 1,711,250 bytes
// (data/flowsize/README.md, and by hand: the sum over segments of the
// segment's probability times its midpoint).
func TestWebsearchMean(t *testing.T) {
	d, err := scenario.BuiltinSizeDist("websearch")
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Mean(); m != 1711250 {
		t.Fatalf("analytic mean %v, want 1711250", m)
	}
	rng := sim.Stream(1, "test/websearch")
	const n = 1_000_000
	var sum float64
	for i := 0; i < n; i++ {
		sum += float64(d.Sample(rng))
	}
	mean := sum / n
	if rel := math.Abs(mean-1711250) / 1711250; rel > 0.03 {
		t.Fatalf("sampled mean %.0f is %.2f%% from 1711250; want within 3%%", mean, rel*100)
	}
	t.Logf("sampled mean of %d websearch sizes: %.0f (%.2f%% from 1711250)", n, mean, (mean-1711250)/1711250*100)
	h, _ := scenario.BuiltinSizeDist("hadoop")
	if m := h.Mean(); math.Abs(m-120421) > 1 {
		t.Fatalf("hadoop mean %v, want 120421 (README)", m)
	}
}

// The arrivals a poisson source makes offer the load asked for: over a
// long window (20 s of simulated time per host, about 73,000 websearch
// flows per host at 50% of 100 Gb/s, 8 hosts), the bytes offered per
// host are within 2% of load × rate × window. The draws are the
// generator's own (poissonSource.schedule's gap, then next's size and
// destination), without simulating the packets.
func TestPoissonOfferedLoad(t *testing.T) {
	d, _ := scenario.BuiltinSizeDist("websearch")
	const rate = 100e9
	for _, load := range []float64{0.3, 0.5, 0.8} {
		g := &resolve.PoissonGen{Hosts: []fabric.NodeID{0, 1, 2, 3, 4, 5, 6, 7}, Load: load, Sizes: d}
		window := sim.Time(20 * sim.Second)
		var total float64
		dests := make([]int, 8)
		for hi, h := range g.Hosts {
			p := &poissonSource{g: g, host: h, self: hi, rng: sim.Stream(1, "traffic/poisson/0/h"+string(rune('0'+hi))),
				meanGap: PoissonMeanGap(d.Mean(), rate, load)}
			for now := expGap(p.rng, p.meanGap); now < window; now += expGap(p.rng, p.meanGap) {
				size, dst := p.next()
				if dst == h {
					t.Fatal("a flow to itself")
				}
				dests[dst]++
				total += float64(size)
			}
		}
		offered := total * 8 / (rate * window.Seconds() * 8)
		t.Logf("load %.0f%%: offered %.2f%% over %v per host", load*100, offered*100, window)
		if math.Abs(offered-load)/load > 0.02 {
			t.Errorf("load %.2f: offered %.4f, more than 2%% off", load, offered)
		}
		for i, c := range dests {
			if c == 0 {
				t.Errorf("host %d never a destination", i)
			}
		}
	}
}

const poissonScenario = `name: poisson
stop: {at: 1ms}
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
traffic:
  - flow: {from: h0, to: h7, size: 64KiB}
  - poisson: {hosts: all, load: 40%, sizes: websearch, until: 600us}
  - poisson: {hosts: [h1, h2], to: h0, load: 20%, sizes: 1000, qp: ud, op: send}
`

// A poisson run is deterministic, gives ids in creation order after the
// static flows, and offers roughly its load.
func TestPoissonRun(t *testing.T) {
	run := func() *reports.Results {
		_, r := runSource(t, "p.yaml", poissonScenario)
		return r
	}
	a, b := run(), run()
	ca, cb := reports.FlowsCSV(a.Flows), reports.FlowsCSV(b.Flows)
	if !bytes.Equal(ca, cb) || !bytes.Equal(reports.SummaryJSON(a.Summary), reports.SummaryJSON(b.Summary)) {
		t.Fatal("two runs of the same scenario differ")
	}
	if len(a.Flows) < 20 {
		t.Fatalf("only %d flows", len(a.Flows))
	}
	if f := a.Flows[0]; f.Src != "h0" || f.Dst != "h7" || f.StartNs != 0 {
		t.Fatalf("flow 0 is %+v, want the static flow", f)
	}
	ud := 0
	for i, f := range a.Flows {
		if f.ID != i {
			t.Fatalf("row %d has id %d", i, f.ID)
		}
		if f.QP == "ud" {
			ud++
			if f.Dst != "h0" || f.SizeBytes != 1000 {
				t.Fatalf("UD flow %+v", f)
			}
		}
	}
	if ud == 0 {
		t.Fatal("no UD flows from the second generator")
	}
	if s := a.Summary; s.Bytes.Offered != s.Bytes.Delivered+s.Bytes.InFlight+s.Bytes.Dropped {
		t.Fatalf("bytes not conserved: %+v", s.Bytes)
	}
	if len(a.Summary.FCTBuckets) == 0 {
		t.Fatal("no fct_buckets")
	}
}

// A ring all-reduce makes 2(N-1) steps of N flows; each host's step
// starts only once the previous step's chunk has arrived from its
// predecessor, and the chunks add up to size per step.
func TestRingAllreduce(t *testing.T) {
	src := `stop: {at: 50ms, when: flows-done}
topology: {kind: star, hosts: 5}
traffic:
  - ring_allreduce: {hosts: [h0, h1, h2, h3], size: 1000003}
`
	sc, err := resolve.Parse("r.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	const n, steps = 4, 6
	if len(sc.Flows) != n*steps {
		t.Fatalf("%d flows, want %d", len(sc.Flows), n*steps)
	}
	for s := 0; s < steps; s++ {
		var sum int64
		for i := 0; i < n; i++ {
			sum += sc.Flows[s*n+i].Size
		}
		if sum != 1000003 {
			t.Fatalf("step %d moves %d bytes, want 1000003", s, sum)
		}
	}
	net, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := net.Run(nil)
	if res.Summary.StopReason != "flows-done" || res.Summary.Flows.Completed != n*steps {
		t.Fatalf("stopped by %s with %d of %d flows", res.Summary.StopReason, res.Summary.Flows.Completed, n*steps)
	}
	for s := 1; s < steps; s++ {
		for i := 0; i < n; i++ {
			f, prev := res.Flows[s*n+i], res.Flows[(s-1)*n+(i+n-1)%n]
			if prev.Dst != f.Src {
				t.Fatalf("flow %d waits for flow %d into %s, not into its source %s", f.ID, prev.ID, prev.Dst, f.Src)
			}
			// The chunk has landed after the last packet; the sender's
			// ACK comes later still.
			if f.StartNs <= prev.StartNs || f.StartNs > prev.EndNs {
				t.Fatalf("flow %d starts at %d ns; its predecessor %d ran %d..%d", f.ID, f.StartNs, prev.ID, prev.StartNs, prev.EndNs)
			}
		}
	}
}

func TestTrafficErrors(t *testing.T) {
	dir := t.TempDir()
	cdf := filepath.Join(dir, "my.cdf")
	os.WriteFile(cdf, []byte("0 0\n100 50\n50 100\n"), 0o644)
	for _, c := range []struct{ src, want string }{
		{`poisson: {load: 50%, sizes: websearh}`, `t.yaml:3:33: traffic[0].poisson.sizes: unknown flow-size distribution websearh (did you mean websearch?)`},
		{`poisson: {load: 0, sizes: hadoop}`, `traffic[0].poisson.load: load must be above 0`},
		{`poisson: {load: 50%, sizes: ./missing.txt}`, `cannot read the CDF file`},
		{`poisson: {load: 50%, sizes: ` + cdf + `}`, `my.cdf:3: the points must ascend`},
		{`poisson: {load: 50%, sizes: websearch, qp: ud, op: send}`, `a UD message is at most one MTU (4096 bytes), not 30000000 bytes`},
		{`poisson: {hosts: [h0, h1], to: h1, load: 50%, sizes: 1000}`, `a flow from h1 to itself`},
		{`ring_allreduce: {hosts: [h0, h1, h2], size: 2}`, `size must be at least 3 bytes`},
		{`ring_allreduce: {hosts: all, size: 1MiB, op: read}`, `use op: write, write_imm or send, not read`},
	} {
		src := "topology: {kind: star, hosts: 3}\ntraffic:\n  - " + c.src + "\n"
		_, err := resolve.Parse(filepath.Join(dir, "t.yaml"), []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
	os.WriteFile(cdf, []byte("# mine\n0 0\n1000 50\n3000 100\n"), 0o644)
	sc, err := resolve.Parse(filepath.Join(dir, "t.yaml"), []byte("topology: {kind: star, hosts: 3}\ntraffic:\n  - poisson: {load: 50%, sizes: my.cdf}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := sc.Poisson[0].Sizes.Mean(); m != 1250 {
		t.Fatalf("mean of my.cdf %v, want 1250", m)
	}
}

func TestFCTBuckets(t *testing.T) {
	var sizes []int64
	var sl []float64
	for i := 100; i > 0; i-- {
		sizes = append(sizes, int64(i))
		sl = append(sl, float64(i))
	}
	b := reports.FCTBuckets(sizes, sl)
	if len(b) != 20 || b[0].SizeMax != 5 || b[0].Count != 5 || b[19].SizeMax != 100 || b[0].P50Slowdown != 3 {
		t.Fatalf("%+v", b)
	}
	if b := reports.FCTBuckets(sizes[:3], sl[:3]); len(b) != 3 {
		t.Fatalf("3 flows give %d buckets", len(b))
	}
}

// TestPoissonFlowsAreBounded: a poisson generator that would make flows
// for ever, or more than the flow limit, is refused before the run, at
// its line; and a run's sources stop at the flow limit whatever the draw,
// saying so.
func TestPoissonFlowsAreBounded(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"stop: {at: 0, when: flows-done}\ntraffic:\n  - poisson: {load: 10%, sizes: 64KiB}\n",
			"t.yaml:4:5: traffic[0].poisson: poisson without until: in a run without a time limit (stop.at: 0) makes flows for ever; give it until:"},
		{"stop: {at: 1s}\ntraffic:\n  - poisson: {load: 100%, sizes: 1}\n",
			"t.yaml:4:5: traffic[0].poisson: this poisson makes about 112500000000 flows (load × link rate × time / mean size), 112500000000 in all; at most 10000000 flows are supported"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 9}\n"+c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
	// until: bounds it in a run without a time limit.
	if _, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 9}\nstop: {at: 0, when: flows-done}\ntraffic:\n  - poisson: {load: 10%, sizes: 64KiB, until: 100us}\n")); err != nil {
		t.Error(err)
	}
	n := buildSource(t, "t.yaml", "topology: {kind: star, hosts: 9}\nstop: {at: 200us}\ntraffic:\n  - poisson: {load: 50%, sizes: 1KiB}\n")
	n.flowLimit = 40
	sum := n.Run(nil).Summary
	if len(n.Flows) != 40 || sum.Flows.Total > 40 {
		t.Errorf("%d flows made (%d in the summary), want the limit's 40", len(n.Flows), sum.Flows.Total)
	}
	found := false
	for _, w := range sum.Warnings {
		found = found || w == "the poisson generators stopped making flows at the flow limit (40 flows)"
	}
	if !found {
		t.Errorf("warnings %q lack the flow limit's", sum.Warnings)
	}
}
