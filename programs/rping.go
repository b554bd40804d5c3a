package programs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// Rping runs librdmacm's rping (rdma-core's librdmacm/examples/rping.c)
// between a client and a server, over an RC QP. With Cfg.CM the client
// connects as the tool does, with rdma_cm (REQ, REP, RTU to the server's
// port 7174, CM.Connect) from Start, pings once ESTABLISHED, and
// disconnects after the last ping (DREQ, DREP), printing the tool's
// DISCONNECT lines; without it the QPs are connected out of band at
// Start, in no time. Each of Count iterations moves real bytes:
//
//  1. the client fills its start buffer with "rdma-ping-N: " and a
//     rolling run of letters, and SENDs the buffer's address, rkey and
//     size (struct rping_rdma_info, big-endian);
//  2. the server READs that buffer into its own, and SENDs a go-ahead;
//  3. the client SENDs its rdma buffer's address, rkey and size;
//  4. the server WRITEs what it read into that buffer, waits for the
//     WRITE's completion, and SENDs a go-ahead;
//  5. the client compares the two buffers (-V) and prints "ping data: "
//     and the string (-v).
//
// The server prints "server ping data: " and the string after each READ
// (-v).
type Rping struct {
	Cfg RpingConfig
	// Lines are what the two sides print, in the tools' words.
	Client, Server []string
	// Done is when the client ended its last iteration (0 until then);
	// Iters the iterations it completed; Err the client's first failure,
	// ServerErr the server's. Each side reads only its own: in a run cut
	// into partitions the two may be on different workers.
	Done           sim.Time
	Iters          int
	Err, ServerErr string
	// Connected is when the client's connection was made (with CM), and
	// Closed when it saw DISCONNECTED after the last ping.
	Connected, Closed sim.Time
	conn              *cm.Conn

	h   [2]*hca.HCA // client, server
	qp  [2]*hca.QP
	cq  [2]*hca.CQ
	mr  [2]struct{ send, recv, rdma, start *hca.MR } // start: the client's only
	ack int                                          // the client's go-aheads received in this iteration
	// the server's state: what the last advert named
	remote struct {
		addr uint64
		rkey uint32
		size uint32
	}
	serverState  int
	serverClosed bool // the server saw DISCONNECTED
}

// RpingConfig is one rping: -C count, -S size, -v, -V.
type RpingConfig struct {
	Count    int   // -C; at least 1
	Size     int64 // -S; default 64 (rping's), at least the message's prefix
	Verbose  bool  // -v
	Validate bool  // -V
	Priority uint8
	SL       uint8
	Start    sim.Time
	// CM connects with rdma_cm (rping's own way) rather than out of band.
	CM bool
}

// RpingPort is rping's default port (-p 7174).
const RpingPort = 7174

// rpingInfoBytes is struct rping_rdma_info: buf (8), rkey (4), size (4).
const rpingInfoBytes = 16

// Server states: what it waits for.
const (
	rpingReadAdv = iota
	rpingReadDone
	rpingWriteAdv
	rpingWriteDone
)

// NewRping sets up an rping from client to server and starts it at
// c.Start.
func NewRping(client, server *hca.HCA, c RpingConfig) (*Rping, error) {
	if c.Size == 0 {
		c.Size = 64
	}
	if c.Count < 1 {
		return nil, fmt.Errorf("rping needs a count of at least 1 (-C), not %d", c.Count)
	}
	if min := int64(len(fmt.Sprintf("rdma-ping-%d: ", c.Count-1)) + 1); c.Size < min {
		return nil, fmt.Errorf("an rping buffer of %d bytes cannot hold its message; -S must be at least %d", c.Size, min)
	}
	r := &Rping{Cfg: c, h: [2]*hca.HCA{client, server}}
	for i, h := range r.h {
		pd := h.AllocPD()
		r.cq[i] = h.CreateCQ(64)
		side := i
		r.cq[i].OnEvent = func(cq *hca.CQ) { r.event(side, cq) }
		r.qp[i] = h.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: pd, SendCQ: r.cq[i], RecvCQ: r.cq[i], SigAll: true})
		r.qp[i].Priority, r.qp[i].SL = c.Priority, c.SL
		m := &r.mr[i]
		m.send = h.RegMR(pd, rpingInfoBytes, make([]byte, rpingInfoBytes), hca.AccessLocalWrite)
		m.recv = h.RegMR(pd, rpingInfoBytes, make([]byte, rpingInfoBytes), hca.AccessLocalWrite)
		m.rdma = h.RegMR(pd, c.Size, make([]byte, c.Size), hca.AccessLocalWrite|hca.AccessRemoteRead|hca.AccessRemoteWrite)
		if i == 0 {
			m.start = h.RegMR(pd, c.Size, make([]byte, c.Size), hca.AccessLocalWrite|hca.AccessRemoteRead|hca.AccessRemoteWrite)
		}
	}
	if c.CM {
		return r, r.connect()
	}
	for i, h := range r.h {
		// rping's QPs allow remote READ and WRITE (rping_create_qp's
		// qp_access_flags, set by rdma_cm).
		must(h.ModifyQP(r.qp[i], hca.QPAttr{State: hca.QPInit, Access: hca.AccessLocalWrite | hca.AccessRemoteRead | hca.AccessRemoteWrite}))
		if i == 0 {
			h.Connect(r.qp[i], r.h[1-i].ID, r.h[1-i].IP, r.qp[1-i].QPN)
		} else {
			h.Accept(r.qp[i], r.h[1-i].ID, r.h[1-i].IP, r.qp[1-i].QPN) // the server
		}
		r.postRecv(i)
	}
	client.Engine().Schedule(c.Start, r, 0, 0, nil)
	return r, nil
}

// connect has the server listen and the client connect, as rping does
// with rdma_cm: the server posts its RECV before it accepts, the client
// before it connects (rping_setup_buffers), and the client's first ping
// goes at ESTABLISHED.
func (r *Rping) connect() error {
	client, server := r.h[0], r.h[1]
	for i, h := range r.h {
		// rdma_create_qp leaves the QP in INIT, where RECVs may be posted.
		must(h.ModifyQP(r.qp[i], hca.QPAttr{State: hca.QPInit, Access: hca.AccessLocalWrite | hca.AccessRemoteRead | hca.AccessRemoteWrite}))
		r.postRecv(i)
	}
	err := cm.Of(server).Listen(&cm.Listener{Port: RpingPort,
		OnRequest: func(*cm.Conn, []byte) *hca.QP { return r.qp[1] },
		OnEvent: func(_ *cm.Conn, e cm.Event) {
			if e == cm.EventDisconnected {
				// The server's loop, waiting for the next advert, sees
				// the state DISCONNECTED (10) and ends: what its QP's
				// flush completes after is not looked at.
				r.serverClosed = true
				r.Server = append(r.Server, "server DISCONNECT EVENT...", fmt.Sprintf("wait for RDMA_READ_ADV state %d", cm.EventDisconnected))
			}
		}})
	if err != nil {
		return err
	}
	r.conn, err = cm.Of(client).Connect(r.qp[0], cm.ConnectParams{Dest: server.ID, DestIP: server.IP, Port: RpingPort, At: r.Cfg.Start,
		OnEvent: func(c *cm.Conn, e cm.Event) {
			switch e {
			case cm.EventEstablished:
				r.Connected = c.Established
				r.clientIteration()
			case cm.EventDisconnected:
				r.Closed = client.Engine().Now()
				r.Client = append(r.Client, "client DISCONNECT EVENT...")
			case cm.EventRejected:
				r.fail(0, fmt.Sprintf("cma event %s, error %d", e, c.Reason))
			case cm.EventUnreachable, cm.EventConnectError, cm.EventRouteError:
				r.fail(0, fmt.Sprintf("cma event %s, error %d", e, -110))
			}
		}})
	return err
}

// HandleEvent starts the client's first iteration.
func (r *Rping) HandleEvent(*sim.Event) { r.clientIteration() }

var _ sim.Handler = (*Rping)(nil)

func (r *Rping) postRecv(i int) {
	m := r.mr[i].recv
	must(r.h[i].PostRecv(r.qp[i], hca.RecvWR{ID: 1, SGL: []hca.SGE{{Addr: m.Addr, Len: rpingInfoBytes, LKey: m.LKey}}}))
}

// sendInfo SENDs side i's advert of buf (rping_format_send), or with buf
// nil the server's go-ahead (its send buffer, unformatted).
func (r *Rping) sendInfo(i int, buf *hca.MR) {
	s := r.mr[i].send
	if buf != nil {
		binary.BigEndian.PutUint64(s.Buf[0:], buf.Addr)
		binary.BigEndian.PutUint32(s.Buf[8:], buf.RKey)
		binary.BigEndian.PutUint32(s.Buf[12:], uint32(r.Cfg.Size))
	}
	if _, err := r.h[i].PostSend(r.qp[i], hca.SendWR{ID: 2, Op: hca.WRSend, SGL: []hca.SGE{{Addr: s.Addr, Len: rpingInfoBytes, LKey: s.LKey}}, Signaled: true}); err != nil {
		r.fail(i, "post send error "+err.Error())
	}
}

// clientIteration starts iteration r.Iters: the start buffer's text and
// its advert.
func (r *Rping) clientIteration() {
	buf := r.mr[0].start.Buf
	n := copy(buf, fmt.Sprintf("rdma-ping-%d: ", r.Iters))
	c := byte(65 + r.Iters%58) // rping's start letter: 'A' on, one more each ping, back to 'A' after 'z'
	for i := n; i < len(buf); i++ {
		buf[i] = c
		if c++; c > 122 {
			c = 65
		}
	}
	buf[len(buf)-1] = 0
	r.ack = 0
	r.sendInfo(0, r.mr[0].start)
}

// fail records side i's first failure; the side stops there.
func (r *Rping) fail(i int, msg string) {
	e := &r.Err
	if i == 1 {
		e = &r.ServerErr
	}
	if *e == "" {
		*e = msg
	}
}

// Failed reports whether either side failed.
func (r *Rping) Failed() bool { return r.Err != "" || r.ServerErr != "" }

// event handles side i's completions.
func (r *Rping) event(i int, cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		if i == 0 && (r.Err != "" || r.Done != 0) || i == 1 && (r.ServerErr != "" || r.serverClosed) {
			continue
		}
		if wc.Status != hca.WCSuccess {
			r.fail(i, fmt.Sprintf("cq completion failed status %d (%s, wr %d, side %d)", wc.Status, wc.Status, wc.WRID, i))
			continue
		}
		if i == 0 {
			r.clientCompletion(wc)
		} else {
			r.serverCompletion(wc)
		}
	}
}

func (r *Rping) clientCompletion(wc hca.WC) {
	if wc.Opcode != hca.WCOpRecv {
		return // its SENDs
	}
	r.postRecv(0)
	r.ack++
	if r.ack == 1 { // RDMA_WRITE_ADV: the server has read; advertise the sink
		r.sendInfo(0, r.mr[0].rdma)
		return
	}
	// RDMA_WRITE_COMPLETE: the server wrote the data back.
	start, got := r.mr[0].start.Buf, r.mr[0].rdma.Buf
	if r.Cfg.Validate && !bytes.Equal(start, got) {
		r.fail(0, "data mismatch!")
		return
	}
	if r.Cfg.Verbose {
		r.Client = append(r.Client, "ping data: "+cstring(got))
	}
	r.Iters++
	if r.Iters == r.Cfg.Count {
		r.Done = r.h[0].Engine().Now()
		if r.conn != nil {
			r.conn.Disconnect()
		}
		return
	}
	r.clientIteration()
}

func (r *Rping) serverCompletion(wc hca.WC) {
	m := &r.mr[1]
	switch {
	case wc.Opcode == hca.WCOpRecv:
		info := m.recv.Buf
		r.remote.addr = binary.BigEndian.Uint64(info[0:])
		r.remote.rkey = binary.BigEndian.Uint32(info[8:])
		r.remote.size = binary.BigEndian.Uint32(info[12:])
		r.postRecv(1)
		switch r.serverState {
		case rpingReadAdv: // issue the RDMA READ
			r.serverState = rpingReadDone
			r.rdma(hca.WRRead, int64(r.remote.size))
		case rpingWriteAdv: // RDMA WRITE the echo data
			r.serverState = rpingWriteDone
			r.rdma(hca.WRWrite, int64(len(cstring(m.rdma.Buf))+1))
		default:
			r.fail(1, fmt.Sprintf("wait for RDMA_READ_ADV state %d", r.serverState))
		}
	case wc.Opcode == hca.WCOpRead && r.serverState == rpingReadDone:
		if r.Cfg.Verbose {
			r.Server = append(r.Server, "server ping data: "+cstring(m.rdma.Buf))
		}
		r.serverState = rpingWriteAdv
		r.sendInfo(1, nil) // tell the client to continue
	case wc.Opcode == hca.WCOpWrite && r.serverState == rpingWriteDone:
		r.serverState = rpingReadAdv
		r.sendInfo(1, nil) // tell the client to begin again
	}
}

// rdma posts the server's READ from, or WRITE to, the advertised buffer.
func (r *Rping) rdma(op hca.WROpcode, n int64) {
	m := r.mr[1].rdma
	if _, err := r.h[1].PostSend(r.qp[1], hca.SendWR{ID: 3, Op: op, SGL: []hca.SGE{{Addr: m.Addr, Len: n, LKey: m.LKey}},
		RemoteAddr: r.remote.addr, RKey: r.remote.rkey, Signaled: true}); err != nil {
		r.fail(1, "post send error "+err.Error())
	}
}

// cstring is b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// Report is what each side printed, under a comment naming it.
func (r *Rping) Report() string {
	var b strings.Builder
	for i, role := range []string{"client", "server"} {
		fmt.Fprintf(&b, "# %s (%s): rping -%c -C %d -S %d%s\n", r.h[i].Name, role, role[0], r.Cfg.Count, r.Cfg.Size, map[bool]string{true: " -v", false: ""}[r.Cfg.Verbose]+map[bool]string{true: " -V", false: ""}[r.Cfg.Validate])
		lines := r.Client
		if i == 1 {
			lines = r.Server
		}
		for _, l := range lines {
			fmt.Fprintln(&b, l)
		}
		if i == 0 {
			switch {
			case r.Err != "":
				fmt.Fprintln(&b, r.Err)
			case r.Done == 0:
				fmt.Fprintf(&b, "incomplete: %d of %d pings when the run stopped\n", r.Iters, r.Cfg.Count)
			}
		} else if r.ServerErr != "" {
			fmt.Fprintln(&b, r.ServerErr)
		}
	}
	return b.String()
}
