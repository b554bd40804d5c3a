package reports

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/lfsim/lfsim/fabric"
)

// iwSegment serializes the TCP payload of the frame f carries (on
// connection c, direction d, its frame inner bytes long) into fb.buf,
// sets tcp's flags and options but the timestamps, and returns the
// segment's sequence offset in its direction, the acknowledgement it
// carries, and whether its connection uses timestamps.
func (fb *frameBuilder) iwSegment(f *CapturedFrame, c *iwConn, d, inner int, tcp *layers.TCP) (seq, ack uint32, ts bool, err error) {
	if err := fb.buf.Clear(); err != nil {
		return 0, 0, false, err
	}
	p := &f.Pkt
	dir, other := &c.dir[d], &c.dir[1-d]
	switch p.Kind {
	case fabric.KindSetup:
		return fb.iwSetupSegment(f, dir, other, inner, tcp)
	case fabric.KindAck:
		if p.Syndrome != fabric.SyndromeTerminate {
			return iwAck(p, dir, other, inner, tcp)
		}
	}
	return fb.iwFPDU(p, dir, other, inner, tcp)
}

// iwExtras infers what a segment carries beyond its bare frame (base
// bytes, without timestamps or a CRC, unpadded) from its frame (inner
// bytes): TCP's timestamps (12 bytes) and MPA's CRC (4). A frame
// Ethernet padded to 64 bytes carries neither.
func iwExtras(inner, base int) (crc, ts bool) {
	extra := inner - base
	if extra < 0 || base < fabric.MinFrameBytes && inner <= fabric.MinFrameBytes {
		extra = 0
	}
	return extra == fabric.MPACRCBytes || extra == fabric.MPACRCBytes+fabric.TCPTimestampBytes, extra >= fabric.TCPTimestampBytes
}

// iwSetupSegment is iwSegment's for a set-up segment.
func (fb *frameBuilder) iwSetupSegment(f *CapturedFrame, dir, other *iwDir, inner int, tcp *layers.TCP) (seq, ack uint32, ts bool, err error) {
	p := &f.Pkt
	step := p.Step()
	key := iwKey{iwSetup, int64(step)}
	bare := fabric.SetupFrame(step, fabric.MPA{}, false, false, 0, 0)
	switch step {
	case fabric.StepSYN, fabric.StepSYNACK:
		o := p.SynOptions()
		tcp.SYN, tcp.ACK = true, step == fabric.StepSYNACK
		tcp.Window = uint16(min(o.Window, 0xFFFF))
		tcp.Options = synOptions(o, uint32(f.TimeNs/1000), other.tsval)
		dir.win = uint16(min(o.Window>>o.Shift, 0xFFFF))
		if o.Timestamp {
			dir.tsval = uint32(f.TimeNs / 1000)
		}
		return 0, other.isn + 1, false, nil
	case fabric.StepMPARequest, fabric.StepMPAReply:
		m := p.MPAStart()
		l := &mpaStart{reply: step == fabric.StepMPAReply, m: m, private: p.Data()}
		if err := l.SerializeTo(fb.buf, fixLengths); err != nil {
			return 0, 0, false, err
		}
		_, ts = iwExtras(inner, bare+len(fb.buf.Bytes()))
		tcp.PSH = true
		s := dir.seg(key, uint32(len(fb.buf.Bytes())), ddpHeader{})
		ack = other.isn + 1
		if step == fabric.StepMPAReply {
			ack = other.end(iwKey{iwSetup, int64(fabric.StepMPARequest)})
		}
		return s.seq, ack, ts, nil
	case fabric.StepRTR, fabric.StepRTRResponse:
		h := ddpHeader{tagged: step == fabric.StepRTRResponse, last: true, opcode: rdmapOpReadResponse}
		var rr gopacket.SerializableLayer
		prev := fabric.StepMPAReply
		if step == fabric.StepRTR {
			h.opcode, h.qn, prev = rdmapOpReadRequest, ddpQueueRead, fabric.StepMPAReply
			rr = &rdmapReadRequest{} // zero length, no buffer: iw_cxgb4's RTR
		} else {
			prev = fabric.StepRTR
		}
		if s, ok := dir.segs[key]; ok {
			h = s.ddp
		} else if step == fabric.StepRTR {
			dir.readMSN++
			h.msn = dir.readMSN
		}
		op := fabric.OpReadRequest
		if h.tagged {
			op = fabric.OpReadResponseOnly
		}
		crc, t := iwExtras(inner, fabric.IWARPFrame(op, 0, fabric.MPA{}, false))
		if err := fb.fpdu(crc, &h, rr, nil); err != nil {
			return 0, 0, false, err
		}
		tcp.PSH = true
		s := dir.seg(key, uint32(len(fb.buf.Bytes())), h)
		return s.seq, other.end(iwKey{iwSetup, int64(prev)}), t, nil
	case fabric.StepACK:
		_, ts = iwExtras(inner, bare)
		return dir.next, other.isn + 1, ts, nil
	case fabric.StepRTRAck:
		_, ts = iwExtras(inner, bare)
		return dir.next, other.end(iwKey{iwSetup, int64(fabric.StepRTRResponse)}), ts, nil
	case fabric.StepFIN, fabric.StepFINACK:
		_, ts = iwExtras(inner, bare)
		tcp.FIN = true
		s := dir.seg(key, 1, ddpHeader{})
		return s.seq, other.isn + other.next, ts, nil
	case fabric.StepRST:
		tcp.RST = true
		return dir.next, other.isn + other.next, false, nil
	}
	_, ts = iwExtras(inner, bare) // the last ACK
	return dir.next, other.isn + other.next, ts, nil
}

// synOptions are a SYN's or SYN-ACK's options, as Linux's TCP writes
// them (fabric.TCPSynOptionBytes): MSS; SACK-permitted and timestamps
// (tsval, and ecr on a SYN-ACK), or two NOPs in place of the first;
// NOP, window scale.
func synOptions(o fabric.SynOptions, tsval, ecr uint32) []layers.TCPOption {
	out := []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionData: []byte{byte(o.MSS >> 8), byte(o.MSS)}}}
	sackOK := layers.TCPOption{OptionType: layers.TCPOptionKindSACKPermitted}
	switch {
	case o.Timestamp && o.SACK:
		out = append(out, sackOK, layers.TCPOption{OptionType: layers.TCPOptionKindTimestamps, OptionData: be32s(tsval, ecr)})
	case o.Timestamp:
		out = append(out, nop, nop, layers.TCPOption{OptionType: layers.TCPOptionKindTimestamps, OptionData: be32s(tsval, ecr)})
	case o.SACK:
		out = append(out, nop, nop, sackOK)
	}
	return append(out, nop, layers.TCPOption{OptionType: layers.TCPOptionKindWindowScale, OptionData: []byte{o.Shift}})
}

// iwAck is iwSegment's for a pure ACK: cumulative to the end of the
// last segment it covers (a request by PSN, or a READ Response by its
// stream's number, TSeq), with a SACK block for the segment it reports
// past a gap.
func iwAck(p *fabric.Packet, dir, other *iwDir, inner int, tcp *layers.TCP) (seq, ack uint32, ts bool, err error) {
	key := iwKey{iwRequest, other.psn(p.PSN)}
	sackKey := iwKey{iwRequest, other.psn(p.SackPSN())}
	if p.TSeq() != 0 {
		key, sackKey = iwKey{iwResponse, int64(p.TSeq()) - 1}, iwKey{iwResponse, int64(p.SackPSN())}
	}
	ack = other.end(key)
	_, ts = iwExtras(inner, fabric.TCPAckFrame(false, p.SACK()))
	if p.SACK() {
		left, right := ack, ack
		if s, ok := other.segs[sackKey]; ok {
			left = other.isn + s.seq
			right = left + s.n
		}
		tcp.Options = append(tcp.Options, nop, nop, layers.TCPOption{OptionType: layers.TCPOptionKindSACK, OptionData: be32s(left, right)})
	}
	tcp.ECE = p.ECE > 0
	return dir.next, ack, ts, nil
}

// iwFPDU is iwSegment's for a segment that carries an FPDU: a request
// (SEND, RDMA WRITE, RDMA READ Request), a READ Response, or RDMAP's
// Terminate.
func (fb *frameBuilder) iwFPDU(p *fabric.Packet, dir, other *iwDir, inner int, tcp *layers.TCP) (seq, ack uint32, ts bool, err error) {
	op := p.Opcode.Operation()
	n := int64(p.Payload)
	term := p.Kind == fabric.KindAck // a Terminate (iwSegment)
	if term {
		op, n = fabric.OpSendOnly, fabric.IWARPTerminatePayload
	}
	crc, ts := iwExtras(inner, fabric.IWARPFrame(fabric.TransportRC|op, int(n), fabric.MPA{}, false))
	response := op >= fabric.OpReadResponseFirst && op <= fabric.OpReadResponseOnly
	var key iwKey
	switch {
	case term:
		key = iwKey{iwSetup, -1} // one Terminate a connection
	case response:
		key = iwKey{iwResponse, int64(p.TSeq())}
	default:
		psn := dir.psn(p.PSN)
		dir.hiPSN = max(dir.hiPSN, psn)
		key = iwKey{iwRequest, psn}
	}
	s, seen := dir.segs[key]
	h := s.ddp
	var rdmap gopacket.SerializableLayer
	switch {
	case term:
		if !seen {
			h = ddpHeader{last: true, opcode: rdmapOpTerminate, qn: ddpQueueTerminate, msn: 1}
		}
		rdmap = &rdmapTerminate{segLen: fabric.DDPUntaggedBytes, ddp: ddpHeader{last: true, opcode: rdmapOpSend, qn: ddpQueueSend, msn: other.sendMSN}}
		n = 0
	case op == fabric.OpReadRequest:
		if !seen {
			dir.readMSN++
			h = ddpHeader{last: true, opcode: rdmapOpReadRequest, qn: ddpQueueRead, msn: dir.readMSN}
			dir.reads = append(dir.reads, iwMsg{psn: key.n})
			if len(dir.reads) > 256 {
				dir.reads = dir.reads[1:]
			}
		}
		rdmap = &rdmapReadRequest{size: p.DMALen, sourceSTag: p.RKey, sourceTO: p.VA}
	case !seen:
		h = iwDDP(p, op, key.n, n, dir, other)
	}
	if err := fb.fpdu(crc, &h, rdmap, payloadOf(p, n, &fb.payload)); err != nil {
		return 0, 0, false, err
	}
	s = dir.seg(key, uint32(len(fb.buf.Bytes())), h)
	tcp.PSH = h.last
	return s.seq, 0, ts, nil
}

// iwDDP is the DDP header of a request or READ Response first seen: its
// message's fields, from its first segment's or its READ Request's.
func iwDDP(p *fabric.Packet, op fabric.Opcode, psn, n int64, dir, other *iwDir) ddpHeader {
	switch op {
	case fabric.OpWriteFirst, fabric.OpWriteOnly, fabric.OpWriteOnlyImm:
		dir.write = iwMsg{psn: psn, mtu: n, stag: p.RKey, to: p.VA}
		return ddpHeader{tagged: true, last: op != fabric.OpWriteFirst, opcode: rdmapOpWrite, stag: p.RKey, to: p.VA}
	case fabric.OpWriteMiddle, fabric.OpWriteLast, fabric.OpWriteLastImm:
		w := dir.write
		return ddpHeader{tagged: true, last: op != fabric.OpWriteMiddle, opcode: rdmapOpWrite, stag: w.stag, to: w.to + uint64((psn-w.psn)*w.mtu)}
	case fabric.OpReadResponseFirst, fabric.OpReadResponseMiddle, fabric.OpReadResponseLast, fabric.OpReadResponseOnly:
		// The READ Request it answers: the latest the other way whose
		// PSN is not past its own.
		rpsn := other.psn(p.PSN)
		var r *iwMsg
		for i := len(other.reads) - 1; i >= 0; i-- {
			if other.reads[i].psn <= rpsn {
				r = &other.reads[i]
				break
			}
		}
		to := uint64(0)
		if r != nil {
			if r.mtu == 0 || op == fabric.OpReadResponseFirst || op == fabric.OpReadResponseOnly {
				r.mtu = max(r.mtu, n)
			}
			to = uint64((rpsn - r.psn) * r.mtu)
		}
		return ddpHeader{tagged: true, last: op == fabric.OpReadResponseLast || op == fabric.OpReadResponseOnly, opcode: rdmapOpReadResponse, to: to}
	}
	// A SEND's segment (RDMAP's Send, or Send with SE on the segment
	// that carries the solicited event).
	code := uint8(rdmapOpSend)
	if p.SE {
		code = rdmapOpSendSE
	}
	first := op == fabric.OpSendFirst || op == fabric.OpSendOnly || op == fabric.OpSendOnlyImm
	if first {
		dir.sendMSN++
		dir.send = iwMsg{psn: psn, mtu: n, msn: dir.sendMSN}
	}
	m := dir.send
	last := op != fabric.OpSendFirst && op != fabric.OpSendMiddle
	return ddpHeader{last: last, opcode: code, qn: ddpQueueSend, msn: m.msn, mo: uint32((psn - m.psn) * m.mtu)}
}

// fpdu serializes an FPDU into fb.buf: payload, the RDMAP header (if
// any), the DDP header, MPA's framing (with a CRC when crc).
func (fb *frameBuilder) fpdu(crc bool, h *ddpHeader, rdmap gopacket.SerializableLayer, payload []byte) error {
	if err := fb.buf.Clear(); err != nil {
		return err
	}
	ls := []gopacket.SerializableLayer{h}
	if rdmap != nil {
		ls = append(ls, rdmap)
	}
	ls = append(ls, gopacket.Payload(payload))
	for i := len(ls) - 1; i >= 0; i-- {
		if err := ls[i].SerializeTo(fb.buf, fixLengths); err != nil {
			return err
		}
	}
	return (&mpaFPDU{crc: crc}).SerializeTo(fb.buf, fixLengths)
}

// payloadOf is p's n bytes of payload: its data, or zeros where only
// sizes move, in buf's room.
func payloadOf(p *fabric.Packet, n int64, buf *[]byte) []byte {
	b := (*buf)[:0]
	data := p.Data()
	if int64(len(data)) > n {
		data = data[:n]
	}
	b = append(b, data...)
	for int64(len(b)) < n {
		b = append(b, 0)
	}
	*buf = b
	return b
}
