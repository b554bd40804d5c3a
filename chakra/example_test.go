package chakra

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// dpOverlapDir holds the example trace dpOverlap writes.
const dpOverlapDir = "../scenarios/examples/chakra-dp-overlap"

// dpOverlap is the example trace of scenarios/examples/chakra-dp-overlap.yaml
// for 8 ranks: one data-parallel backward pass of four layers, each
// layer's gradients all-reduced as soon as its backward compute is done,
// beside the next layer's compute (PyTorch DDP's buckets): layer 3's
// backward (ids 1..4: 300, 250, 200, 150 µs, each after the one
// before, data_deps), then each layer's all-reduce (ids 11..14: 8, 8, 4
// and 2 MiB) after its backward (data_deps) and after the previous
// all-reduce (ctrl_deps: NCCL's calls on one stream), and the optimizer
// step (id 20, 80 µs) after every all-reduce. Each rank's file is the
// same.
func dpOverlap() []*etdef.Node {
	var nodes []*etdef.Node
	us := []uint64{300, 250, 200, 150}
	mib := []int64{8, 8, 4, 2}
	for l := range 4 {
		n := comp(uint64(1+l), us[l])
		n.Name = fmt.Sprintf("backward layer %d", 3-l)
		if l > 0 {
			n.DataDeps = []uint64{uint64(l)}
		} else {
			n.DataDeps = nil
		}
		nodes = append(nodes, n)
	}
	var all []uint64
	for l := range 4 {
		c := coll(uint64(11+l), AllReduce, mib[l]<<20, uint64(1+l))
		c.Name = fmt.Sprintf("all_reduce grads layer %d", 3-l)
		if l > 0 {
			c.CtrlDeps = []uint64{uint64(10 + l)}
		}
		nodes = append(nodes, c)
		all = append(all, c.Id)
	}
	opt := comp(20, 80, all...)
	opt.Name = "optimizer step"
	return append(nodes, opt)
}

// TestExampleTraces: the committed example trace is what dpOverlap
// writes (LFSIM_UPDATE_TRACES=1 go test ./chakra -run TestExampleTraces
// rewrites it), and it loads.
func TestExampleTraces(t *testing.T) {
	data := encode(t, dpOverlap()...)
	for r := range 8 {
		name := filepath.Join(dpOverlapDir, fmt.Sprintf("dp.%d.et", r))
		if os.Getenv("LFSIM_UPDATE_TRACES") != "" {
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		have, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(have, data) {
			t.Errorf("%s is not what dpOverlap writes (%v): LFSIM_UPDATE_TRACES=1 go test ./chakra -run TestExampleTraces rewrites it", name, err)
		}
	}
	if _, err := Load(FS(os.DirFS(dpOverlapDir)), "dp", 8, ""); err != nil {
		t.Fatal(err)
	}
}
