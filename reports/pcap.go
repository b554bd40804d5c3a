package reports

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/lfsim/lfsim/fabric"
)

// DefaultSnapLen is how many bytes of each frame a pcap keeps unless
// observe.snaplen says otherwise: every byte (FullSnapLen), as tcpdump
// (262144 since 4.0) and Wireshark keep by default and as ibdump always
// does ("Currently no truncating is done", Mellanox/ibdump ibdump.c).
// A shorter snap keeps every header lfsim writes in 128 bytes (the
// largest are a RoCEv2 atomic with HPCC's telemetry, 124 bytes; a RoCEv1
// atomic 98; an InfiniBand one with a GRH 88), but Wireshark's
// InfiniBand dissector checks the LRH's packet length (over RoCE, the
// one it derives from UDP's) against the bytes it has and marks every
// frame cut short "[Malformed Packet]" (tshark 4.0: 1,802 of a RoCEv2
// incast's 1,872 frames at 128 bytes); no snap can keep the headers
// consistent short of rewriting their lengths, which would misreport
// the packets. The frame's real length is recorded beside what is
// kept, as a capture with a snap length does.
const DefaultSnapLen = FullSnapLen

// FullSnapLen is tcpdump's largest snap length, more than any frame.
const FullSnapLen = 262144

// Capture is what one observed port carried, both directions, for
// NAME.pcap.
type Capture struct {
	// Name is the file name without .pcap: the host ("h8") or the port
	// with its colon replaced ("s0_p8").
	Name   string
	Frames []CapturedFrame
	// INT holds the telemetry of the frames that carried HPCC's INT
	// header, as it was when each was sent (CapturedFrame.INT).
	INT []fabric.INTStack
	// Dropped counts frames not kept because the capture was full.
	Dropped int64
	// LIDs are the subnet manager's LIDs (resolve.Scenario.LIDs), which
	// an InfiniBand packet's LRH carries; nil on Ethernet.
	LIDs *fabric.LIDs
	// Transport is the hosts' transport (hca.transport): iWARP's
	// packets are written as TCP segments (pcap_iwarp.go), the others'
	// as RoCE or InfiniBand frames.
	Transport fabric.Transport
}

// CapturedFrame is one frame as its first bit went on the wire: a copy
// of the packet, and the transmitting and receiving ports, which give the
// MAC addresses.
type CapturedFrame struct {
	TimeNs         int64
	TxNode, RxNode fabric.NodeID
	TxPort, RxPort int
	// Pkt is the packet as sent, its INT pointer cleared (the stack is
	// the pool's, reused once the packet is gone): INT, when not 0, is
	// one past the index of its telemetry in Capture.INT.
	Pkt fabric.Packet
	INT int32
}

// PortMAC is the MAC address lfsim gives port of node: locally
// administered, 02:NN:NN:NN:PP:PP with the node id and the port number.
func PortMAC(node fabric.NodeID, port int) net.HardwareAddr {
	return net.HardwareAddr{0x02, byte(node >> 16), byte(node >> 8), byte(node), byte(port >> 8), byte(port)}
}

// pfcMAC is the destination of MAC control frames (IEEE 802.1Qbb, 802.3
// annex 31B).
var pfcMAC = net.HardwareAddr{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// DSCP is the DSCP a NIC writes by default for a priority: the class
// selector CSn (8 × priority), which a switch trusting DSCP maps back to
// priority n (hca.Profile.DSCP). A packet carries its own
// (fabric.Packet.DSCP), which captures write.
func DSCP(prio uint8) uint8 { return prio << 3 }

// TrimmedDSCP is the DSCP a capture writes in a trimmed packet's IP
// header (fabric.KindTrimmed), so that a reader can tell it from a short
// packet (ip.dsfield.dscp == 56): CS7, the class selector of the priority
// the switch sends the header on (swtch.TrimPriority), as a switch that
// remarks trimmed packets by its priority-to-DSCP map writes it (NVIDIA
// Cumulus's port-level packet trimming); trimming switches remark the
// DSCP of what they trim (a DSCP configured for it), and UET's own headers
// have no field for it (Wireshark's packet-uet.c knows a trim only from
// the receiver's NACK, code 0x01 "Packet was trimmed").
const TrimmedDSCP = 7 << 3

// ipDSCP is the DSCP packet p's IP header carries in a capture.
func ipDSCP(p *fabric.Packet) uint8 {
	if p.Kind == fabric.KindTrimmed {
		return TrimmedDSCP
	}
	return p.DSCP
}

// PcapFile renders a capture as a pcap file with nanosecond timestamps
// (simulated time since 0) and link type Ethernet; each frame keeps at
// most snapLen bytes.
func PcapFile(c *Capture, snapLen int) ([]byte, error) {
	var out bytes.Buffer
	if err := WritePcap(&out, c, snapLen); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// WritePcap writes PcapFile's bytes to out as it makes them, so that a
// capture of whole frames is never held whole in memory.
func WritePcap(out io.Writer, c *Capture, snapLen int) error {
	if snapLen <= 0 {
		snapLen = DefaultSnapLen
	}
	w := pcapgo.NewWriterNanos(out)
	link := layers.LinkTypeEthernet
	if len(c.Frames) > 0 && c.Frames[0].Pkt.Link == fabric.InfiniBand {
		// As ibdump writes InfiniBand: ERF records (erf.go).
		link = linkTypeERF
	}
	if err := w.WriteFileHeader(uint32(snapLen), link); err != nil {
		return err
	}
	fb := frameBuilder{lids: c.LIDs, iwarp: c.Transport == fabric.IWARP}
	for i := range c.Frames {
		f := &c.Frames[i]
		var tel *fabric.INTStack
		if f.INT > 0 {
			tel = &c.INT[f.INT-1]
		}
		frame, err := fb.build(f, tel)
		if err != nil {
			return err
		}
		keep := frame
		if len(keep) > snapLen {
			keep = keep[:snapLen]
		}
		ci := gopacket.CaptureInfo{
			Timestamp:     timeOf(f.TimeNs),
			CaptureLength: len(keep),
			Length:        len(frame),
		}
		if err := w.WritePacket(ci, keep); err != nil {
			return err
		}
	}
	return nil
}

// frameBuilder turns captured packets into frame bytes, reusing its
// buffers.
type frameBuilder struct {
	buf     gopacket.SerializeBuffer
	payload []byte
	// outer is an overlay's outer frame (pcap_overlay.go).
	outer gopacket.SerializeBuffer
	// lids are the subnet manager's, for InfiniBand packets' LRH (nil:
	// NodeID + 1, LMC 0).
	lids *fabric.LIDs
	// iwarp: the frames are iWARP's, whose TCP connections iw follows
	// (pcap_iwarp.go).
	iwarp bool
	iw    iwConns
}

var (
	fixLengths = gopacket.SerializeOptions{FixLengths: true}
	fixAll     = gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
)

// build returns the whole frame, destination MAC to FCS; tel is the
// frame's INT telemetry, or nil.
func (fb *frameBuilder) build(f *CapturedFrame, tel *fabric.INTStack) ([]byte, error) {
	if fb.buf == nil {
		fb.buf = gopacket.NewSerializeBuffer()
	}
	p := &f.Pkt
	if p.Link == fabric.InfiniBand {
		return fb.buildIB(f, tel), nil
	}
	if p.Kind != fabric.KindPause && fb.iwarp {
		return fb.buildIWARP(f)
	}
	if p.Kind != fabric.KindPause && isRoCEv1(p) {
		return fb.buildRoCEv1(f, tel)
	}
	eth := &layers.Ethernet{SrcMAC: PortMAC(f.TxNode, f.TxPort), DstMAC: PortMAC(f.RxNode, f.RxPort)}
	if err := fb.buf.Clear(); err != nil {
		return nil, err
	}
	if p.Kind == fabric.KindPause {
		// MAC control: opcode 0x0101, the class-enable vector, eight
		// pause times in quanta.
		body := make([]byte, 20)
		binary.BigEndian.PutUint16(body[0:], fabric.PFCOpcode)
		binary.BigEndian.PutUint16(body[2:], uint16(p.PauseEnable))
		for i, q := range p.PauseQuanta() {
			binary.BigEndian.PutUint16(body[4+2*i:], q)
		}
		eth.DstMAC = pfcMAC
		eth.EthernetType = fabric.EtherTypeMACControl
		if err := gopacket.SerializeLayers(fb.buf, fixLengths, eth, gopacket.Payload(body)); err != nil {
			return nil, err
		}
		return appendFCS(fb.buf.Bytes()), nil
	}
	eth.EthernetType = layers.EthernetTypeIPv4
	if d := p.Flow.DstIP; fabric.IsMulticastIP(d) {
		// An IPv4 multicast group's MAC (RFC 1112 §6.4): 01:00:5e and
		// the address's low 23 bits.
		eth.DstMAC = net.HardwareAddr{0x01, 0x00, 0x5e, byte(d >> 16 & 0x7f), byte(d >> 8), byte(d)}
	}
	o := p.Overlay()
	srcPort, ecn := p.Flow.SrcPort, p.ECN
	if o != nil {
		// The inner headers as the sending adapter wrote them: its
		// source port, and ECT(0) where the underlay marked the outer
		// header CE (RFC 6040's normal mode copies it in at the exit).
		srcPort = p.InnerSrcPort()
		if ecn == fabric.CE {
			ecn = fabric.ECT0
		}
	}
	ip := &layers.IPv4{
		Version: 4, IHL: 5, TOS: ipDSCP(p)<<2 | uint8(ecn&3),
		Flags: layers.IPv4DontFragment, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: ipv4(p.Flow.SrcIP), DstIP: ipv4(p.Flow.DstIP),
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(srcPort), DstPort: layers.UDPPort(fabric.RoCEv2Port)}
	// RoCEv2 sends UDP checksum 0 (annex A17.3.1); the ICRC covers the
	// transport.
	fb.payload = appendTransport(fb.payload[:0], p, tel)
	if err := gopacket.Payload(fb.payload).SerializeTo(fb.buf, fixLengths); err != nil {
		return nil, err
	}
	if err := udp.SerializeTo(fb.buf, fixLengths); err != nil {
		return nil, err
	}
	if err := ip.SerializeTo(fb.buf, fixAll); err != nil {
		return nil, err
	}
	if err := eth.SerializeTo(fb.buf, fixLengths); err != nil {
		return nil, err
	}
	frame := fb.buf.Bytes()
	// The ICRC: over the IP packet with its variant fields masked, after
	// eight bytes of 0xFF standing for the masked LRH.
	ipStart := fabric.EthernetHeaderBytes
	ipEnd := ipStart + int(binary.BigEndian.Uint16(frame[ipStart+2:])) // before any Ethernet pad
	icrc := ICRC(frame[ipStart : ipEnd-fabric.ICRCBytes])
	binary.LittleEndian.PutUint32(frame[ipEnd-fabric.ICRCBytes:], icrc)
	if o != nil {
		return fb.encapsulate(f, o, frame)
	}
	return appendFCS(frame), nil
}

// appendTransport appends the BTH, the opcode's extended headers, HPCC's
// INT header when the packet carries one (tel), the payload padded to 4
// bytes, and room for the ICRC.
func appendTransport(b []byte, p *fabric.Packet, tel *fabric.INTStack) []byte {
	op := p.Opcode
	pad := (4 - int(p.Payload)%4) % 4
	if op == fabric.OpCNP {
		pad = 0
	}
	se := byte(0)
	if p.SE {
		se = 0x80
	}
	b = append(b, byte(op), se|byte(pad<<4), 0xFF, 0xFF, 0,
		byte(p.DestQP>>16), byte(p.DestQP>>8), byte(p.DestQP))
	ack := byte(0)
	if p.AckReq {
		ack = 0x80
	}
	b = append(b, ack, byte(p.PSN>>16), byte(p.PSN>>8), byte(p.PSN))
	be32 := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	be64 := func(v uint64) { b = binary.BigEndian.AppendUint64(b, v) }
	if op == fabric.OpCNP {
		b = append(b, make([]byte, fabric.CNPReservedBytes)...)
	} else {
		if op&0xE0 == fabric.TransportUD {
			be32(p.QKey)
			be32(p.SrcQP & 0xFFFFFF)
		}
		switch op.Operation() {
		case fabric.OpWriteFirst, fabric.OpWriteOnly, fabric.OpWriteOnlyImm, fabric.OpReadRequest:
			be64(p.VA)
			be32(p.RKey)
			be32(p.DMALen)
		case fabric.OpCompareSwap, fabric.OpFetchAdd:
			be64(p.VA)
			be32(p.RKey)
			swapAdd, compare, _ := p.Atomic()
			be64(swapAdd)
			be64(compare)
		case fabric.OpReadResponseFirst, fabric.OpReadResponseLast, fabric.OpReadResponseOnly,
			fabric.OpAcknowledge, fabric.OpAtomicAcknowledge:
			be32(uint32(p.Syndrome)<<24 | p.MSN&0xFFFFFF)
			if op.Operation() == fabric.OpAtomicAcknowledge {
				_, _, orig := p.Atomic()
				be64(orig)
			}
		}
		switch op.Operation() {
		case fabric.OpSendLastImm, fabric.OpSendOnlyImm, fabric.OpWriteLastImm, fabric.OpWriteOnlyImm:
			be32(p.Imm())
		}
	}
	if tel != nil {
		b = appendINT(b, tel)
	}
	n := int(p.Payload)
	data := p.Data()
	if len(data) > n {
		data = data[:n]
	}
	b = append(b, data...)
	for i := len(data); i < n+pad; i++ {
		b = append(b, 0)
	}
	return append(b, 0, 0, 0, 0) // the ICRC, filled in once the IP header is known
}

// ICRC computes the RoCEv2 invariant CRC of an IPv4 packet (ip, from the
// IP header to the end of the payload and pad, without the ICRC): CRC-32
// (the Ethernet polynomial, as Go's crc32.ChecksumIEEE computes it) over
// eight bytes of 0xFF (the masked LRH), the IP header with TOS, TTL and
// checksum set to all ones, the UDP header with its checksum all ones,
// the BTH with its reserved byte (FECN, BECN) all ones, and the rest as
// sent (IBTA RoCEv2 annex A17.7; the Linux rxe driver does the same). It
// goes on the wire least significant byte first.
func ICRC(ip []byte) uint32 {
	var masked [8 + fabric.IPv4Bytes + fabric.UDPBytes + fabric.BTHBytes]byte
	for i := 0; i < 8; i++ {
		masked[i] = 0xFF
	}
	h := masked[8:]
	copy(h, ip[:len(h)])
	h[1] = 0xFF                   // TOS: DSCP and ECN
	h[8] = 0xFF                   // TTL
	h[10], h[11] = 0xFF, 0xFF     // header checksum
	h[20+6], h[20+7] = 0xFF, 0xFF // UDP checksum
	h[20+8+4] = 0xFF              // BTH reserved byte: FECN, BECN, resv6
	crc := crc32.Update(0, crc32.IEEETable, masked[:])
	return crc32.Update(crc, crc32.IEEETable, ip[len(h):])
}

// appendFCS appends the Ethernet frame check sequence, least significant
// byte first.
func appendFCS(frame []byte) []byte {
	return binary.LittleEndian.AppendUint32(append([]byte(nil), frame...), crc32.ChecksumIEEE(frame))
}

// timeOf is simulated time as a pcap timestamp: nanoseconds since the
// Unix epoch, which the simulation's time 0 stands for.
func timeOf(ns int64) time.Time { return time.Unix(0, ns).UTC() }

func ipv4(a uint32) net.IP { return net.IPv4(byte(a>>24), byte(a>>16), byte(a>>8), byte(a)).To4() }

// appendINT appends HPCC's INT header as its reference implementation
// lays it out (Li et al., SIGCOMM 2019; the int-header of their ns-3
// code): the hop count in two bytes, then MaxINTHops records of eight
// bytes, each (most significant bits first) the egress link's rate as a
// 3-bit code (25, 50, 100, 200 or 400 Gb/s: 0 to 4), the time it left
// in 24 bits of nanoseconds, the bytes the port had sent in 20 bits of
// 128-byte units, and the queue in 17 bits of 80-byte units, each
// wrapping as the hardware's counters do; unused records are zero. It
// goes after the BTH and its extended headers, before the payload, so
// that Wireshark's RoCE dissector still reads the headers (the INT
// bytes show as the payload's first 42). A frame's length in the
// capture is its length on the wire.
func appendINT(b []byte, tel *fabric.INTStack) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(tel.N))
	for i := 0; i < fabric.MaxINTHops; i++ {
		var rec uint64
		if i < int(tel.N) {
			h := tel.Hops[i]
			rate := uint64(0)
			for code, g := range []fabric.Rate{25, 50, 100, 200, 400} {
				if h.Rate == g*fabric.Gbps {
					rate = uint64(code)
				}
			}
			ts := uint64(h.TS.Nanoseconds()) & (1<<24 - 1)
			tx := uint64(h.TxBytes/128) & (1<<20 - 1)
			q := uint64(h.QLen/80) & (1<<17 - 1)
			rec = rate<<61 | ts<<37 | tx<<17 | q
		}
		b = binary.BigEndian.AppendUint64(b, rec)
	}
	return b
}
