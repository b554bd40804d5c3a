package resolve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/chakra"
	"github.com/lfsim/lfsim/chakra/etdef"
)

// TestChakraErrors: a chakra generator whose trace is wrong for the
// scenario is an error at the trace key's line and column, naming the
// trace's file (and node) and what was expected.
func TestChakraErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "groups.json"), []byte(`{"1": [0, 9]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cut.0.et"), []byte{0x07, 0x0a, 0x05, '0', '.', '0'}, 0o644); err != nil {
		t.Fatal(err)
	}
	mb, err := filepath.Abs("../scenarios/examples/chakra-microbenchmarks")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, traffic, want string
	}{
		{"fewer hosts than rank files", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1]}",
			"t.yaml:4:21: traffic[0].chakra.trace: " + mb + "/all_reduce/4npus_1MB/all_reduce.2.et: a rank file beyond the 2 ranks given (the hosts): expected one file per rank"},
		{"more hosts than rank files", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce}",
			"t.yaml:4:21: traffic[0].chakra.trace: " + mb + "/all_reduce/4npus_1MB/all_reduce.4.et: no such file (the trace has ranks 0 to 3): expected one file per rank"},
		{"no trace", "{trace: nosuch}",
			"t.yaml:4:21: traffic[0].chakra.trace: nosuch.0.et: no such file"},
		{"a truncated trace", "{trace: cut, ranks: [h0]}",
			"t.yaml:4:21: traffic[0].chakra.trace: cut.0.et: byte 0: the GlobalMetadata: its length prefix says 7 bytes but 5 are left: the file is truncated"},
		{"a bad communicator-group file", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1, h2, h3], comm_group: groups.json}",
			"groups.json: group \"1\": rank 9: expected a rank from 0 to 3 (the trace's 4 ranks)"},
		{"an unknown host", "{trace: " + mb + "/all_reduce/4npus_1MB/all_reduce, ranks: [h0, h1, h2, hx]}",
			"traffic[0].chakra.ranks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "topology: {kind: star, hosts: 6, link: {rate: 100Gbps, delay: 1us}}\nstop: {at: 1ms}\ntraffic:\n  - chakra: " + c.traffic + "\n"
			_, err := Parse(filepath.Join(dir, "t.yaml"), []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n%v\nwant it to hold\n%s", err, c.want)
			}
		})
	}
}

// TestChakraComms: a trace's communicators take the generator's
// channels, qps, rail_aware and pxn (defaults 2, 1, true, true, the
// collective generator's), and on GPU servers a communicator whose
// rings cannot lie on the rails is refused here, where lfsim validate
// sees it, not when the run builds it.
func TestChakraComms(t *testing.T) {
	mb, err := filepath.Abs("../scenarios/examples/chakra-microbenchmarks/all_reduce/4npus_1MB/all_reduce")
	if err != nil {
		t.Fatal(err)
	}
	rail := "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 4, spines: 2, link: {rate: 400Gbps, delay: 1us}, nvlink: {rate: 3.6Tbps, delay: 600ns}}\nstop: {at: 1ms}\ntraffic:\n  - chakra: "
	for _, c := range []struct {
		name, traffic string
		want          string // the communicator's settings, or the error
	}{
		{"defaults", "{trace: " + mb + ", ranks: [s0/g0, s0/g1, s1/g0, s1/g1]}", "2 1 false false"},
		{"given", "{trace: " + mb + ", ranks: [s0/g0, s0/g1, s1/g0, s1/g1], channels: 4, qps: 2, rail_aware: false, pxn: false}", "4 2 true true"},
		{"rings off the rails", "{trace: " + mb + ", ranks: [s0/g0, s0/g1, s1/g0, s1/g2]}",
			"t.yaml:4:21: traffic[0].chakra.trace: the collectives of every rank on ranks [0 1 2 3] (ring): rings on rails need the same GPUs of every server"},
		{"rings off the rails, rail_aware: false", "{trace: " + mb + ", ranks: [s0/g0, s0/g1, s1/g0, s1/g2], rail_aware: false}", "2 1 true false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(rail+c.traffic+"\n"))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				cm := s.Jobs[0].Job.Comms[0]
				got = fmt.Sprint(cm.Channels, cm.QPs, cm.NoRailAware, cm.NoPXN)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestChakraName: the job is named by name:, else job<traffic index>.
func TestChakraName(t *testing.T) {
	mb, err := filepath.Abs("../scenarios/examples/chakra-microbenchmarks/all_reduce/4npus_1MB/all_reduce")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("t.yaml", []byte("topology: {kind: star, hosts: 4, link: {rate: 100Gbps}}\nstop: {at: 1ms}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - chakra: {trace: "+mb+"}\n  - chakra: {trace: "+mb+", name: ar}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Jobs[0].Job.Name + " " + s.Jobs[1].Job.Name; got != "job1 ar" {
		t.Errorf("names %q, want \"job1 ar\"", got)
	}
}

// TestChakraMemory: a trace's communicator counts once in the memory
// estimate whatever the calls on it (ASTRA-sim's all_reduce trace and a
// trace of three all-reduces on every rank estimate the same), and its
// sends count a link of two QPs per pair of ranks and direction, as a
// job generator's flows do: the estimate rises by what a job's one flow
// adds.
func TestChakraMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, nodes ...*etdef.Node) {
		out, err := chakra.Encode(nodes...)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attr := func(name string, v int64) *etdef.AttributeProto {
		return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_Int64Val{Int64Val: v}}
	}
	ar := func(id uint64, deps ...uint64) *etdef.Node {
		return &etdef.Node{Id: id, Type: etdef.NodeType_COMM_COLL_NODE, DataDeps: deps, Attr: []*etdef.AttributeProto{attr("comm_type", 0), attr("comm_size", 1<<20)}}
	}
	for r := range int64(4) {
		write(fmt.Sprintf("one.%d.et", r), ar(1))
		write(fmt.Sprintf("three.%d.et", r), ar(1), ar(2, 1), ar(3, 2))
		nodes := []*etdef.Node{ar(1)}
		switch r {
		case 0:
			nodes = append(nodes, &etdef.Node{Id: 2, Type: etdef.NodeType_COMM_SEND_NODE, DataDeps: []uint64{1}, Attr: []*etdef.AttributeProto{attr("comm_dst", 1), attr("comm_size", 4096)}})
		case 1:
			nodes = append(nodes, &etdef.Node{Id: 2, Type: etdef.NodeType_COMM_RECV_NODE, DataDeps: []uint64{1}, Attr: []*etdef.AttributeProto{attr("comm_src", 0), attr("comm_size", 4096)}})
		}
		write(fmt.Sprintf("send.%d.et", r), nodes...)
	}
	estimate := func(traffic string) int64 {
		t.Helper()
		s, err := Parse(filepath.Join(dir, "t.yaml"), []byte("topology: {kind: star, hosts: 4, link: {rate: 100Gbps}}\nstop: {at: 1ms}\ntraffic:\n"+traffic))
		if err != nil {
			t.Fatal(err)
		}
		return s.MemoryEstimate
	}
	one, three, send := estimate("  - chakra: {trace: one}\n"), estimate("  - chakra: {trace: three}\n"), estimate("  - chakra: {trace: send}\n")
	jobOne := estimate("  - job: {phases: [{id: a, collective: {op: all_reduce, size: 1MiB}}]}\n")
	jobFlow := estimate("  - job: {phases: [{id: a, collective: {op: all_reduce, size: 1MiB}}, {id: b, after: [a], flow: {from: h0, to: h1, size: 4KiB}}]}\n")
	if one != three {
		t.Errorf("one all-reduce estimates %d bytes, three on the same communicator %d: want the same", one, three)
	}
	if one != jobOne || send-one != jobFlow-jobOne {
		t.Errorf("a trace's all-reduce %d and send %+d bytes; a job's %d and %+d", one, send-one, jobOne, jobFlow-jobOne)
	}
}
