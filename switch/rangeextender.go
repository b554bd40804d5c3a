package swtch

// RangeExtender is an InfiniBand range extender: a two-port device that
// carries InfiniBand between two sites kilometres apart, as NVIDIA's
// MetroX and Obsidian's Longbow do. It is the one switch model with two
// ports and this parameter, not a model of its own:
//
//   - Its local port is an ordinary InfiniBand link partner: it grants
//     credits for its VL buffer (switch.ib.vl_buffer) with 12-bit
//     counters, so the short link to the site's switch runs as any other.
//   - Its long-haul port, to the other extender, grants credit for a deep
//     receive buffer (Buffer, split evenly among the data VLs) with
//     counters wide enough to grant it whole
//     (fabric.Port.EnableLongHaulCredits). The long link's credit round
//     trip is then covered, and it runs at line rate while Buffer per VL
//     exceeds the link's rate times its round trip (1.25 MB for 100 Gb/s
//     over 10 km, 2 × 50 µs) and the quarter of the buffer the receiver
//     may hold back before it grants (fabric/credit.go).
//
// So one long InfiniBand link becomes three links in series, each with
// its own flow control, as Obsidian describes its invention ("InfiniBand
// Range Limitation", Obsidian Research: two devices, each with a local
// area IB port and a wide area port, that "behave like two-port IB
// switches", with "three independent flow control state machines along
// the chain"), and as IBM's long-distance repeater does it (US patent
// 7,233,570, "Long distance repeater for digital information": large VL
// receive buffers in the long-distance ports, credit flow control over
// them, repeaters invisible to subnet management). The MetroX line of
// 2013 was built on SwitchX switch ASICs and spanned 1 to 100 km (The
// Register, 2013-02-11, "Mellanox shoots higher and lower with long-haul
// switches"); MetroX-2 had a pair of 100 Gb/s long-haul uplinks, and
// MetroX-3 takes Quantum-2's 400 Gb/s InfiniBand to 40 km (NVIDIA's
// announcement, as reported by ZDNet China, server.zhiding.cn,
// 2022-11-17). At 400 Gb/s over 40 km
// (200 µs each way) a VL's share must exceed 20 MB to run at line rate.
//
// The subnet manager does not see a MetroX-3 ("The MetroX does not
// respond to any InfiniBand packet, including management datagrams (MAD)
// from the SM ... The SM is not aware of any of the MetroX appliances":
// NVIDIA, MetroX-3 XC user manual, General MetroX Deployment
// Guidelines). Here the extender has no LID, no table in the LFT dump,
// and no HOQ lifetime or FECN marking (nothing configures them).
//
// Not modelled: the extender is still a node of the routing graph, so a
// path through two extenders counts three hops where the real SM counts
// one, which matters only where paths through different numbers of
// extenders tie. MetroX-3 carries the long haul as RoCE over Ethernet (a
// session per pair of long-haul ports, encrypted); that transport's
// framing and retransmission are not modelled: the long link runs at its
// rate with InfiniBand framing, and its flow-control packets are
// InfiniBand's 6 bytes. The device adds the switch's latency (latency:)
// at each end.
type RangeExtender struct {
	// Buffer is the long-haul port's receive buffer, bytes, split evenly
	// among the data VLs; 0: the switch is not a range extender. No
	// default: the vendors publish distances, not buffer sizes, so the
	// scenario gives it (16 MiB, SCENARIO.md's example, gives each of
	// 8 VLs 2 MiB: 100 Gb/s over 10 km at line rate).
	Buffer int64
}
