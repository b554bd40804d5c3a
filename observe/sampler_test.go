package observe_test

import (
	"bytes"
	"reflect"
	"sync"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestSamplerTakesPartsOnWorkers (issue 50): in a run cut into
// partitions, each partition takes its share of every sample through
// View.Each, on the workers, and that share is exactly the series of its
// own nodes (a flow's by its requester): the point's own goroutine only
// merges. The merged series is the one a sampler of one partition takes
// of the same network at the same times, byte for byte, and so is the
// peak queue. A k=4 fat tree cut in two, a permutation with PFC and DCQCN
// (so the flows' rate, target and alpha are sampled too), the default
// observe (every link, queue and flow), ten samples. It fails if the
// sampler samples on the caller (Each not called, or a share empty), or
// a share holds another partition's series. A sampler of no series
// starts no worker.
func TestSamplerTakesPartsOnWorkers(t *testing.T) {
	s, err := resolve.Parse("cut.yaml", []byte("topology: {kind: fat-tree, k: 4}\nstop: {at: 1ms}\nhca: {cc: dcqcn}\ntraffic:\n  - permutation: {hosts: all, size: 1MiB}\n"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := assembly.BuildWorkers(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	g := n.Group
	if g == nil || g.Partitions() != 2 {
		t.Fatalf("the k=4 fat tree should be cut in two")
	}
	var flows []observe.Flow
	for _, f := range n.Flows {
		flows = append(flows, observe.Flow{ID: f.Flow.ID, Receiver: f, CC: f.Live.CC, Node: f.Flow.Src})
	}
	var mu sync.Mutex
	calls, ran := 0, make([]int, g.Partitions())
	each := func(f func(int)) {
		calls++
		g.Each(func(i int) {
			mu.Lock()
			ran[i]++
			mu.Unlock()
			f(i)
		})
	}
	prios := []uint8{0, 3}
	cut := observe.NewSampler(&observe.View{Eng: n.Eng, Topology: s.Topology, Ports: n.Fabric.Ports, Switches: n.Switches,
		PartOf: n.Fabric.Partition, Parts: g.Partitions(), Each: each}, &s.Observe, prios, flows)
	one := observe.NewSampler(&observe.View{Eng: n.Eng, Topology: s.Topology, Ports: n.Fabric.Ports, Switches: n.Switches}, &s.Observe, prios, flows)
	const samples = 10
	for k := 1; k <= samples; k++ {
		at := sim.Time(k) * 10 * sim.Microsecond
		g.Run(at-1, nil)
		g.AdvanceTo(at)
		cut.Sample(at)
		one.Sample(at)
	}
	if calls != samples || !reflect.DeepEqual(ran, []int{samples, samples}) {
		t.Errorf("View.Each called %d times, the partitions' shares taken %v times; want %d and [%d %d]", calls, ran, samples, samples, samples)
	}
	nodes, taken := cut.PartNodes()
	all, _ := one.PartNodes()
	total := 0
	for i, ns := range nodes {
		if len(ns) == 0 || taken[i] != samples {
			t.Errorf("partition %d's share holds %d series and took %d samples; want some, and %d", i, len(ns), taken[i], samples)
		}
		for _, id := range ns {
			if p := n.Fabric.Partition(id); p != i {
				t.Fatalf("partition %d's share holds a series of %s, which is partition %d's", i, s.Topology.Nodes[id].Name, p)
			}
		}
		total += len(ns)
	}
	if total != len(all[0]) {
		t.Errorf("the shares hold %d series; one sampler holds %d", total, len(all[0]))
	}
	a, b := one.Series().CSV(), cut.Series().CSV()
	if !bytes.Equal(a, b) || bytes.Count(a, []byte("\n")) < samples*len(all[0]) {
		t.Errorf("timeseries.csv: %d bytes cut, %d on one partition (%d rows); want the same bytes, at least a row a series a sample", len(b), len(a), bytes.Count(a, []byte("\n")))
	}
	if p, q := one.Peak(), cut.Peak(); p == nil || !reflect.DeepEqual(p, q) {
		t.Errorf("peak queue %+v cut, %+v on one partition; want the same, and one", q, p)
	}
	// A sampler of no series (no port, no flow) starts no worker.
	none := s.Observe
	none.Flows = observe.Selector{}
	v := &observe.View{Eng: n.Eng, Topology: s.Topology, PartOf: n.Fabric.Partition, Parts: g.Partitions(), Each: each}
	calls = 0
	observe.NewSampler(v, &none, prios, flows).Sample(samples * 10 * sim.Microsecond)
	if calls != 0 {
		t.Errorf("a sampler of no series started the workers %d times; want none", calls)
	}
}
