package programs

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// Perftest runs one of the perftest tools (linux-rdma/perftest:
// ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw, ib_write_lat,
// ib_read_lat, ib_send_lat, ib_atomic_lat) between two simulated hosts,
// as a verbs program on each: its own PD, MRs, CQs and QPs, driven by
// completions (CQ.OnEvent) and, for write_lat, by polling the last byte
// of its buffer (HCA.OnWrite). It measures what perftest measures, from
// the same timestamps, and Report prints perftest's own table.
//
// Bandwidth tests keep up to TxDepth WRs outstanding per QP (perftest's
// default tx depth, 128), signal one WR in CQMod (default 100) and the
// last, and take a timestamp at every post (tposted) and at every polled
// completion (tcompleted, indexed by completions counted so far), as
// perftest's run_iter_bw does. BW average is size × iterations × QPs
// over tcompleted[last] − tposted[0]; BW peak is the best of
// size / ((tcompleted[j] − tposted[i]) / (j − i + 1)) over i, and j at
// the signaled completions at or after i (print_report_bw; skipped
// above 20000 iterations, as perftest does, and then printed as 0.00).
//
// Latency tests are ping-pong with one outstanding WR: write_lat and
// send_lat bounce a message between the two sides (the client posts,
// the server answers when it sees the message land, the client posts
// again when the answer lands), read_lat and atomic_lat post again when
// the previous completes. The samples are the gaps between consecutive
// posts of the client; the two largest are dropped (LAT_MEASURE_TAIL);
// write_lat and send_lat report half of each (one way), read_lat and
// atomic_lat the whole (print_report_lat). t_stdev is the population
// standard deviation of the kept samples (perftest truncates each term
// to whole microseconds, which prints 0.00 for sub-microsecond spreads;
// lfsim does not).
type Perftest struct {
	Cfg PerftestConfig
	// Done is set when the client's loop ends; End is when.
	Done bool
	End  sim.Time
	// Err is the first error the client met (a failed completion or
	// post, a connection refused), ServerErr the server's; a side stops
	// at its own. Each side reads only its own: in a run cut into
	// partitions the two may be on different workers (Failure is the
	// test's).
	Err, ServerErr string
	// Connected is when the client had every connection, with CM (0
	// before, and without).
	Connected sim.Time
	// Watch, if set, is told of a send_lat's SENDs and completions (a
	// timeline of one iteration: observe.Timeline); other tests do not
	// tell it.
	Watch IterationWatcher

	client, server *hca.HCA
	op             hca.WROpcode
	bw, lat        bool
	inline         bool
	qps            []*ptQP
	tposted        []sim.Time
	tcompleted     []sim.Time
	totS, totC     int
	// latency ping-pong state (one QP)
	scnt, rcnt   int // client: posted, answers seen
	sscnt, srcnt int // server: posted, messages seen
	cwant, swant bool
}

type ptQP struct {
	c, s         *hca.QP
	cmr, smr     *hca.MR
	scnt, ccnt   int // client posts, client completions counted
	cdone, sdone int // polled send completions (latency: SQ slots free again)
}

// PerftestConfig is a perftest run: the test, the transport and the
// command line's -s, -n, -q, -t, -Q and -r.
type PerftestConfig struct {
	// Test is write_bw, read_bw, send_bw, atomic_bw, write_lat,
	// read_lat, send_lat or atomic_lat.
	Test string
	// Type is the connection (-c): RC; UC for write and send; UD for
	// send (a message of at most one MTU).
	Type hca.QPType
	// Size is the message size (-s); 0 takes perftest's default: 65536
	// for bandwidth, 2 for latency, 8 for atomics.
	Size int64
	// Iters is the number of iterations per QP (-n); 0 takes perftest's
	// default: 5000 for write_bw, 1000 otherwise.
	Iters int
	// QPs is the number of QPs (-q, bandwidth tests only); default 1.
	QPs int
	// TxDepth (-t) is the outstanding WRs per QP: 128 for bandwidth, 1
	// for latency. CQMod (-Q) signals one WR in so many (default 100,
	// at most TxDepth). RxDepth (-r) is the RECVs posted per QP for send
	// tests (default 512).
	TxDepth, CQMod, RxDepth int
	// Priority is the 802.1p priority of the QPs.
	Priority uint8
	// SL is the QPs' InfiniBand service level (Priority is its VL).
	SL uint8
	// Start is when both sides start.
	Start sim.Time
	// CM connects the QPs with rdma_cm (perftest -R) from Start, to the
	// server's port 18515, perftest's; the test starts when the client
	// has every connection.
	CM bool
}

// perftest's defaults (perftest_parameters.h: DEF_SIZE_BW, DEF_SIZE_LAT,
// DEF_ITERS, DEF_ITERS_WB, DEF_TX_BW, DEF_TX_LAT, DEF_CQ_MOD,
// DEF_RX_SEND, DEF_INLINE_WRITE, DEF_INLINE_SEND_RC_UC,
// DEF_INLINE_SEND_UD, MIN_ITER).
const (
	perftestSizeBW     = 65536
	perftestSizeLat    = 2
	perftestIters      = 1000
	perftestItersWB    = 5000
	perftestTxBW       = 128
	perftestTxLat      = 1
	perftestCQMod      = 100
	perftestRxSend     = 512
	perftestInlineW    = 220
	perftestInlineS    = 236
	perftestInlineUD   = 188
	PerftestMinIters   = 5
	perftestPeakLimit  = 20000
	perftestMeasureCut = 2 // LAT_MEASURE_TAIL
)

// PerftestTests lists the tests NewPerftest runs.
var PerftestTests = []string{"write_bw", "read_bw", "send_bw", "atomic_bw", "write_lat", "read_lat", "send_lat", "atomic_lat"}

// PerftestDefaults fills in c's zero fields with perftest's defaults.
func PerftestDefaults(c PerftestConfig) PerftestConfig {
	verb, kind, _ := strings.Cut(c.Test, "_")
	bw := kind == "bw"
	if c.Size == 0 {
		switch {
		case verb == "atomic":
			c.Size = 8
		case bw:
			c.Size = perftestSizeBW
		default:
			c.Size = perftestSizeLat
		}
	}
	if c.Iters == 0 {
		c.Iters = perftestIters
		if c.Test == "write_bw" {
			c.Iters = perftestItersWB
		}
	}
	if c.QPs == 0 {
		c.QPs = 1
	}
	if c.TxDepth == 0 {
		c.TxDepth = perftestTxLat
		if bw {
			c.TxDepth = perftestTxBW
		}
	}
	if c.CQMod == 0 {
		c.CQMod = perftestCQMod
		if !bw {
			c.CQMod = 1
		}
	}
	c.CQMod = min(c.CQMod, c.TxDepth)
	if c.RxDepth == 0 {
		c.RxDepth = perftestRxSend
	}
	return c
}

// CheckPerftest says what is wrong with c for hosts whose MTU is mtu, or
// returns nil.
func CheckPerftest(c PerftestConfig, mtu int) error {
	verb, kind, _ := strings.Cut(c.Test, "_")
	known := false
	for _, t := range PerftestTests {
		known = known || t == c.Test
	}
	switch {
	case !known:
		return fmt.Errorf("unknown test %q (one of %s)", c.Test, strings.Join(PerftestTests, ", "))
	case c.Type == hca.UC && (verb == "read" || verb == "atomic"):
		return fmt.Errorf("%s needs RC (UC has no %s)", c.Test, verb)
	case c.Type == hca.UD && verb != "send":
		return fmt.Errorf("%s needs RC%s (UD carries only SEND)", c.Test, map[bool]string{true: " or UC", false: ""}[verb == "write"])
	case c.Type == hca.UD && c.Size > int64(mtu):
		return fmt.Errorf("a UD message is at most one MTU (%d bytes), not %d", mtu, c.Size)
	case verb == "atomic" && c.Size != 8:
		return fmt.Errorf("an atomic is 8 bytes, not %d", c.Size)
	case kind == "lat" && c.QPs > 1:
		return fmt.Errorf("latency tests use one QP, not %d (perftest's -q is for bandwidth tests)", c.QPs)
	case c.Iters < PerftestMinIters:
		return fmt.Errorf("at least %d iterations (perftest's MIN_ITER), not %d", PerftestMinIters, c.Iters)
	}
	return nil
}

// NewPerftest sets up cfg (after PerftestDefaults) between client and
// server and starts it at cfg.Start. The two must be different HCAs on
// one engine.
func NewPerftest(client, server *hca.HCA, cfg PerftestConfig) (*Perftest, error) {
	cfg = PerftestDefaults(cfg)
	if err := CheckPerftest(cfg, client.Prof.MTU); err != nil {
		return nil, err
	}
	verb, kind, _ := strings.Cut(cfg.Test, "_")
	p := &Perftest{Cfg: cfg, client: client, server: server, bw: kind == "bw", lat: kind == "lat"}
	p.op = map[string]hca.WROpcode{"write": hca.WRWrite, "read": hca.WRRead, "send": hca.WRSend, "atomic": hca.WRFetchAdd}[verb]
	limit := map[string]int{"write": perftestInlineW, "send": perftestInlineS}[verb]
	if cfg.Type == hca.UD {
		limit = perftestInlineUD
	}
	p.inline = cfg.Size <= int64(min(limit, client.Prof.MaxInline))
	n := cfg.Iters * cfg.QPs
	p.tposted = make([]sim.Time, n)
	p.tcompleted = make([]sim.Time, n)

	cpd, spd := client.AllocPD(), server.AllocPD()
	depth := cfg.TxDepth*cfg.QPs + cfg.RxDepth*cfg.QPs + 16
	ccq, scq := client.CreateCQ(depth), server.CreateCQ(depth)
	ccq.OnEvent, scq.OnEvent = p.clientCQ, p.serverCQ
	buf := max(cfg.Size, 8)
	for range cfg.QPs {
		q := &ptQP{}
		caps := func(pd *hca.PD, cq *hca.CQ) hca.QPCaps {
			return hca.QPCaps{Type: cfg.Type, PD: pd, SendCQ: cq, RecvCQ: cq, MaxSend: cfg.TxDepth, MaxRecv: cfg.RxDepth}
		}
		q.c, q.s = client.CreateQPWith(caps(cpd, ccq)), server.CreateQPWith(caps(spd, scq))
		q.c.Priority, q.s.Priority = cfg.Priority, cfg.Priority
		q.c.SL, q.s.SL = cfg.SL, cfg.SL
		if cfg.Type == hca.UD {
			for _, x := range []struct {
				h  *hca.HCA
				qp *hca.QP
			}{{client, q.c}, {server, q.s}} {
				must(x.h.ModifyQP(x.qp, hca.QPAttr{State: hca.QPInit}))
				must(x.h.ModifyQP(x.qp, hca.QPAttr{State: hca.QPRTR}))
				must(x.h.ModifyQP(x.qp, hca.QPAttr{State: hca.QPRTS}))
			}
		} else {
			// perftest gives its QPs the remote access its tests need.
			must(client.ModifyQP(q.c, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
			must(server.ModifyQP(q.s, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
			if !cfg.CM {
				client.Connect(q.c, server.ID, server.IP, q.s.QPN)
				server.Accept(q.s, client.ID, client.IP, q.c.QPN)
			}
		}
		q.cmr = client.RegMR(cpd, buf, nil, hca.AccessAll)
		q.smr = server.RegMR(spd, buf, nil, hca.AccessAll)
		p.qps = append(p.qps, q)
	}
	if verb == "send" {
		rsize := cfg.Size
		if cfg.Type == hca.UD {
			rsize += hca.GRHBytes
		}
		for _, q := range p.qps {
			for range cfg.RxDepth {
				must(server.PostRecv(q.s, hca.RecvWR{Length: rsize}))
				if p.lat {
					must(client.PostRecv(q.c, hca.RecvWR{Length: rsize}))
				}
			}
		}
	}
	if verb == "write" && p.lat {
		q := p.qps[0]
		chain := func(h *hca.HCA, qp *hca.QP, f func()) {
			prev := h.OnWrite
			h.OnWrite = func(x *hca.QP, mr *hca.MR, addr uint64, n int64) {
				if x == qp {
					f()
				} else if prev != nil {
					prev(x, mr, addr, n)
				}
			}
		}
		chain(client, q.c, p.clientSaw)
		chain(server, q.s, p.serverSaw)
	}
	if cfg.CM {
		return p, p.connect()
	}
	client.Engine().Schedule(cfg.Start, p, 0, 0, nil)
	return p, nil
}

// PerftestPort is perftest's default port (-p 18515), where its server
// listens with rdma_cm under -R.
const PerftestPort = 18515

// connect is perftest -R: the server listens, the client connects each
// QP with rdma_cm from Start, and the test starts once every connection
// is made (Connected).
func (p *Perftest) connect() error {
	next := 0
	err := cm.Of(p.server).Listen(&cm.Listener{Port: PerftestPort, OnRequest: func(*cm.Conn, []byte) *hca.QP {
		if next == len(p.qps) {
			return nil
		}
		next++
		return p.qps[next-1].s
	}})
	if err != nil {
		return err
	}
	made := 0
	for _, q := range p.qps {
		_, err := cm.Of(p.client).Connect(q.c, cm.ConnectParams{Dest: p.server.ID, DestIP: p.server.IP, Port: PerftestPort, At: p.Cfg.Start,
			OnEvent: func(c *cm.Conn, e cm.Event) {
				switch e {
				case cm.EventEstablished:
					if made++; made == len(p.qps) {
						p.Connected = p.client.Engine().Now()
						p.start()
					}
				case cm.EventRejected, cm.EventUnreachable, cm.EventConnectError, cm.EventRouteError:
					if p.Err == "" {
						p.Err = fmt.Sprintf("rdma_cm: %s", e)
					}
				}
			}})
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *Perftest) wr(q *ptQP, fromServer bool) hca.SendWR {
	wr := hca.SendWR{Op: p.op, Length: p.Cfg.Size, Inline: p.inline && p.op != hca.WRRead && p.op != hca.WRFetchAdd}
	dst := q.smr
	if fromServer {
		dst = q.cmr
	}
	wr.RemoteAddr, wr.RKey = dst.Addr, dst.RKey
	if p.op == hca.WRFetchAdd {
		wr.CompareAdd = 1
	}
	if p.Cfg.Type == hca.UD {
		to, qp := p.server, q.s
		if fromServer {
			to, qp = p.client, q.c
		}
		wr.AH, wr.RemoteQPN, wr.RemoteQKey = &hca.AH{Dest: to.ID, DestIP: to.IP}, qp.QPN, qp.QKey
	}
	return wr
}

// HandleEvent starts the test (its one event).
func (p *Perftest) HandleEvent(*sim.Event) { p.start() }

var _ sim.Handler = (*Perftest)(nil)

func (p *Perftest) start() {
	if p.bw {
		for _, q := range p.qps {
			p.fill(q)
		}
		return
	}
	p.cwant = true
	p.clientPost()
}

func (p *Perftest) fail(format string, args ...any) {
	if p.Err == "" {
		p.Err = fmt.Sprintf(format, args...)
	}
}

func (p *Perftest) failServer(format string, args ...any) {
	if p.ServerErr == "" {
		p.ServerErr = fmt.Sprintf(format, args...)
	}
}

// Failure is the test's error: the client's, or else the server's ("" if
// neither failed).
func (p *Perftest) Failure() string {
	if p.Err != "" {
		return p.Err
	}
	return p.ServerErr
}

// fill posts on q while its tx depth allows (run_iter_bw).
func (p *Perftest) fill(q *ptQP) {
	c := p.Cfg
	for p.Err == "" && q.scnt < c.Iters && q.scnt-q.ccnt < c.TxDepth {
		wr := p.wr(q, false)
		wr.ID = uint64(q.scnt)
		wr.Signaled = q.scnt%c.CQMod == c.CQMod-1 || q.scnt == c.Iters-1
		p.tposted[p.totS] = p.client.Engine().Now()
		if _, err := p.client.PostSend(q.c, wr); err != nil {
			p.fail("post_send: %v", err)
			return
		}
		p.totS++
		q.scnt++
	}
}

func (p *Perftest) qpOf(qpn uint32, client bool) *ptQP {
	for _, q := range p.qps {
		if (client && q.c.QPN == qpn) || (!client && q.s.QPN == qpn) {
			return q
		}
	}
	return nil
}

// clientCQ is the client's completion handler: it polls everything.
func (p *Perftest) clientCQ(cq *hca.CQ) {
	now := p.client.Engine().Now()
	for _, wc := range cq.Poll(cq.Len()) {
		if p.Done || p.Err != "" {
			continue
		}
		if wc.Status != hca.WCSuccess {
			p.fail("client completion %s", wc.Status)
			continue
		}
		q := p.qpOf(wc.QPN, true)
		if wc.Opcode == hca.WCOpRecv {
			must(p.client.PostRecv(q.c, hca.RecvWR{Length: p.recvLen()}))
			if p.Watch != nil && p.lat {
				p.Watch.Received(0, p.rcnt+1, wc.At)
			}
			p.clientSaw()
			continue
		}
		if p.bw {
			k := int(wc.WRID) + 1
			p.totC += k - q.ccnt
			q.ccnt = k
			p.tcompleted[p.totC-1] = now
			if p.totC == len(p.tcompleted) {
				p.finish()
				return
			}
			p.fill(q)
			continue
		}
		q.cdone++
		if p.op == hca.WRRead || p.op == hca.WRFetchAdd {
			p.clientSaw()
		} else {
			p.clientPost()
		}
	}
}

func (p *Perftest) recvLen() int64 {
	if p.Cfg.Type == hca.UD {
		return p.Cfg.Size + hca.GRHBytes
	}
	return p.Cfg.Size
}

// serverCQ is the server's: RECVs are reposted; in send_lat a RECV is
// the cue to answer.
func (p *Perftest) serverCQ(cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		if p.ServerErr != "" {
			continue
		}
		if wc.Status != hca.WCSuccess {
			p.failServer("server completion %s", wc.Status)
			continue
		}
		q := p.qpOf(wc.QPN, false)
		if wc.Opcode == hca.WCOpRecv {
			must(p.server.PostRecv(q.s, hca.RecvWR{Length: p.recvLen()}))
			if p.lat {
				if p.Watch != nil {
					p.Watch.Received(1, p.srcnt+1, wc.At)
				}
				p.serverSaw()
			}
			continue
		}
		q.sdone++
		p.serverPost()
	}
}

// clientSaw: the client saw the answer (the server's message landed, or
// its READ or atomic completed); it posts the next iteration.
func (p *Perftest) clientSaw() {
	if p.Done {
		return
	}
	p.rcnt++
	if p.rcnt == p.Cfg.Iters {
		p.finish()
		if p.Watch != nil && p.lat {
			p.Watch.Ended(0, p.rcnt, p.End)
		}
		return
	}
	p.cwant = true
	p.clientPost()
}

func (p *Perftest) clientPost() {
	q := p.qps[0]
	if !p.cwant || p.scnt >= p.Cfg.Iters || p.scnt-q.cdone >= p.Cfg.TxDepth || p.Err != "" {
		return
	}
	p.cwant = false
	wr := p.wr(q, false)
	wr.ID, wr.Signaled = uint64(p.scnt), true
	now := p.client.Engine().Now()
	p.tposted[p.scnt] = now
	if p.Watch != nil && p.lat && p.scnt > 0 {
		p.Watch.Ended(0, p.scnt, now)
	}
	w, err := p.client.PostSend(q.c, wr)
	if err != nil {
		p.fail("post_send: %v", err)
		return
	}
	p.scnt++
	if p.Watch != nil && p.lat {
		p.Watch.Posted(0, p.scnt, w)
	}
}

// serverSaw: the server saw the client's message; it answers.
func (p *Perftest) serverSaw() {
	p.srcnt++
	p.swant = true
	p.serverPost()
}

func (p *Perftest) serverPost() {
	q := p.qps[0]
	if !p.swant || p.sscnt >= p.Cfg.Iters || p.sscnt-q.sdone >= p.Cfg.TxDepth || p.ServerErr != "" {
		return
	}
	p.swant = false
	wr := p.wr(q, true)
	wr.ID, wr.Signaled = uint64(p.sscnt), true
	w, err := p.server.PostSend(q.s, wr)
	if err != nil {
		p.failServer("server post_send: %v", err)
		return
	}
	p.sscnt++
	if p.Watch != nil && p.lat {
		p.Watch.Posted(1, p.sscnt, w)
	}
}

// QP returns side's QP of the first connection (0: the client's, 1: the
// server's).
func (p *Perftest) QP(side int) *hca.QP {
	if side == 0 {
		return p.qps[0].c
	}
	return p.qps[0].s
}

func (p *Perftest) finish() {
	p.Done = true
	p.End = p.client.Engine().Now()
}

// Completed is the number of iterations done (all QPs together).
func (p *Perftest) Completed() int {
	if p.bw {
		return p.totC
	}
	return p.rcnt
}

// BW is a bandwidth test's result.
type BW struct {
	Bytes      int64
	Iterations int
	// PeakGbps and AvgGbps are in Gb/s (10^9 bits per second);
	// MsgRateMpps in millions of messages per second.
	PeakGbps, AvgGbps, MsgRateMpps float64
}

// Lat is a latency test's result, in microseconds.
type Lat struct {
	Bytes                                    int64
	Iterations                               int
	Min, Max, Typical, Avg, Stdev, P99, P999 float64
}

// BWResult computes print_report_bw's numbers.
func (p *Perftest) BWResult() BW {
	n := len(p.tcompleted)
	r := BW{Bytes: p.Cfg.Size, Iterations: p.Cfg.Iters}
	total := (p.tcompleted[n-1] - p.tposted[0]).Seconds()
	r.AvgGbps = float64(p.Cfg.Size) * float64(n) * 8 / total / 1e9
	r.MsgRateMpps = float64(n) / total / 1e6
	if n > perftestPeakLimit {
		return r // perftest's noPeak above 20000 iterations
	}
	mod := p.Cfg.CQMod
	best := math.Inf(1)
	for i := 0; i < n; i++ {
		try := func(j int) {
			if t := float64(p.tcompleted[j]-p.tposted[i]) / float64(j-i+1); t < best {
				best = t
			}
		}
		for j := (i+mod)/mod*mod - 1; j < n; j += mod {
			try(j)
		}
		if n%mod != 0 {
			try(n - 1)
		}
	}
	r.PeakGbps = float64(p.Cfg.Size) * 8 / (best / float64(sim.Second)) / 1e9
	return r
}

// LatResult computes print_report_lat's numbers.
func (p *Perftest) LatResult() Lat {
	r := Lat{Bytes: p.Cfg.Size, Iterations: p.Cfg.Iters}
	m := p.Cfg.Iters - 1
	delta := make([]float64, m)
	factor := 2.0
	if p.op == hca.WRRead || p.op == hca.WRFetchAdd {
		factor = 1
	}
	for i := range delta {
		delta[i] = float64(p.tposted[i+1]-p.tposted[i]) / float64(sim.Microsecond) / factor
	}
	sort.Float64s(delta)
	m -= perftestMeasureCut
	median := delta[m/2]
	if (m-1)%2 != 0 {
		median = (delta[m/2] + delta[m/2-1]) / 2
	}
	var sum float64
	for _, d := range delta[:m] {
		sum += d
	}
	r.Avg = sum / float64(m)
	var v float64
	for _, d := range delta[:m] {
		v += (d - r.Avg) * (d - r.Avg)
	}
	r.Min, r.Max, r.Typical, r.Stdev = delta[0], delta[m], median, math.Sqrt(v/float64(m))
	r.P99 = delta[int(math.Ceil(float64(m)*0.99))]
	r.P999 = delta[int(math.Ceil(float64(m)*0.999))]
	return r
}

// perftest's report lines (perftest_parameters.h: RESULT_LINE,
// RESULT_FMT_G, REPORT_FMT, RESULT_FMT_LAT, REPORT_FMT_LAT).
const (
	perftestLine      = "---------------------------------------------------------------------------------------\n"
	perftestHeaderBW  = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
	perftestHeaderLat = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
)

// Report is what the perftest client prints: a short test header, then
// its results table in perftest's columns and units, or why there are no
// results.
func (p *Perftest) Report() string {
	var b strings.Builder
	verb, _, _ := strings.Cut(p.Cfg.Test, "_")
	title := map[string]string{"write": "RDMA_Write", "read": "RDMA_Read", "send": "Send", "atomic": "Atomic"}[verb]
	unit := "BW"
	if p.lat {
		unit = "Latency"
	}
	fmt.Fprintf(&b, "                    %s %s Test\n", title, unit)
	// perftest's transport_str: IB for InfiniBand and RoCE, IW for iWARP.
	transport := kind.TransportOf(p.client.Prof.Transport).PerftestTransport
	fmt.Fprintf(&b, " Number of qps   : %d\t\tTransport type : %s\n", p.Cfg.QPs, transport)
	fmt.Fprintf(&b, " Connection type : %s\t\tUsing SRQ      : OFF\n", strings.ToUpper(p.Cfg.Type.String()))
	if p.bw {
		fmt.Fprintf(&b, " TX depth        : %d\n", p.Cfg.TxDepth)
		if p.op == hca.WRSend {
			fmt.Fprintf(&b, " RX depth        : %d\n", p.Cfg.RxDepth)
		}
		fmt.Fprintf(&b, " CQ Moderation   : %d\n", p.Cfg.CQMod)
	}
	fmt.Fprintf(&b, " Mtu             : %d[B]\n", p.client.Prof.MTU)
	// perftest's link_layer_str: InfiniBand is "IB", RoCE "Ethernet"; the
	// transport type is IB on both.
	link := "Ethernet"
	if p.client.Prof.LinkLayer == fabric.InfiniBand {
		link = "IB"
	}
	fmt.Fprintf(&b, " Link type       : %s\n", link)
	inl := 0
	if p.inline && p.op != hca.WRRead && p.op != hca.WRFetchAdd {
		inl = int(p.Cfg.Size)
	}
	fmt.Fprintf(&b, " Max inline data : %d[B]\n", inl)
	cm, ex := "OFF", "Ethernet"
	if p.Cfg.CM {
		cm, ex = "ON", "rdma_cm"
	}
	fmt.Fprintf(&b, " rdma_cm QPs\t : %s\n Data ex. method : %s\n", cm, ex)
	b.WriteString(perftestLine)
	if p.bw {
		b.WriteString(perftestHeaderBW)
	} else {
		b.WriteString(perftestHeaderLat)
	}
	switch {
	case p.Failure() != "":
		fmt.Fprintf(&b, " failed after %d of %d iterations: %s\n", p.Completed(), p.Cfg.Iters*p.Cfg.QPs, p.Failure())
	case !p.Done:
		fmt.Fprintf(&b, " incomplete: %d of %d iterations done when the run stopped\n", p.Completed(), p.Cfg.Iters*p.Cfg.QPs)
	case p.bw:
		r := p.BWResult()
		fmt.Fprintf(&b, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f\n", r.Bytes, r.Iterations, r.PeakGbps, r.AvgGbps, r.MsgRateMpps)
	default:
		r := p.LatResult()
		fmt.Fprintf(&b, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
			r.Bytes, r.Iterations, r.Min, r.Max, r.Typical, r.Avg, r.Stdev, r.P99, r.P999)
	}
	b.WriteString(perftestLine)
	return b.String()
}
