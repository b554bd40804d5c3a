package assembly

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestCollectiveScale is issue 48's scale case, run by hand (it takes
// minutes): LFSIM_COLLECTIVE_SCALE=rail runs a ring all-reduce of
// LFSIM_COLLECTIVE_SIZE (default 256MiB) over 128 servers of 8 GPUs
// (1,024 ranks, LFSIM_RANKS) on a rail-optimized fabric at 400 Gb/s
// (NVLink 3.6 Tb/s, 600 ns; 32 servers a rail switch, 32 spines), with
// 8 channels, on LFSIM_WORKERS workers (default 2); =servers runs it on
// servers made by the test whose NICs sit under one leaf per server of a
// leaf-spine with 8 spines (every step between servers crosses a spine);
// =hosts over 1,024 single-NIC hosts on that leaf-spine (every step on
// the network). It holds completion and conservation, and logs the
// events, packet-hops, wall time and the heap.
func TestCollectiveScale(t *testing.T) {
	mode := os.Getenv("LFSIM_COLLECTIVE_SCALE")
	if mode == "" {
		t.Skip("set LFSIM_COLLECTIVE_SCALE=rail, servers or hosts to run the 1,024-rank all-reduce")
	}
	size := "256MiB"
	if s := os.Getenv("LFSIM_COLLECTIVE_SIZE"); s != "" {
		size = s
	}
	workers := 2
	if w := os.Getenv("LFSIM_WORKERS"); w != "" {
		workers, _ = strconv.Atoi(w)
	}
	ranks := 1024
	if r := os.Getenv("LFSIM_RANKS"); r != "" {
		ranks, _ = strconv.Atoi(r)
	}
	src := fmt.Sprintf(`
topology: {kind: leaf-spine, leaves: %d, spines: 8, hosts_per_leaf: 8, link: {rate: 400Gbps, delay: 1us}}
hca: {mtu: 4096, cc: dcqcn}
stop: {at: 10s, when: flows-done}
observe: {interval: 1ms, links: [], queues: [], flows: []}
traffic:
  - collective: {op: all_reduce, size: %s, channels: 8}
`, ranks/8, size)
	if mode == "rail" {
		src = fmt.Sprintf(`
topology: {kind: rail-optimized, servers: %d, gpus_per_server: 8, spines: 32, link: {rate: 400Gbps, delay: 1us}, nvlink: {rate: 3.6Tbps, delay: 600ns}}
hca: {mtu: 4096, cc: dcqcn}
stop: {at: 10s, when: flows-done}
observe: {interval: 1ms, links: [], queues: [], flows: []}
traffic:
  - collective: {op: all_reduce, size: %s, channels: 8}
`, ranks/8, size)
	}
	start := time.Now()
	s, err := resolve.Parse("scale.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if mode == "servers" {
		var servers []resolve.Server
		hosts := s.Topology.Hosts()
		for i := 0; i < len(hosts); i += 8 {
			servers = append(servers, resolve.Server{Name: "s" + strconv.Itoa(i/8), GPUs: hosts[i : i+8],
				ScaleUp: resolve.ScaleUp{Rate: 3600 * fabric.Gbps, Delay: 500 * sim.Nanosecond}})
		}
		s.SetServers(servers, len(s.Topology.Nodes))
	}
	n, err := BuildWorkers(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	built := time.Since(start)
	res := n.Run(nil)
	wall := time.Since(start)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	sum := res.Summary
	if !sum.Conservation.OK || sum.Collectives == nil || sum.Collectives.Completed != 1 {
		t.Errorf("conservation %v, collectives %+v, warnings %v", sum.Conservation, sum.Collectives, sum.Warnings)
	}
	t.Logf("%s, %d ranks, %s, %d workers (serial: %q): built in %v, ran in %v; simulated %v; time_ns %d; %d events, %d packet-hops (%.2f M/s), %d bytes on the network, %d through scale-up; heap peak sys %d MiB",
		mode, ranks, size, workers, n.Serial, built, wall, sim.Time(sum.SimTimeNs)*sim.Nanosecond, sum.Collectives.TimeNsMax, sum.Events, sum.PacketHops,
		float64(sum.PacketHops)/wall.Seconds()/1e6, sum.Bytes.Offered, sum.Collectives.ScaleUpBytes, m.Sys>>20)
}
