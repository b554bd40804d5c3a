package assembly

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
)

// TestMckeyInfiniBandCredits: issue 45's crash. InfiniBand mckey with VL
// buffers of a few datagrams, where a switch's copies of a datagram wait
// in its input buffer beside the datagrams behind it: the audit's star
// (6 hosts, mckey to 5 receivers, 50 × 2 KiB) and k=8 fat tree (every
// host a receiver: more receivers than a switch has ports), three groups
// at once from three senders (one on VL 1), a receiver that drains
// slowly, and one whose link is cut during the transfers. Each copy used
// to be charged to the input buffer again, which then held more than it
// had (5 copies of 34 blocks in a buffer of 128): it granted credit it
// did not have, or took some back (the FCCL it advertised moved
// backwards, so the sender's credit read as some 4,000 blocks), and
// every case crashed ("h0:p0 sends a packet without credit", "s0:p0
// received more than its buffer's credit") at any worker count. A
// datagram now holds its input buffer once, until its last copy has left.
//
// Every receiver gets every message (credits lose nothing, and each
// posted its RECVs before the sender's pause ended), but the one whose
// link is cut, which gets some and never the rest (the copies queued for
// it and those that come after are dropped as link_down; mckey waits for
// ever, so that run stops at its time); the switches make receivers − 1
// copies per message (one tree, each link once); the run balances; no
// switch input ever held more than its VL buffer, and none holds anything
// at the end; 2 workers write the same bytes as one.
func TestMckeyInfiniBandCredits(t *testing.T) {
	all := make([]string, 0, 127)
	for i := 1; i < 128; i++ {
		all = append(all, fmt.Sprintf("h%d", i))
	}
	type group struct{ receivers, count int }
	const slow = "faults:\n  - {at: 0, host: h5, action: slow-receiver, rate: 20Gbps}\n"
	for _, c := range []struct {
		name   string
		src    string
		buffer int64 // vl_buffer, bytes
		groups []group
		// full is the datagrams s0's port from h0 holds at its peak (0:
		// not checked); cut, that h5's link is cut during the transfers
		// (it is the first group's last receiver).
		full int64
		cut  bool
	}{
		{name: "star-5-receivers", buffer: 16 << 10, groups: []group{{5, 50}},
			src: "topology: {kind: star, hosts: 6}\nswitch: {link_layer: infiniband, ib: {vl_buffer: 16KiB}}\ntraffic:\n" +
				"  - mckey: {sender: h0, receivers: [h1, h2, h3, h4, h5], count: 50, size: 2KiB}\n"},
		{name: "k8-127-receivers", buffer: 8 << 10, groups: []group{{127, 50}},
			src: "topology: {kind: fat-tree, k: 8}\nswitch: {link_layer: infiniband, ib: {vl_buffer: 8KiB}}\ntraffic:\n" +
				"  - mckey: {sender: h0, receivers: [" + strings.Join(all, ", ") + "], count: 50, size: 2KiB}\n"},
		{name: "star-3-groups", buffer: 8 << 10, groups: []group{{5, 50}, {5, 40}, {3, 30}},
			src: "topology: {kind: star, hosts: 6}\nswitch: {link_layer: infiniband, ib: {vl_buffer: 8KiB}}\ntraffic:\n" +
				"  - mckey: {sender: h0, receivers: [h1, h2, h3, h4, h5], count: 50, size: 2KiB}\n" +
				"  - mckey: {sender: h3, receivers: [h0, h1, h2, h4, h5], count: 40, size: 2KiB, priority: 1}\n" +
				"  - mckey: {sender: h5, receivers: [h0, h2, h4], count: 30, size: 2KiB}\n"},
		// h5 drains at a fifth of the line rate: its credits hold back
		// s0's copies to it, whose datagrams fill s0's input from h0,
		// which then waits for credit. The input holds 7 datagrams at
		// most: 7 × 34 blocks of 64 bytes fit its 256, 8 do not.
		{name: "star-slow-receiver", buffer: 16 << 10, groups: []group{{5, 50}}, full: 7,
			src: "topology: {kind: star, hosts: 6}\nswitch: {link_layer: infiniband, ib: {vl_buffer: 16KiB}}\ntraffic:\n" +
				"  - mckey: {sender: h0, receivers: [h1, h2, h3, h4, h5], count: 50, size: 2KiB}\n" + slow},
		// The same, h5's link cut 10 us into the transfers (they start
		// after mckey's 3 s pause): the copies queued for it are dropped,
		// each freeing the input buffer only if it is its datagram's last.
		{name: "star-cut-receiver", buffer: 16 << 10, groups: []group{{5, 50}}, cut: true,
			src: "topology: {kind: star, hosts: 6}\nswitch: {link_layer: infiniband, ib: {vl_buffer: 16KiB}}\ntraffic:\n" +
				"  - mckey: {sender: h0, receivers: [h1, h2, h3, h4, h5], count: 50, size: 2KiB}\n" + slow +
				"  - {at: 3000010us, link: [s0, h5], action: down}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "stop: {at: 4s, when: flows-done}\n" + c.src
			want, n := runFiles(t, src, 1)
			var sent, delivered, lost int64
			for gi, g := range c.groups {
				m := n.Tests[gi].Mckey
				if len(m.Received) != g.receivers {
					t.Fatalf("group %d has %d receivers, want %d", gi, len(m.Received), g.receivers)
				}
				for i, got := range m.Received {
					if c.cut && gi == 0 && i == g.receivers-1 {
						if got == 0 || got == g.count {
							t.Errorf("h5, whose link was cut during the transfers, got %d of %d messages; want some, not all", got, g.count)
						}
						lost = int64(g.count - got)
					} else if got != g.count {
						t.Errorf("group %d's receiver %d got %d of %d messages", gi, i, got, g.count)
					}
				}
				sent += int64(g.count)
				delivered += int64(g.count * g.receivers)
			}
			delivered -= lost
			var sum reports.Summary
			if err := json.Unmarshal(want["summary.json"], &sum); err != nil {
				t.Fatal(err)
			}
			stop := "flows-done"
			if c.cut {
				stop = "time" // h5's mckey waits for ever
			}
			p := sum.Packets
			if sum.StopReason != stop || !sum.Conservation.OK || p.Sent != sent || p.Replicated != delivered+lost-sent || p.Delivered != delivered ||
				p.Dropped != lost || p.DropReasons["link_down"] != lost {
				t.Errorf("stopped by %s, conservation ok %v %v, packets %+v; want %s, ok, %d sent, %d replicated, %d delivered, %d dropped as link_down",
					sum.StopReason, sum.Conservation.OK, sum.Conservation.Errors, p, stop, sent, delivered+lost-sent, delivered, lost)
			}
			if out := string(want["perftest.txt"]); strings.Count(out, "incomplete") != int(min(lost, 1)) {
				t.Errorf("perftest.txt: a receiver did not finish, or the cut one did:\n%s", out)
			}
			for _, sw := range n.Switches {
				if sw == nil {
					continue
				}
				if sw.HeldCopies() != 0 {
					t.Errorf("%s holds %d copies at the end", sw.Name, sw.HeldCopies())
				}
				for i, port := range sw.Ports() {
					for vl := uint8(0); vl < 2; vl++ {
						if peak := sw.PeakIngress(i, vl); peak > c.buffer {
							t.Errorf("%s port %d VL %d held %d bytes at its peak, more than its buffer, %d", sw.Name, i, vl, peak, c.buffer)
						}
						if b := port.BufferedBlocks(vl); b != 0 || sw.IngressBytes(i, vl) != 0 {
							t.Errorf("%s port %d VL %d holds %d blocks (%d bytes) at the end", sw.Name, i, vl, b, sw.IngressBytes(i, vl))
						}
					}
				}
			}
			if c.full > 0 {
				dgram := int64(fabric.IBWire(fabric.TransportUD|fabric.OpSendOnlyImm, 2048, true))
				s0, _ := n.Scenario.Topology.Lookup("s0")
				if peak := n.Switches[s0].PeakIngress(0, 0); peak != c.full*dgram {
					t.Errorf("s0's port from h0 held %d bytes at its peak, want %d datagrams of %d", peak, c.full, dgram)
				}
			}
			got, _ := runFiles(t, src, 2)
			sameFiles(t, "2 workers against one", got, want)
		})
	}
}

// TestMckeyInfiniBandGRHCredit: issue 45's random scenario, seed
// 951554580 (metamorphic/testdata/panic-951554580). On
// InfiniBand a multicast datagram carries a GRH whatever hca.grh says,
// and with an MTU of 256 a 250- or 256-byte datagram is 328 or 334 bytes
// with it, 6 credit blocks of 64, where without it (288 or 294 bytes,
// the MTU's largest packet as the ports took it) it is 5.
// A port marks a VL paused below its owner's largest packet, and the
// HCA's and the switch's transmit arbiters ask for a packet's credit only
// on a paused VL; the largest packet was taken without the GRH, so with
// exactly 5 blocks left (the flow's 1-block ACKs beside the datagrams
// reach it) the VL read as free and the 6-block datagram went without
// credit: "h1:p0 sends a packet without credit" at the sender, and at a
// switch forwarding the copies to a slow receiver beside another flow's
// ACKs, "s0:p0 sends a packet without credit". Each case panicked so;
// a 200-byte datagram (5 blocks with the GRH) did not. Now a host that
// sends multicast counts the GRH in its largest packet, and so the
// switches, which take the network's largest.
//
// The runs stop at 40 us with the datagrams and the flow still going:
// the receiver has datagrams, the run balances, no switch input held
// more than its buffer, and where every link has a delay 2 workers write
// the same bytes as one.
func TestMckeyInfiniBandGRHCredit(t *testing.T) {
	const leafSpine = "topology:\n  kind: leaf-spine\n  leaves: 2\n  spines: 1\n  hosts_per_leaf: 1\n" +
		"  host_link: {rate: 4xHDR, delay: %s}\n  fabric_link: {rate: 1xHDR, delay: 1us}\n" +
		"switch:\n  link_layer: infiniband\nhca:\n  mtu: 256\ntraffic:\n" +
		"  - mckey: {sender: h1, receivers: [h0], count: 10000, size: %d, settle: 1ns}\n" +
		"  - flow: {from: h0, to: h1, size: 256MiB}\n"
	for _, c := range []struct {
		name string
		src  string
		cut  bool // every link has a delay: compare 2 workers
	}{
		{name: "seed-951554580", src: fmt.Sprintf(leafSpine, "0", 256)},
		{name: "host-delay-1ns", src: fmt.Sprintf(leafSpine, "1ns", 256), cut: true},
		{name: "size-250", src: fmt.Sprintf(leafSpine, "1ns", 250), cut: true},
		// s0's port to h0 carries h1's datagrams and h2's ACKs to h0,
		// and h0 drains at a quarter of its line: that port is short of
		// credit, where the switch's arbiter crashed.
		{name: "switch-slow-receiver", cut: true,
			src: "topology: {kind: star, hosts: 3, link: {rate: 4xHDR, delay: 1ns}}\n" +
				"switch: {link_layer: infiniband}\nhca: {mtu: 256}\ntraffic:\n" +
				"  - mckey: {sender: h1, receivers: [h0], count: 10000, size: 256, settle: 1ns}\n" +
				"  - flow: {from: h0, to: h2, size: 256MiB}\n" +
				"faults:\n  - {at: 0, host: h0, action: slow-receiver, rate: 50Gbps}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "stop: {at: 40us}\n" + c.src
			want, n := runFiles(t, src, 1)
			if got := n.Tests[0].Mckey.Received; len(got) != 1 || got[0] == 0 {
				t.Errorf("h0 received %v datagrams; want some", got)
			}
			var sum reports.Summary
			if err := json.Unmarshal(want["summary.json"], &sum); err != nil {
				t.Fatal(err)
			}
			if sum.StopReason != "time" || !sum.Conservation.OK || sum.Packets.Dropped != 0 {
				t.Errorf("stopped by %s, conservation ok %v %v, %d dropped; want time, ok, none", sum.StopReason, sum.Conservation.OK, sum.Conservation.Errors, sum.Packets.Dropped)
			}
			for _, sw := range n.Switches {
				if sw == nil {
					continue
				}
				for i := range sw.Ports() {
					if peak := sw.PeakIngress(i, 0); peak > 64<<10 {
						t.Errorf("%s port %d held %d bytes at its peak, more than its buffer, 64 KiB", sw.Name, i, peak)
					}
				}
			}
			if !c.cut {
				return
			}
			got, _ := runFiles(t, src, 2)
			sameFiles(t, "2 workers against one", got, want)
		})
	}
}
