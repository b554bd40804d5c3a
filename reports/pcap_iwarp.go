package reports

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/lfsim/lfsim/fabric"
)

// iWARP's frames as a capture shows them (Capture.Transport iWARP):
// Ethernet, IPv4 and TCP, and in the segment an MPA Request or Reply
// (mpa.go) or an FPDU holding a DDP segment (ddp.go) with RDMAP inside
// (rdmap.go), padded and with its CRC32c; under an overlay, wrapped as
// RoCEv2 is (pcap_overlay.go). Wireshark's MPA dissector decodes FPDUs
// only on a TCP connection whose MPA Request and Reply it has seen
// (packet-iwarp-mpa.c: is_mpa_fpdu): a connection made by rdma_cm
// (connect: cm; hca's iwconn.go) shows them; QPs connected out of band
// (connect: instant) have none, and their segments show as TCP.
//
// lfsim's NIC counts a connection's segments by PSN, not by byte: the
// capture gives each direction of each connection a TCP byte stream. A
// connection is known by its active end (host and QP); each segment
// takes the next sequence numbers of its direction the first time the
// capture sees it (the set-up's by its step, requests by PSN, READ
// Responses by their stream's segment number), and a segment sent again
// takes the same, with the same DDP fields. A pure ACK acknowledges the
// end of the last segment it covers; a data segment carries the last
// acknowledgement its direction sent. Each direction's initial sequence
// number is a hash of the connection's active end. The ports are the
// SYN's (the active end's ephemeral port and the listener's); for a
// connection whose SYN the capture did not see, the active end's QP's
// own (fabric.RoCEv2SourcePort) and 4791, the 5-tuple its requests carry.
// DDP's fields are rebuilt as the NIC would have written them: a
// WRITE's STag and tagged offset from its first segment (its RETH), a
// SEND's MSN and message offset by counting messages, a READ's sink as
// STag 0 at offset 0 (the requester's local buffer is not on lfsim's
// wire), its Responses' offsets from its Request. TCP's window is the
// SYN's receive window scaled (iw_cxgb4's 256 KiB, scale 3, when no SYN
// was seen); timestamps and SACK blocks appear where the connection uses
// them, their values from the simulated times in microseconds.

// iwStream tells apart the segments of a direction: the set-up's (by
// step), requests (by PSN), READ Responses (by their stream's number).
const (
	iwSetup uint8 = iota
	iwRequest
	iwResponse
)

type iwKey struct {
	stream uint8
	n      int64
}

// iwSeg is a segment as first seen: where it lies in its direction's
// stream (offset from the initial sequence number, length), and the DDP
// header it carried.
type iwSeg struct {
	seq, n uint32
	ddp    ddpHeader
}

// iwEnd is a connection's end: a host and its QP.
type iwEnd struct {
	node fabric.NodeID
	qpn  uint32
}

// iwConn is a TCP connection of the capture; dir[0] is the active end's
// direction, dir[1] the passive end's.
type iwConn struct {
	ports [2]uint16 // the active end's, the passive end's
	dir   [2]iwDir
}

// iwDir is one direction of a connection.
type iwDir struct {
	isn   uint32
	next  uint32 // the next sequence offset
	ack   uint32 // the last acknowledgement number sent (absolute)
	win   uint16 // the window field after the SYN
	tsval uint32 // the last timestamp sent
	segs  map[iwKey]iwSeg
	hiPSN int64 // the highest request PSN seen, for the 24-bit wrap (-1: none)
	// What DDP's fields follow: the message counts of the SEND and READ
	// Request queues, the SEND and WRITE in progress, and the READ
	// Requests sent, whose Responses come the other way.
	sendMSN, readMSN uint32
	send, write      iwMsg
	reads            []iwMsg
}

// iwMsg is a message: its first PSN, its segments' payload (the MTU),
// and its DDP fields.
type iwMsg struct {
	psn  int64
	mtu  int64
	msn  uint32
	stag uint32
	to   uint64
}

// iwConns is a capture's connections, by their active end.
type iwConns map[iwEnd]*iwConn

// Defaults for a connection whose SYN the capture did not see:
// iw_cxgb4's receive window, 256 KiB, and its scale.
const iwDefaultWindow = 256 * 1024

func newIWDir(isn uint32, window uint32, shift uint8) iwDir {
	return iwDir{isn: isn, next: 1, win: uint16(min(window>>shift, 0xFFFF)), segs: map[iwKey]iwSeg{}, hiPSN: -1}
}

// conn finds p's connection and the direction it goes (0: from the
// active end), making it if new.
func (t iwConns) conn(p *fabric.Packet) (*iwConn, int) {
	if p.Kind == fabric.KindSetup {
		fromQP, toQP := p.SetupQPs()
		fromPort, toPort := p.SetupPorts()
		client, d, ports := iwEnd{p.Src, fromQP}, 0, [2]uint16{fromPort, toPort}
		if !p.SetupFromActive() {
			client, d, ports = iwEnd{p.Dst, toQP}, 1, [2]uint16{toPort, fromPort}
		}
		c := t[client]
		if c == nil || p.Step() == fabric.StepSYN && c.dir[0].segs[iwKey{iwSetup, int64(fabric.StepSYN)}].n == 0 && c.dir[0].next > 1 {
			c = t.add(client, ports)
		}
		return c, d
	}
	if c := t[iwEnd{p.Src, p.SrcQP}]; c != nil {
		return c, 0
	}
	if c := t[iwEnd{p.Dst, p.DestQP}]; c != nil {
		return c, 1
	}
	// A connection whose set-up the capture did not see: the active end
	// is the one that sends requests and acknowledges READ Responses.
	op := p.Opcode.Operation()
	fromClient := p.Kind == fabric.KindData && !(op >= fabric.OpReadResponseFirst && op <= fabric.OpReadResponseOnly) ||
		p.Kind == fabric.KindAck && p.TSeq() != 0 && p.Syndrome != fabric.SyndromeTerminate
	client, d := iwEnd{p.Src, p.SrcQP}, 0
	if !fromClient {
		client, d = iwEnd{p.Dst, p.DestQP}, 1
	}
	return t.add(client, [2]uint16{fabric.RoCEv2SourcePort(client.qpn), fabric.RoCEv2Port}), d
}

// add makes the connection of active end client on ports.
func (t iwConns) add(client iwEnd, ports [2]uint16) *iwConn {
	h := uint32(client.node)*2654435761 ^ client.qpn*40503
	shift := fabric.WindowShift(iwDefaultWindow)
	c := &iwConn{ports: ports, dir: [2]iwDir{newIWDir(h^0x9E3779B9, iwDefaultWindow, shift), newIWDir(h^0x7F4A7C15, iwDefaultWindow, shift)}}
	t[client] = c
	return c
}

// seg places the segment key of n bytes in direction d's stream: where
// it was first seen, or next.
func (dir *iwDir) seg(key iwKey, n uint32, ddp ddpHeader) iwSeg {
	if s, ok := dir.segs[key]; ok {
		return s
	}
	s := iwSeg{seq: dir.next, n: n, ddp: ddp}
	dir.segs[key] = s
	dir.next += n
	return s
}

// end is the acknowledgement number of everything through key in
// direction d: the end of its segment, or of all seen when the capture
// missed it.
func (dir *iwDir) end(key iwKey) uint32 {
	if s, ok := dir.segs[key]; ok {
		return dir.isn + s.seq + s.n
	}
	return dir.isn + dir.next
}

// psn expands a request's 24-bit PSN against the highest seen.
func (dir *iwDir) psn(wire uint32) int64 {
	if dir.hiPSN < 0 {
		return int64(wire)
	}
	d := (int64(wire) - dir.hiPSN) & (1<<24 - 1)
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return dir.hiPSN + d
}

// buildIWARP returns an iWARP frame, destination MAC to FCS (wrapped in
// its overlay, if any).
func (fb *frameBuilder) buildIWARP(f *CapturedFrame) ([]byte, error) {
	p := &f.Pkt
	if fb.iw == nil {
		fb.iw = iwConns{}
	}
	c, d := fb.iw.conn(p)
	dir, other := &c.dir[d], &c.dir[1-d]
	o := p.Overlay()
	inner := int(p.Frame())
	if o != nil {
		inner = int(p.Wire) - fabric.PreambleIFGBytes - o.Bytes()
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(c.ports[d]), DstPort: layers.TCPPort(c.ports[1-d]), ACK: true, Window: dir.win}
	seq, ack, ts, err := fb.iwSegment(f, c, d, inner, tcp)
	if err != nil {
		return nil, err
	}
	tcp.Seq, tcp.Ack = dir.isn+seq, max(dir.ack, ack)
	if !tcp.ACK {
		tcp.Ack = 0
	} else {
		dir.ack = tcp.Ack
	}
	if ts && !tcp.SYN {
		tsval := uint32(f.TimeNs / 1000)
		ecr := other.tsval
		if p.Kind == fabric.KindAck && p.Echo > 0 {
			ecr = uint32(p.Echo.Nanoseconds() / 1000)
		}
		tcp.Options = append([]layers.TCPOption{nop, nop, {OptionType: layers.TCPOptionKindTimestamps, OptionData: be32s(tsval, ecr)}}, tcp.Options...)
		dir.tsval = tsval
	}
	ecn := p.ECN
	if o != nil && ecn == fabric.CE {
		ecn = fabric.ECT0 // as RoCEv2's (PcapFile's build)
	}
	ip := &layers.IPv4{Version: 4, IHL: 5, TOS: p.DSCP<<2 | uint8(ecn&3), Flags: layers.IPv4DontFragment, TTL: 64,
		Protocol: layers.IPProtocolTCP, SrcIP: ipv4(p.Flow.SrcIP), DstIP: ipv4(p.Flow.DstIP)}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		return nil, err
	}
	eth := &layers.Ethernet{SrcMAC: PortMAC(f.TxNode, f.TxPort), DstMAC: PortMAC(f.RxNode, f.RxPort), EthernetType: layers.EthernetTypeIPv4}
	for _, l := range []gopacket.SerializableLayer{tcp, ip} {
		if err := l.SerializeTo(fb.buf, fixAll); err != nil {
			return nil, err
		}
	}
	if err := eth.SerializeTo(fb.buf, fixLengths); err != nil {
		return nil, err
	}
	frame := fb.buf.Bytes()
	if o != nil {
		return fb.encapsulate(f, o, frame)
	}
	if n := fabric.MinFrameBytes - fabric.FCSBytes; len(frame) < n {
		pad, err := fb.buf.AppendBytes(n - len(frame)) // Ethernet's padding
		if err != nil {
			return nil, err
		}
		clear(pad)
		frame = fb.buf.Bytes()
	}
	return appendFCS(frame), nil
}

var nop = layers.TCPOption{OptionType: layers.TCPOptionKindNop}

func be32s(a, b uint32) []byte {
	return []byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a), byte(b >> 24), byte(b >> 16), byte(b >> 8), byte(b)}
}
