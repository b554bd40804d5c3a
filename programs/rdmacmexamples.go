package programs

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// RdmaServer and RdmaClient are librdmacm's rdma_server and rdma_client
// (rdma-core's librdmacm/examples/rdma_server.c and rdma_client.c), the
// smallest rdma_cm programs. The server listens on its port; the client
// posts a RECV, connects (REQ, REP, RTU), SENDs 16 bytes inline; the
// server, whose RECV takes them, SENDs 16 bytes back; each side
// disconnects once its last completion is in (the client after the
// server's SEND arrives, the server after its SEND is acknowledged) and
// prints its end line. What they print, from the programs' printf calls:
//
//	rdma_server: start
//	rdma_server: end 0
//
//	rdma_client: start
//	rdma_client: end 0
//
// and, when the client's request is refused (no server listening: a REJ
// with reason 8, invalid service ID) or goes unanswered after the CM's
// retries, the client's perror line before its end:
//
//	rdma_connect: Connection refused
//	rdma_client: end -1
//
// The 16-byte messages are all zeros, as the programs never fill them.
// The server serves one connection and refuses any later one, as the
// program exits after its first.
type RdmaServer struct {
	Port  uint16
	Start sim.Time
	// Lines are what it printed; Done when it ended (0 until then), Ret
	// the value its end line gives.
	Lines []string
	Done  sim.Time
	Ret   int

	h    *hca.HCA
	qp   *hca.QP
	cq   *hca.CQ
	msg  *hca.MR
	conn *cm.Conn
	// established: rdma_accept has returned (it blocks until the RTU);
	// waiting: the client's message came first, and is answered then.
	established, waiting bool
}

// RdmaClient is rdma_client; see RdmaServer.
type RdmaClient struct {
	Port   uint16
	Start  sim.Time
	Lines  []string
	Done   sim.Time
	Ret    int
	Server fabric.NodeID
	// Connected is when rdma_connect returned (ESTABLISHED).
	Connected sim.Time

	h      *hca.HCA
	destIP uint32
	qp     *hca.QP
	cq     *hca.CQ
	msg    *hca.MR
	conn   *cm.Conn
}

// rdmaMsgBytes is the programs' message size (send_msg, recv_msg).
const rdmaMsgBytes = 16

// RdmaServerPort is the programs' default port (-p 7471).
const RdmaServerPort = 7471

// rdmaQP makes the programs' QP: one send and one receive WR, sq_sig_all
// (rdma_create_ep's init_attr), on its own CQ, in INIT (rdma_create_qp),
// with its 16-byte message buffer registered (rdma_reg_msgs).
func rdmaQP(h *hca.HCA, onEvent func(*hca.CQ)) (*hca.QP, *hca.CQ, *hca.MR) {
	pd := h.AllocPD()
	cq := h.CreateCQ(2)
	cq.OnEvent = onEvent
	qp := h.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: pd, SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: 1, SigAll: true})
	must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, Access: hca.AccessLocalWrite}))
	mr := h.RegMR(pd, 2*rdmaMsgBytes, make([]byte, 2*rdmaMsgBytes), hca.AccessLocalWrite)
	return qp, cq, mr
}

// NewRdmaServer starts rdma_server on h at start, listening on port.
func NewRdmaServer(h *hca.HCA, port uint16, start sim.Time) *RdmaServer {
	s := &RdmaServer{Port: port, Start: start, h: h}
	h.Engine().Schedule(start, s, 0, 0, nil)
	return s
}

var (
	_ sim.Handler = (*RdmaServer)(nil)
	_ sim.Handler = (*RdmaClient)(nil)
)

// HandleEvent is the program's start: rdma_listen.
func (s *RdmaServer) HandleEvent(*sim.Event) {
	s.Lines = append(s.Lines, "rdma_server: start")
	err := cm.Of(s.h).Listen(&cm.Listener{Port: s.Port,
		OnRequest: func(c *cm.Conn, _ []byte) *hca.QP {
			if s.qp != nil {
				return nil // rdma_get_request is called once
			}
			s.conn = c
			s.qp, s.cq, s.msg = rdmaQP(s.h, s.completions)
			must(s.h.PostRecv(s.qp, hca.RecvWR{ID: 1, SGL: []hca.SGE{{Addr: s.msg.Addr, Len: rdmaMsgBytes, LKey: s.msg.LKey}}}))
			return s.qp
		},
		OnEvent: func(c *cm.Conn, e cm.Event) {
			if e == cm.EventEstablished && c == s.conn {
				s.established = true
				if s.waiting {
					s.answer()
				}
			}
		}})
	if err != nil {
		s.end(fmt.Sprintf("rdma_listen: %v", err), -1)
	}
}

func (s *RdmaServer) completions(cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		switch {
		case s.Done != 0:
		case wc.Status != hca.WCSuccess:
			s.end(fmt.Sprintf("rdma_get_%s_comp: %s", map[bool]string{true: "recv", false: "send"}[wc.Opcode == hca.WCOpRecv], wc.Status), -1)
		case wc.Opcode == hca.WCOpRecv: // the client's message: answer it, once accepted
			if !s.established {
				s.waiting = true
				continue
			}
			s.answer()
		default: // the answer is acknowledged
			s.conn.Disconnect()
			s.end("", 0)
		}
	}
}

// answer SENDs the server's 16 bytes back (rdma_post_send).
func (s *RdmaServer) answer() {
	s.waiting = false
	_, err := s.h.PostSend(s.qp, hca.SendWR{ID: 2, Op: hca.WRSend, SGL: []hca.SGE{{Addr: s.msg.Addr + rdmaMsgBytes, Len: rdmaMsgBytes, LKey: s.msg.LKey}},
		Inline: true, Signaled: true})
	if err != nil {
		s.end("rdma_post_send: "+err.Error(), -1)
	}
}

func (s *RdmaServer) end(perror string, ret int) {
	if perror != "" {
		s.Lines = append(s.Lines, perror)
	}
	s.Ret, s.Done = ret, s.h.Engine().Now()
	s.Lines = append(s.Lines, fmt.Sprintf("rdma_server: end %d", ret))
}

// NewRdmaClient starts rdma_client on h at start, connecting to the
// server at dest (its address resolved: rdma_getaddrinfo) on port.
func NewRdmaClient(h *hca.HCA, dest fabric.NodeID, destIP uint32, port uint16, start sim.Time) *RdmaClient {
	c := &RdmaClient{Port: port, Start: start, Server: dest, h: h, destIP: destIP}
	h.Engine().Schedule(start, c, 0, 0, nil)
	return c
}

// HandleEvent is the program's start: rdma_create_ep, rdma_reg_msgs,
// rdma_post_recv, rdma_connect.
func (c *RdmaClient) HandleEvent(*sim.Event) {
	c.Lines = append(c.Lines, "rdma_client: start")
	c.qp, c.cq, c.msg = rdmaQP(c.h, c.completions)
	must(c.h.PostRecv(c.qp, hca.RecvWR{ID: 1, SGL: []hca.SGE{{Addr: c.msg.Addr, Len: rdmaMsgBytes, LKey: c.msg.LKey}}}))
	var err error
	c.conn, err = cm.Of(c.h).Connect(c.qp, cm.ConnectParams{Dest: c.Server, DestIP: c.destIP, Port: c.Port,
		OnEvent: func(cc *cm.Conn, e cm.Event) {
			switch e {
			case cm.EventEstablished:
				c.Connected = cc.Established
				_, err := c.h.PostSend(c.qp, hca.SendWR{ID: 2, Op: hca.WRSend, SGL: []hca.SGE{{Addr: c.msg.Addr + rdmaMsgBytes, Len: rdmaMsgBytes, LKey: c.msg.LKey}},
					Inline: true, Signaled: true})
				if err != nil {
					c.end("rdma_post_send: "+err.Error(), -1)
				}
			case cm.EventRejected:
				c.end("rdma_connect: Connection refused", -1)
			case cm.EventUnreachable, cm.EventConnectError:
				c.end("rdma_connect: Connection timed out", -1)
			case cm.EventRouteError:
				// rdma_create_ep resolves the route before it connects.
				c.end("rdma_create_ep: Connection timed out", -1)
			}
		}})
	if err != nil {
		c.end("rdma_connect: "+err.Error(), -1)
	}
}

func (c *RdmaClient) completions(cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		switch {
		case c.Done != 0:
		case wc.Status != hca.WCSuccess:
			c.end(fmt.Sprintf("rdma_get_%s_comp: %s", map[bool]string{true: "recv", false: "send"}[wc.Opcode == hca.WCOpRecv], wc.Status), -1)
		case wc.Opcode == hca.WCOpRecv: // the server's answer: done
			c.conn.Disconnect()
			c.end("", 0)
		}
	}
}

func (c *RdmaClient) end(perror string, ret int) {
	if c.Done != 0 {
		return
	}
	if perror != "" {
		c.Lines = append(c.Lines, perror)
	}
	c.Ret, c.Done = ret, c.h.Engine().Now()
	c.Lines = append(c.Lines, fmt.Sprintf("rdma_client: end %d", ret))
}

// Report is what the program printed.
func (s *RdmaServer) Report() string { return strings.Join(s.Lines, "\n") + "\n" }

// Report is what the program printed.
func (c *RdmaClient) Report() string { return strings.Join(c.Lines, "\n") + "\n" }
