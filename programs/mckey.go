package programs

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// Mckey is librdmacm's mckey (rdma-core's librdmacm/examples/mckey.c):
// one sender (mckey -s, "client") and receivers ("server") join a
// multicast group with rdma_join_multicast; each receiver posts Count
// RECVs; after the tool's pause for the switches to learn the group
// (sleep(3): Settle) the sender posts Count SEND with immediate of Size
// bytes (unsignaled, the immediate its QP number) to the group, and
// each receiver waits until it has Count completions. The fabric's
// switches copy each datagram along the group's tree
// (fabric.MulticastTree), so the sender sends each message once.
//
// What each prints, from the program's printf calls (RoCE: the group's
// GID is its IPv4-mapped address, its MLID 0; InfiniBand: the MGID
// rdma_cm makes of the address, ff12:401b:ffff::ef01:101 for 239.1.1.1,
// and the MLID the SM gave the group, 0xc000 for the first):
//
//	mckey: starting client
//	mckey: joining
//	mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0
//	initiating data transfers
//	data transfers complete
//	test complete
//	return status 0
//
// and a receiver "starting server" and "receiving data transfers" in
// their places. A receiver that loses a message never completes, as the
// tool waits for ever; lfsim's report says how many it received.
type Mckey struct {
	Cfg MckeyConfig
	// Lines are what each host printed: the sender's first, then each
	// receiver's in Cfg order; Received what each receiver took.
	Lines    [][]string
	Received []int
	// Finished is when each receiver had all its messages (0 until
	// then): each receiver's own, since in a run cut into partitions the
	// receivers may be on different workers (Done is the last).
	Finished []sim.Time

	h  []*hca.HCA // sender, receivers
	qp []*hca.QP
}

// Done is when the last receiver had all its messages (0 until every
// one has).
func (m *Mckey) Done() sim.Time {
	var t sim.Time
	for _, f := range m.Finished {
		if f == 0 {
			return 0
		}
		t = max(t, f)
	}
	return t
}

// mckeyHost is one host's part of the program, its events on the
// host's own engine: the join (kind 0) and the end of the pause (kind
// 1), which for the sender is the transfers.
type mckeyHost struct {
	m *Mckey
	i int
}

func (x mckeyHost) HandleEvent(ev *sim.Event) { x.m.step(x.i, ev.Kind) }

var _ sim.Handler = mckeyHost{}

// MckeyConfig is one mckey run: -m group, -C count, -S size. NewMckey
// takes it as it is: each field is what the run uses, 0 included (the
// tool's defaults are MckeyCount, MckeySize and MckeySettle, for a caller
// to fill in what its user did not give).
type MckeyConfig struct {
	Group   fabric.NodeID // the group's NodeID (fabric.MulticastGroup)
	GroupIP uint32        // its IPv4 address, 239.x.y.z
	Count   int           // -C, messages; at least 1
	Size    int64         // -S, bytes; at least 1, at most the MTU
	// Settle is the pause between the join and the transfers: the tool's
	// sleep(3), "to give SM chance to configure switches", which the tool
	// has no option for. 0 is no pause: the sender posts its SENDs when
	// it joins, at Start.
	Settle   sim.Time
	Start    sim.Time
	Priority uint8
	SL       uint8
}

// mckey's defaults (rdma-core's librdmacm/examples/mckey.c: message_count
// 10, message_size 100, and run()'s sleep(3) before the transfers).
const (
	MckeyCount  = 10
	MckeySize   = 100
	MckeySettle = 3 * sim.Second
)

// mckeyQKey is the Q_Key rdma_cm gives UD QPs of the UDP port space
// (librdmacm's RDMA_UDP_QKEY).
const mckeyQKey = 0x01234567

// NewMckey sets up mckey on sender and receivers, its QPs attached to
// the group, and starts it at c.Start. The group's tree must be in the
// switches' tables (the joins are not timed). c is taken as it is: no
// field stands for a default.
func NewMckey(sender *hca.HCA, receivers []*hca.HCA, c MckeyConfig) (*Mckey, error) {
	switch {
	case c.Count < 1:
		return nil, fmt.Errorf("mckey: message_count %d; at least 1", c.Count)
	case c.Size < 1:
		return nil, fmt.Errorf("mckey: message_size %d; at least 1", c.Size)
	case c.Settle < 0:
		return nil, fmt.Errorf("mckey: settle %s is negative", c.Settle)
	}
	if c.Size > int64(sender.Prof.MTU) {
		return nil, fmt.Errorf("mckey: message_size %d is larger than active mtu %d", c.Size, sender.Prof.MTU)
	}
	m := &Mckey{Cfg: c, h: append([]*hca.HCA{sender}, receivers...), Received: make([]int, len(receivers)), Finished: make([]sim.Time, len(receivers))}
	m.Lines = make([][]string, len(m.h))
	for i, h := range m.h {
		pd := h.AllocPD()
		cq := h.CreateCQ(2 * c.Count)
		side := i
		cq.OnEvent = func(cq *hca.CQ) { m.completions(side, cq) }
		qp := h.CreateQPWith(hca.QPCaps{Type: hca.UD, PD: pd, SendCQ: cq, RecvCQ: cq, MaxSend: c.Count, MaxRecv: c.Count})
		qp.Priority, qp.SL = c.Priority, c.SL
		must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, QKey: mckeyQKey}))
		must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR}))
		must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS}))
		if err := h.AttachMcast(qp, c.Group); err != nil {
			return nil, err
		}
		m.qp = append(m.qp, qp)
	}
	for i, h := range m.h {
		h.Engine().Schedule(c.Start, mckeyHost{m, i}, 0, 0, nil)
		h.Engine().Schedule(c.Start+c.Settle, mckeyHost{m, i}, 1, 0, nil)
	}
	return m, nil
}

// step is host i's part of the program's start (kind 0: it joins, and a
// receiver posts its RECVs) or of the end of its pause (kind 1: the
// sender's transfers, a receiver's wait for them).
func (m *Mckey) step(i int, kind int32) {
	c := m.Cfg
	h := m.h[i]
	if kind == 0 {
		ip := fmt.Sprintf("%d.%d.%d.%d", c.GroupIP>>24, c.GroupIP>>16&0xff, c.GroupIP>>8&0xff, c.GroupIP&0xff)
		role := map[bool]string{true: "client", false: "server"}[i == 0]
		joined := fmt.Sprintf("mckey: joined dgid: ::ffff:%s mlid 0x0 sl %d", ip, c.SL)
		if h.Prof.LinkLayer == fabric.InfiniBand {
			// The group's MGID and the MLID the SM gave it.
			joined = fmt.Sprintf("mckey: joined dgid: %s mlid 0x%x sl %d", netip.AddrFrom16(fabric.MGID(c.GroupIP)), fabric.MLID(c.Group), c.SL)
		}
		m.Lines[i] = append(m.Lines[i], "mckey: starting "+role, "mckey: joining", joined)
		if i > 0 {
			for k := 0; k < c.Count; k++ {
				must(h.PostRecv(m.qp[i], hca.RecvWR{ID: uint64(k), Length: c.Size + hca.GRHBytes}))
			}
		}
		return
	}
	if i > 0 {
		m.Lines[i] = append(m.Lines[i], "receiving data transfers")
		return
	}
	s := m.h[0]
	m.Lines[0] = append(m.Lines[0], "initiating data transfers")
	ah := &hca.AH{Dest: c.Group, DestIP: c.GroupIP}
	for k := 0; k < c.Count; k++ {
		_, err := s.PostSend(m.qp[0], hca.SendWR{ID: uint64(k), Op: hca.WRSendImm, Length: c.Size, Imm: m.qp[0].QPN,
			AH: ah, RemoteQPN: fabric.MulticastQPN, RemoteQKey: mckeyQKey})
		must(err)
	}
	m.Lines[0] = append(m.Lines[0], "data transfers complete", "test complete", "return status 0")
}

// completions counts a receiver's messages.
func (m *Mckey) completions(i int, cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		if i == 0 || wc.Opcode != hca.WCOpRecv || wc.Status != hca.WCSuccess {
			continue
		}
		m.Received[i-1]++
		if m.Received[i-1] == m.Cfg.Count {
			m.Lines[i] = append(m.Lines[i], "data transfers complete", "test complete", "return status 0")
			m.Finished[i-1] = m.h[i].Engine().Now()
		}
	}
}

// Report is what each host printed, under a comment naming it, and for
// a receiver still waiting how many messages it has.
func (m *Mckey) Report() string {
	var b strings.Builder
	c := m.Cfg
	ip := fmt.Sprintf("%d.%d.%d.%d", c.GroupIP>>24, c.GroupIP>>16&0xff, c.GroupIP>>8&0xff, c.GroupIP&0xff)
	for i, h := range m.h {
		flag := ""
		if i == 0 {
			flag = " -s"
		}
		fmt.Fprintf(&b, "# %s: mckey -m %s%s -C %d -S %d\n", h.Name, ip, flag, c.Count, c.Size)
		for _, l := range m.Lines[i] {
			fmt.Fprintln(&b, l)
		}
		if i > 0 && m.Received[i-1] < c.Count {
			fmt.Fprintf(&b, "incomplete: %d of %d messages received when the run stopped\n", m.Received[i-1], c.Count)
		}
	}
	return b.String()
}
