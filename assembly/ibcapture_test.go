package assembly

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
)

// TestIBCaptureLIDs: an InfiniBand capture's LRH carries the LIDs the
// subnet manager gave, the same as lfts.txt's and devinfo's port_lid,
// with the path bits the switches forwarded the packet by (issue 51:
// under LMC 2 a capture showed DLID 5 to a host whose port_lid was 20:
// erf.go wrote NodeID + 1, not the SM's LIDs). A k=4 fat tree with LMC 2
// (blocks of 4 LIDs from (node + 1) × 4) and QPs on two paths: every
// DLID and SLID of h0's capture is in its host's block as lfts.txt
// lists it, its offset is the packet's path bits, and more than one
// path shows. And no flow-control packet is captured, as ibdump shows
// none (observe/capture.go), though the link made some. devinfo's
// sm_lid is the subnet manager's host's LID (it said 0).
func TestIBCaptureLIDs(t *testing.T) {
	net, r := runSource(t, "lmc.yaml", `stop: {at: 200us}
topology: {kind: fat-tree, k: 4, link: {rate: EDR, delay: 100ns}}
switch: {link_layer: infiniband}
subnet_manager: {lmc: 2}
observe: {pcap: [h0]}
traffic:
  - flow: {from: h0, to: h5, size: 16KiB}
  - flow: {from: h0, to: h5, size: 16KiB}
  - flow: {from: h5, to: h0, size: 8KiB, op: read}
`)
	s := net.Scenario
	var lfts strings.Builder
	if err := r.Streamed["lfts.txt"](&lfts); err != nil {
		t.Fatal(err)
	}
	// lfts.txt's entries at the first switch: LID -> the host it names.
	owner := map[uint16]string{}
	for _, m := range regexp.MustCompile(`(?m)^0x([0-9a-f]{4}) \d+ # Channel Adapter portguid 0x[0-9a-f]+: '(h\d+)'`).FindAllStringSubmatch(lfts.String(), -1) {
		lid, _ := strconv.ParseUint(m[1], 16, 16)
		owner[uint16(lid)] = m[2]
	}
	for _, h := range []string{"h0", "h5"} {
		id, _ := s.Topology.Lookup(h)
		base := s.LIDs().Of(id)
		info := s.DevInfo(id, true)
		if !strings.Contains(info, fmt.Sprintf("port_lid:\t\t%d\n", base)) {
			t.Errorf("devinfo's port_lid of %s is not %d", h, base)
		}
		// The subnet manager runs on the first host, h0.
		if sm := s.LIDs().Of(s.Topology.Hosts()[0]); !strings.Contains(info, fmt.Sprintf("sm_lid:\t\t\t%d\n", sm)) {
			t.Errorf("devinfo's sm_lid of %s is not h0's LID %d", h, sm)
		}
		for j := uint16(0); j < 4; j++ {
			if owner[base+j] != h {
				t.Errorf("lfts.txt: LID %d names %q, want %s (base %d)", base+j, owner[base+j], h, base)
			}
		}
	}
	c := r.Captures[0]
	if c.LIDs == nil {
		t.Fatal("the capture has no LIDs")
	}
	data, err := reports.PcapFile(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := pcapgo.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	paths := map[uint16]bool{}
	for i := 0; ; i++ {
		rec, _, err := pr.ReadPacketData()
		if err != nil {
			break
		}
		if rec[8] != 21 {
			t.Fatalf("record %d: ERF type %d; want 21 (InfiniBand) only", i, rec[8])
		}
		f := &c.Frames[i]
		lrh := rec[16:]
		dlid, slid := binary.BigEndian.Uint16(lrh[2:]), binary.BigEndian.Uint16(lrh[6:])
		bits := uint16(f.Pkt.Flow.SrcPort) & 3
		src, dst := s.Topology.Nodes[f.Pkt.Src].Name, s.Topology.Nodes[f.Pkt.Dst].Name
		if owner[dlid] != dst || owner[slid] != src || dlid-s.LIDs().Of(f.Pkt.Dst) != bits || slid-s.LIDs().Of(f.Pkt.Src) != bits {
			t.Errorf("record %d, %s to %s: DLID %d (lfts.txt: %s), SLID %d (%s); path bits %d", i, src, dst, dlid, owner[dlid], slid, owner[slid], bits)
		}
		paths[bits] = true
	}
	if len(paths) < 2 {
		t.Errorf("path bits %v: the QPs took one path; the test needs two", paths)
	}
	for _, f := range c.Frames {
		if f.Pkt.Kind == fabric.KindCredit {
			t.Fatal("a flow-control packet in the capture")
		}
	}
	h0, _ := s.Topology.Lookup("h0")
	port := net.Fabric.Ports[h0][0]
	made, _ := port.FCPackets()
	peerMade, _ := port.Peer().FCPackets()
	if made+peerMade == 0 {
		t.Error("h0's link made no flow-control packet; the test needs some")
	}
}

// TestIBCaptureMulticast: an InfiniBand capture of a multicast group's
// packets (mckey) carries the group's MLID as its DLID, 0xC000 for the
// first group (fabric.MLID), and the sender's LID as its SLID. erf.go
// looked the destination up among the nodes' LIDs before it knew the
// packet was a group's, and a group's NodeID (1<<30 and up) is no node:
// writing the capture panicked (index out of range [1073741824]; found
// by the random-scenario test, seed 7006284).
func TestIBCaptureMulticast(t *testing.T) {
	net, r := runSource(t, "mcast.yaml", `stop: {at: 10us}
topology: {kind: star, hosts: 2, link: {rate: EDR, delay: 0}}
switch: {link_layer: infiniband}
traffic:
  - mckey: {sender: h0, receivers: [h1], settle: 5us, count: 3}
observe: {pcap: [h0]}
`)
	data, err := reports.PcapFile(r.Captures[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := pcapgo.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	h0, _ := net.Scenario.Topology.Lookup("h0")
	groups := 0
	for i := 0; ; i++ {
		rec, _, err := pr.ReadPacketData()
		if err != nil {
			break
		}
		f := &r.Captures[0].Frames[i]
		if !fabric.IsMulticast(f.Pkt.Dst) {
			continue
		}
		groups++
		lrh := rec[16:]
		if dlid, slid := binary.BigEndian.Uint16(lrh[2:]), binary.BigEndian.Uint16(lrh[6:]); dlid != 0xC000 || slid != net.Scenario.LIDs().Of(h0) {
			t.Errorf("record %d: DLID %#x, SLID %d; want the group's 0xc000 and h0's %d", i, dlid, slid, net.Scenario.LIDs().Of(h0))
		}
	}
	if groups == 0 {
		t.Error("no multicast packet in h0's capture; the test needs some")
	}
}
