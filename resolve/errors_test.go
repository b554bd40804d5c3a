package resolve

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// The units' own messages belong to their parsers (fabric.ParseRate,
// fabric.ParseSize, sim.ParseTime); the loader quotes them after the
// position and path, which the tables below check exactly.
func rateErr(s string) string { _, err := fabric.ParseRate(s); return err.Error() }
func sizeErr(s string) string { _, err := fabric.ParseSize(s); return err.Error() }
func timeErr(s string) string { _, err := sim.ParseTime(s); return err.Error() }

// TestErrors checks the exact messages, positions included, of scenarios
// that must not load: a wrong column fails the test.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unknown key with did-you-mean", `topology: {kind: star, hosts: 9}
switch:
  buffr: 12MiB
`,
			`t.yaml:3:3: switch: unknown key buffr (did you mean buffer?); allowed keys are buffer, latency, forwarding, reserved, ingress_threshold, egress_threshold, pfc, ecn, scheduler, ecmp_seed, ecmp_per_switch, link_layer, ib, load_balance, flowlet_timeout, spray, adaptive_bias, egress_fifo, flood_lossless, tagger, range_extender, trust, dscp2prio, prio2tc, sonic, trim, cbfc, llr`},
		{"unknown top-level key", `topolgy: {kind: star, hosts: 9}
`,
			`t.yaml:1:1: unknown top-level key topolgy (did you mean topology?); allowed keys are name, description, seed, stop, topology, switch, subnet_manager, hca, traffic, faults, observe, expect (and x-... keys, for anchors)`},
		{"unknown key for the topology kind", `topology: {kind: star, hosts: 9, k: 4}
`,
			`t.yaml:1:34: topology: unknown key k for kind star; allowed keys are kind, hosts, link, routing, routes`},
		{"unknown key without a near name", `topology: {kind: star, hosts: 2}
hca: {zzz: 1}
`,
			`t.yaml:2:7: hca: unknown key zzz; allowed keys are transport, mtu, priority, dscp, retransmit, bdp_cap, placement, reorder_window, ack_timeout, retry_count, rnr_retry, min_rnr_timer, max_rd_atomic, ack_every, rx_rate, host_bandwidth, pfc_watchdog, doorbell_latency, doorbell_cost, wqe_fetch_latency, dma_latency, tx_pkt_latency, rx_pkt_latency, max_inline, grh, vlarb, rto_low, rto_high, cc, ibcc, dcqcn, hpcc, timely, dctcp, nscc, tcp, uet, cm, apm, overlay`},
		{"key in another case", `topology: {kind: star, hosts: 2}
hca: {MTU: 1024}
`,
			`t.yaml:2:7: hca: unknown key MTU (did you mean mtu?); allowed keys are transport, mtu, priority, dscp, retransmit, bdp_cap, placement, reorder_window, ack_timeout, retry_count, rnr_retry, min_rnr_timer, max_rd_atomic, ack_every, rx_rate, host_bandwidth, pfc_watchdog, doorbell_latency, doorbell_cost, wqe_fetch_latency, dma_latency, tx_pkt_latency, rx_pkt_latency, max_inline, grh, vlarb, rto_low, rto_high, cc, ibcc, dcqcn, hpcc, timely, dctcp, nscc, tcp, uet, cm, apm, overlay`},
		// hca.overlay: each refusal at its key, naming what is allowed.
		{"overlay on InfiniBand", `topology: {kind: star, hosts: 2}
switch: {link_layer: infiniband}
hca: {overlay: {encap: vxlan, vni: 1}}
`,
			`t.yaml:3:16: hca.overlay: an overlay tunnels IP: it goes with hca.transport: iwarp (eRDMA's) or rocev2 over Ethernet; these links are InfiniBand, whose packets are routed by LID, not tunnelled (drop hca.overlay, or switch.link_layer)`},
		{"overlay on RoCEv1", `topology: {kind: star, hosts: 2}
hca: {transport: rocev1, overlay: {encap: geneve, vni: 1}}
`,
			`t.yaml:2:35: hca.overlay: an overlay tunnels IP: it goes with hca.transport: iwarp (eRDMA's) or rocev2; a RoCEv1 frame (EtherType 0x8915) has no IP header (drop hca.overlay, or set hca.transport)`},
		{"overlay encapsulation unknown", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: nvgre, vni: 1}}
`,
			`t.yaml:2:24: hca.overlay.encap: unknown value nvgre; expected one of vxlan, geneve`},
		{"overlay without its VNI", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: vxlan}}
`,
			`t.yaml:2:7: hca.overlay: missing key vni`},
		{"overlay VNI past 24 bits", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: vxlan, vni: 16777216}}
`,
			`t.yaml:2:36: hca.overlay.vni: 16777216 is out of range; expected 0..16777215`},
		{"VXLAN has no options", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: vxlan, vni: 1, options: 8}}
`,
			`t.yaml:2:48: hca.overlay.options: options are Geneve's TLVs (RFC 8926 §3.5); vxlan's header has none: drop options, or set encap: geneve`},
		{"Geneve options in whole words", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: geneve, vni: 1, options: 6}}
`,
			`t.yaml:2:49: hca.overlay.options: Geneve's options are whole 4-byte words (RFC 8926 §3.4: Opt Len counts them): 6 is not a multiple of 4`},
		{"outer source port neither hash nor a port", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: vxlan, vni: 1, source_port: hsah}}
`,
			`t.yaml:2:52: hca.overlay.source_port: expected hash or a UDP port 1..65535, found "hsah" (did you mean hash?)`},
		{"outer source port out of range", `topology: {kind: star, hosts: 2}
hca: {overlay: {encap: vxlan, vni: 1, source_port: 0}}
`,
			`t.yaml:2:52: hca.overlay.source_port: 0 is out of range; expected 1..65535`},
		{"overlay frame past the underlay MTU", `topology: {kind: star, hosts: 2}
hca: {transport: iwarp, overlay: {encap: vxlan, vni: 1, underlay_mtu: 1500}}
`,
			`t.yaml:2:71: hca.overlay.underlay_mtu: a full 4096-byte packet in vxlan is a 4210-byte IP packet on the underlay, and underlay_mtu is 1500: tunnel endpoints do not fragment (RFC 7348 §4.3); raise underlay_mtu to 4210 or lower hca.mtu to 1024`},
		// From the review of issue 47 (TestReviewRefusals, case 1: a
		// per-host mtu over a 1500-byte underlay): the underlay_mtu check
		// ran on the top-level hca block only, so a host's own mtu: 4096
		// sent 4,210-byte IP packets on an underlay whose MTU is 1500.
		{"a host's own mtu past the underlay MTU", `topology:
  kind: explicit
  hosts: [{name: h0, hca: {mtu: 4096}}, h1]
  switches: [s0]
  links: [[h0, s0], [h1, s0]]
hca:
  mtu: 1024
  overlay: {encap: vxlan, vni: 5, underlay_mtu: 1500}
`,
			`t.yaml:3:33: topology.hosts[0].hca.mtu: a full 4096-byte packet in vxlan is a 4210-byte IP packet on the underlay, and hca.overlay.underlay_mtu is 1500: tunnel endpoints do not fragment (RFC 7348 §4.3); raise underlay_mtu to 4210 or lower this host's mtu to 1024`},
		{"overlay on one host", `topology: {kind: explicit, hosts: [h0, {name: h1, hca: {overlay: {encap: vxlan, vni: 1}}}], switches: [s0], links: [[h0, s0], [h1, s0]]}
`,
			`t.yaml:1:66: topology.hosts[1].hca.overlay: every adapter of a virtual network encapsulates alike (an adapter outside the overlay cannot reach one inside): set hca.overlay at the top level`},
		{"unknown enum value", `topology: {kind: fat-tre, k: 4}
`,
			`t.yaml:1:18: topology.kind: unknown value fat-tre (did you mean fat-tree?); expected one of star, dumbbell, leaf-spine, fat-tree, ring, rail-optimized, explicit`},
		{"unknown host", `topology: {kind: star, hosts: 9}
traffic:
  - incast: {to: h88, from: [h0, h1], size: 1MiB}
`,
			`t.yaml:3:18: traffic[0].incast.to: unknown host h88 (did you mean h8?); hosts are h0..h8`},
		{"a switch where a host is expected", `topology: {kind: star, hosts: 3}
traffic:
  - flow: {from: s0, to: h1, size: 1MiB}
`,
			`t.yaml:3:18: traffic[0].flow.from: s0 is a switch, not a host; hosts are h0..h2`},
		{"unknown generator", `topology: {kind: star, hosts: 3}
traffic:
  - incats: {to: h0, from: [h1], size: 1MiB}
`,
			`t.yaml:3:5: traffic[0]: unknown generator incats (did you mean incast?); expected one of flow, incast, permutation, all_to_all, perftest, pingpong, ring_allreduce, poisson, asyncwatch, rping, rdma_server, rdma_client, mckey, collective, nccl_tests, job, trace, chakra`},
		{"wrong types", `topology: [star, 9]
switch: {latency: [1us]}
hca: {mtu: large, priority: 3.5}
traffic: {flow: {from: h0, to: h1, size: 1MiB}}
`,
			`t.yaml:1:11: topology: expected a mapping (key: value, ...), found a list
t.yaml:2:19: switch.latency: expected a time such as 500ns or 1.5ms, found a list
t.yaml:3:12: hca.mtu: expected a whole number, found "large"
t.yaml:3:29: hca.priority: expected a whole number, found the number 3.5
t.yaml:4:10: traffic: expected a list, found a mapping`},
		{"missing and wrong units", `topology: {kind: star, hosts: 9, link: {rate: 100, delay: 1 furlong}}
switch: {buffer: 12 MiBs}
`,
			`t.yaml:1:47: topology.link.rate: ` + rateErr("100") + `
t.yaml:1:59: topology.link.delay: ` + timeErr("1 furlong") + `
t.yaml:2:18: switch.buffer: ` + sizeErr("12 MiBs")},
		{"a flow of 1TiB: its limit, not the unit", `topology: {kind: star, hosts: 2}
traffic: [{flow: {from: h0, to: h1, size: 1TiB}}]
`,
			`t.yaml:2:43: traffic[0].flow.size: a flow is at most max_send_wr (128) messages of 1GiB, 128GiB in all, not 1TiB`},
		{"impossible values", `topology: {kind: star, hosts: 3}
hca: {mtu: 1500, priority: 9}
switch:
  pfc: {xoff: 80KiB, xon: 96KiB, priorities: [3, 3]}
  ecn: {kmin: 400KiB, kmax: 100KiB, pmax: 1.5}
`,
			`t.yaml:2:12: hca.mtu: 1500 is not allowed; expected one of 256, 512, 1024, 2048, 4096
t.yaml:2:28: hca.priority: 9 is out of range; expected 0..7
t.yaml:4:27: switch.pfc.xon: xon (96KiB) must not exceed xoff (80KiB)
t.yaml:4:50: switch.pfc.priorities: priority 3 is listed twice
t.yaml:5:15: switch.ecn.kmin: kmin 400KiB is above kmax 100KiB
t.yaml:5:43: switch.ecn.pmax: 1.5 is out of range; expected 0..1 (or 0%..100%)`},
		{"odd fat-tree, flow to itself, size 0, stop at 0", `topology: {kind: fat-tree, k: 5}
stop: {at: 0}
traffic:
  - flow: {from: h0, to: h0, size: 0}
`,
			`t.yaml:1:31: topology.k: a fat-tree needs an even k; 5 is odd
t.yaml:2:12: stop.at: 0 means no time limit, which needs a when: condition; give a time such as 10ms or add when: flows-done
t.yaml:4:36: traffic[0].flow.size: 0 is out of range; expected at least 1`},
		{"flow to itself", `topology: {kind: star, hosts: 3}
traffic:
  - flow: {from: h1, to: h1, size: 1}
  - incast: {to: h2, from: [h0, h2], size: 1}
`,
			`t.yaml:3:26: traffic[0].flow.to: a flow from h1 to itself
t.yaml:4:33: traffic[1].incast.from: a flow from h2 to itself: h2 is the receiver (to:)`},
		{"duplicate keys", `topology: {kind: star, hosts: 3}
switch:
  buffer: 1MiB
  latency: 1us
  buffer: 2MiB
`,
			`t.yaml:5:3: switch: key buffer is given twice (first at line 3)`},
		{"yaml syntax error", `topology: {kind: star, hosts: 3
traffic: []
`,
			`t.yaml:1: invalid YAML: did not find expected ',' or '}'`},
		{"second document", `topology: {kind: star, hosts: 3}
---
topology: {kind: star, hosts: 4}
`,
			`t.yaml:2:1: a second YAML document starts here; a scenario file holds one (remove the ---)`},
		{"empty file", ``,
			`t.yaml:1:1: the file is empty; a scenario needs at least topology: and traffic:`},
		{"explicit: duplicate names, undeclared nodes, bad links", `topology:
  kind: explicit
  hosts: [a, b, a]
  switches: [s1, s2]
  links:
    - [a, s1]
    - [b, s4]
    - [s1, s1]
    - [a, b]
    - [s2, s1, a]
`,
			`t.yaml:3:17: topology.hosts[2]: node a is declared twice (first at column 11)
t.yaml:7:11: topology.links[1]: unknown node s4; nodes are a, b, s1, s2
t.yaml:8:7: topology.links[2]: a link from s1 to itself
t.yaml:9:7: topology.links[3]: a link between two hosts, a and b; hosts connect to switches
t.yaml:10:7: topology.links[4]: a link is [a, b] or {a: x, b: y, rate: ..., delay: ...}; this list has 3 items`},
		{"explicit: a host with two links", `topology:
  kind: explicit
  hosts: [a, b]
  switches: [s1, s2]
  links: [[a, s1], [b, s1], [s1, s2], [s2, a], [a, s1]]
`,
			`t.yaml:5:39: topology.links[3]: a second link for host a, which is linked to s1 already; a host has one port, p0 (a second port, for APM's alternate path, is InfiniBand's: switch.link_layer: infiniband)
t.yaml:5:48: topology.links[4]: a second link for host a, which is linked to s1 already; a host has one port, p0 (a second port, for APM's alternate path, is InfiniBand's: switch.link_layer: infiniband)`},
		{"explicit: not connected", `topology:
  kind: explicit
  hosts: [a, b]
  switches: [s1, s2, s3]
  links: [[a, s1], [b, s2], [s2, s3]]
`,
			`t.yaml:3:14: topology: the topology is not connected: b, s2, s3 cannot be reached from a`},
		{"explicit: node without links", `topology:
  kind: explicit
  hosts: [a, b]
  switches: [s1, s9]
  links: [[a, s1], [b, s1]]
`,
			`t.yaml:4:18: topology: switch s9 has no links`},
		{"explicit route through a non-neighbour", `topology:
  kind: explicit
  hosts: [a, b, c]
  switches: [s1, s2, s3]
  links: [[a, s1], [b, s2], [c, s3], [s1, s2], [s2, s3]]
  routes:
    s1: {c: s3}
    a: {c: s1}
    s2: {s3: s3, d: s3}
`,
			`t.yaml:7:13: topology.routes.s1.c: s3 is not a neighbour of s1; s1's neighbours are a, s2
t.yaml:8:5: topology.routes: a is a host; routes are pinned at switches (switches are s1..s3)
t.yaml:9:10: topology.routes.s2: s3 is a switch; a route's destination is a host (hosts are a, b, c)
t.yaml:9:18: topology.routes.s2: unknown host d; hosts are a, b, c`},
		{"not modelled yet", `topology: {kind: star, hosts: 3}
stop: {when: [flows-done, deadlock]}
switch:
  forwarding: cut-through
  pfc: {xoff: {alpha: 0.125}, watchdog: {detect: 200us, restore: 1ms, action: drop}}
  ecn: {kmin: 100KiB, kmax: 400KiB, pmax: 0.2}
  scheduler: {dwrr: {0: 1, 3: 4}}
  link_layer: ethernet
subnet_manager: {routing: lash}
hca:
  cc: dcqcn
  dcqcn: {variant: nvidia, rpg_ai_rate: 5Mbps}
  retransmit: selective
  rx_rate: 20Gbps
traffic:
  - flow: {from: h0, to: h1, qp: ud, op: send, size: 64}
  - ring_allreduce: {hosts: all, size: 64MiB}
  - poisson: {hosts: all, load: 50%, sizes: websearch, until: 5ms}
  - perftest: {test: write_bw, from: h0, to: h1, size: 64KiB, iterations: 5000, qps: 1}
  - pingpong: {from: h0, to: h1, qp: ud, size: 64, iterations: 100}
faults:
  - {at: 1ms, link: [s0, h2], action: down}
expect: {deadlock: true}
`,
			`t.yaml:9:1: subnet_manager: a subnet manager is InfiniBand's; this scenario's links are Ethernet (switch.link_layer: infiniband makes them InfiniBand; topology.routing routes Ethernet)`},
		{"ports", `topology: {kind: star, hosts: 3}
traffic: [{flow: {from: h0, to: h1, size: 1}}]
observe:
  links: [s0:p8, s0->h7, s0:q1, s1:p0, s0->h1]
  flows: [0, 3]
expect:
  max_pause_fraction: [{port: s0, value: 20%}, {port: h0:p0, value: 2}]
  flows_completed: 2
`,
			`t.yaml:4:11: observe.links[0]: s0 has no port p8; its ports are p0..p2
t.yaml:4:18: observe.links[1]: s0 has no port facing h7; its neighbours are h0..h2
t.yaml:4:26: observe.links[2]: s0:q1 is not a port; a port is written node:pN (s0:p8) or node->peer (s0->h8)
t.yaml:4:33: observe.links[3]: unknown node s1; nodes are s0, h0..h2
t.yaml:5:14: observe.flows: flow 3 does not exist; the only flow is 0
t.yaml:7:31: expect.max_pause_fraction[0].port: s0 is a switch, not a port; a port is written node:pN (s0:p8) or node->peer (s0->h8)
t.yaml:7:69: expect.max_pause_fraction[1].value: 2 is out of range; expected 0..1 (or 0%..100%)
t.yaml:8:20: expect.flows_completed: 2 is more than the number of flows (1)`},
		{"slow link", `topology: {kind: star, hosts: 3}
faults:
  - {at: 0, link: [s0, h1], action: slow-link, rate: 25Gbps, from: h2}
  - {at: 0, link: [s0, h1], action: slow-link}
  - {at: 0, link: [s0, h1], action: slow-link, rate: fast}
  - {at: 0, link: [s0, h1], action: down, from: s0}
`,
			`t.yaml:3:68: faults[0].from: from names the end of the link whose sending is slowed: s0 or h1, not h2
t.yaml:4:5: faults[1]: action: slow-link needs rate: (the link's new rate, such as 25Gbps)
t.yaml:5:54: faults[2].rate: expected a rate such as 25Gbps, found "fast"
t.yaml:6:43: faults[3].from: action: down does not take from:; it takes link, until, convergence`},
		{"limits", `topology: {kind: leaf-spine, leaves: 1000, spines: 2, hosts_per_leaf: 1000}
`,
			`t.yaml:1:1: topology: this topology would have 1000000 hosts; at most 100000 are supported`},
		{"fat-tree too large", `topology: {kind: fat-tree, k: 66}
`,
			`t.yaml:1:31: topology.k: 66 is too large; the largest fat-tree supported has k = 64`},
		{"name and seed", `name: a/b
seed: -1
topology: {kind: star, hosts: 2}
`,
			`t.yaml:1:7: name: "a/b" is not a valid name: use letters, digits, '.', '_' and '-', starting with a letter or digit (it names the output folder)
t.yaml:2:7: seed: expected a whole number from 0 to 18446744073709551615, found the number -1`},
		{"merge and alias errors", `defaults: &d {rate: 100}
topology: {kind: star, hosts: 2, link: {<<: *d, delay: 1us}}
`,
			`t.yaml:1:1: unknown top-level key defaults (did you mean faults?); allowed keys are name, description, seed, stop, topology, switch, subnet_manager, hca, traffic, faults, observe, expect (and x-... keys, for anchors)
t.yaml:1:21: topology.link.rate: ` + rateErr("100")},
		{"text where a number is expected", `topology: {kind: star, hosts: nine}
`,
			`t.yaml:1:31: topology.hosts: expected a whole number, found "nine"`},
		{"missing keys", `topology: {hosts: 3}
traffic:
  - flow: {from: h0, size: 1}
`,
			`t.yaml:1:1: topology: missing key kind (one of star, dumbbell, leaf-spine, fat-tree, ring, rail-optimized, explicit)
t.yaml:3:5: traffic[0].flow: missing key to`},
		{"missing key of a kind", `topology:
  kind: leaf-spine
  leaves: 2
  hosts_per_leaf: 2
`,
			`t.yaml:1:1: topology: missing key spines for kind leaf-spine`},
		{"host lists", `topology: {kind: star, hosts: 4}
traffic:
  - all_to_all: {hosts: [h0, h1, h0], size: 1}
  - permutation: {hosts: [h3], size: 1}
  - incast: {to: h0, from: h1, size: 1}
observe: {pcap: [h9, s0, s0:p1]}
`,
			`t.yaml:3:34: traffic[0].all_to_all.hosts: h0 is listed twice (first at column 26)
t.yaml:4:26: traffic[1].permutation.hosts: permutation needs at least 2 hosts, not 1
t.yaml:5:28: traffic[2].incast.from: expected all or a list of hosts such as [h0, h1], found "h1"
t.yaml:6:18: observe.pcap[0]: unknown node h9; nodes are s0, h0..h3
t.yaml:6:22: observe.pcap[1]: s0 is a switch, not a port; expected a host or a port; a port is written node:pN (s0:p8) or node->peer (s0->h8)`},
		{"keywords with a near miss", `topology: {kind: star, hosts: 2}
stop: {when: flows-dne}
switch: {pfc: {headroom: autox, response: aut}, ecn: of, scheduler: strikt}
hca: {rx_rate: lin}
expect: {flows_completed: al}
`,
			`t.yaml:2:14: stop.when: unknown value flows-dne (did you mean flows-done?); expected one of flows-done, deadlock
t.yaml:3:26: switch.pfc.headroom: expected auto or a size such as 64KiB, found "autox" (did you mean auto?)
t.yaml:3:43: switch.pfc.response: expected auto or a time such as 3us, found "aut" (did you mean auto?)
t.yaml:3:54: switch.ecn: expected off or {kmin: ..., kmax: ..., pmax: ...}, found "of" (did you mean off?)
t.yaml:3:69: switch.scheduler: expected strict, {dwrr: {priority: weight, ...}} or {ets: {traffic class: percent, ...}, strict: [traffic class, ...]}, found "strikt" (did you mean strict?)
t.yaml:4:16: hca.rx_rate: expected line or a rate such as 40Gbps, found "lin" (did you mean line?)
t.yaml:5:27: expect.flows_completed: expected all or a number, found "al" (did you mean all?)`},
		{"merge keys and anchors", `x-link: &l {rate: 100Gbps}
topology: {kind: star, hosts: 2, link: {<<: *l, delay: 1us, rate: 40Gbps, rate: 10Gbps}}
traffic:
  - flow: &f {from: h0, to: h1, size: 1}
  - flow: *f
  - flow: {<<: *f, size: 0}
`,
			`t.yaml:2:75: topology.link: key rate is given twice (first at column 61)
t.yaml:6:26: traffic[2].flow.size: 0 is out of range; expected at least 1`},
		{"an alias that contains itself", `topology: {kind: star, hosts: 2}
hca: &a {<<: *a}
`,
			`t.yaml:2:6: hca: nested too deeply (does an alias or merge key refer to itself?)`},
		{"a merge key that is not a mapping", `topology: {kind: star, hosts: 2}
hca: {<<: 5}
`,
			`t.yaml:2:11: hca: a merge key (<<) takes a mapping or a list of mappings, not the number 5`},
		{"a key that is not a name", `topology: {kind: star, hosts: 2}
hca: {[mtu]: 1024}
`,
			`t.yaml:2:7: hca: a key must be a plain name, not a list`},
		{"a buffer below the reserved minimums and headroom", `topology: {kind: star, hosts: 9}
switch: {buffer: 200KiB, reserved: 30KiB}
`,
			`t.yaml:2:18: switch.buffer: switch s0: the buffer (204800 bytes) is smaller than its reserved minimums (2211840) plus headroom (566046); raise switch.buffer or lower headroom`},
		{"every switch of a fat-tree short of headroom", `topology: {kind: fat-tree, k: 4}
switch: {buffer: 64KiB, pfc: {xoff: 20KiB, xon: 10KiB}}
`,
			`t.yaml:2:18: switch.buffer: switch s0: the buffer (65536 bytes) is smaller than its reserved minimums (0) plus headroom (251576); raise switch.buffer or lower headroom (and 19 more switches with this profile)`},
		{"one switch's own buffer short of headroom", `topology:
  kind: explicit
  hosts: [a, b]
  switches:
    - s1
    - {name: s2, switch: {buffer: 100KiB, pfc: {xoff: 20KiB, xon: 10KiB}}}
  links: [[a, s1], [s1, s2], [s2, b]]
`,
			`t.yaml:6:14: topology.switches[1].switch: switch s2: the buffer (102400 bytes) is smaller than its reserved minimums (0) plus headroom (125788); raise switch.buffer or lower headroom`},
		{"dce_tcp_g not a whole number", `topology: {kind: star, hosts: 2}
hca: {dcqcn: {dce_tcp_g: 1.5}}
`,
			`t.yaml:2:26: hca.dcqcn.dce_tcp_g: dce_tcp_g is a whole number of 1/1024ths from 0 to 1024 (alpha's gain g = (1024 - dce_tcp_g)/1024), not 1.5`},
		{"dce_tcp_g above 1024", `topology: {kind: star, hosts: 2}
hca: {dcqcn: {dce_tcp_g: 1025}}
`,
			`t.yaml:2:26: hca.dcqcn.dce_tcp_g: dce_tcp_g is a whole number of 1/1024ths from 0 to 1024 (alpha's gain g = (1024 - dce_tcp_g)/1024), not 1025`},
		{"initial_alpha_value above 1024", `topology: {kind: star, hosts: 2}
hca: {dcqcn: {initial_alpha_value: 1025}}
`,
			`t.yaml:2:36: hca.dcqcn.initial_alpha_value: initial_alpha_value is in 1/1024ths, at most 1024, not 1025`},
		{"hpcc eta of 0", `topology: {kind: star, hosts: 2}
hca: {hpcc: {eta: 0}}
`,
			`t.yaml:2:19: hca.hpcc.eta: eta must be above 0`},
		{"per-host congestion parameters", `topology: {kind: explicit, hosts: [a, {name: b, hca: {dcqcn: {rpg_ai_rate: 5Mbps}}}], switches: [s1], links: [[a, s1], [b, s1]]}
`,
			`t.yaml:1:55: topology.hosts[1].hca.dcqcn: congestion-control parameters are the same for every host: set them under the top-level hca:, not per host`},
		// Every control's parameters, InfiniBand's too (a per-host
		// hca.ibcc was taken and never read).
		{"per-host ibcc parameters", `topology: {kind: explicit, hosts: [a, {name: b, hca: {ibcc: {ccti_limit: 10}}}], switches: [s1], links: [[a, s1], [b, s1]]}
switch: {link_layer: infiniband}
`,
			`t.yaml:1:55: topology.hosts[1].hca.ibcc: congestion-control parameters are the same for every host: set them under the top-level hca:, not per host`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("loaded without error (warnings %v); want\n%s", s.Warnings, c.want)
			}
			if _, ok := err.(scenario.Errors); !ok {
				t.Errorf("error is a %T, want Errors", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
