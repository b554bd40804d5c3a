package hca_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

var rewrite = flag.Bool("rewrite", false, "rewrite hca/testdata/*.txt with the transcripts this version produces")

// TestScripts runs the verbs scripts in testdata/: each line is a command
// (see scriptEnv.exec), and the lines after it that start with "> " are
// the output it must print. `go test ./hca -run TestScripts -rewrite`
// regenerates them; review the diff. Every script ends with the
// exactly-once invariant (checkInvariant).
func TestScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scripts")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			env := &scriptEnv{t: t, objs: map[string]any{}}
			var want, got []string
			for i, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
				if strings.HasPrefix(line, "> ") || line == ">" {
					want = append(want, line)
					continue
				}
				out.WriteString(line + "\n")
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				lines, err := env.exec(line)
				if err != nil {
					t.Fatalf("%s:%d: %s: %v", f, i+1, line, err)
				}
				for _, l := range lines {
					got = append(got, "> "+l)
					out.WriteString("> " + l + "\n")
				}
			}
			if env.eng != nil {
				checkInvariant(t, env.eng, env.hcas)
			}
			if *rewrite {
				if err := os.WriteFile(f, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("transcript differs (run with -rewrite to update):\n--- got\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// checkInvariant: every posted WR completes exactly once. It moves every
// QP to ERR, lets the flushes land, and compares the HCAs' counters.
func checkInvariant(t testing.TB, eng *sim.Engine, hs []*hca.HCA) {
	t.Helper()
	for _, h := range hs {
		for _, qp := range h.QPs() {
			if err := h.ModifyQP(qp, hca.QPAttr{State: hca.QPErr}); err != nil {
				t.Fatal(err)
			}
		}
	}
	eng.Run(eng.Now()+sim.Second, nil)
	for _, h := range hs {
		s := h.Stats
		srq := int64(0)
		for _, qp := range h.QPs() {
			if qp.SRQ != nil {
				srq = int64(qp.SRQ.Len())
			}
		}
		if s.DoubleCompletions != 0 || s.PostedSend != s.CompletedSend || s.PostedRecv-srq != s.CompletedRecv {
			t.Errorf("%s: exactly-once broken: send posted %d completed %d, recv posted %d (in SRQ %d) completed %d, double %d",
				h.Name, s.PostedSend, s.CompletedSend, s.PostedRecv, srq, s.CompletedRecv, s.DoubleCompletions)
		}
	}
}

type scriptEnv struct {
	t    *testing.T
	eng  *sim.Engine
	hcas []*hca.HCA
	objs map[string]any
	prof hca.Profile
}

func kv(args []string) (pos []string, opts map[string]string) {
	opts = map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			opts[k] = v
		} else if a == "inline" || a == "unsignaled" || a == "bytes" || a == "zero" {
			opts[a] = "1"
		} else {
			pos = append(pos, a)
		}
	}
	return pos, opts
}

func num(s string) uint64 {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		panic(err)
	}
	return v
}

func (e *scriptEnv) host(name string) *hca.HCA {
	for _, h := range e.hcas {
		if h.Name == name {
			return h
		}
	}
	panic("no host " + name)
}

func (e *scriptEnv) qp(name string) (*hca.HCA, *hca.QP) {
	q := e.objs[name].(*hca.QP)
	for _, h := range e.hcas {
		for _, x := range h.QPs() {
			if x == q {
				return h, q
			}
		}
	}
	panic("orphan qp")
}

// access reads access=lrwa (local write, remote read, write, atomic) or
// access=none from o, def when o has none.
func access(o map[string]string, def string) hca.Access {
	v, ok := o["access"]
	if !ok {
		v = def
	}
	var acc hca.Access
	for _, c := range v {
		acc |= map[rune]hca.Access{'l': hca.AccessLocalWrite, 'r': hca.AccessRemoteRead, 'w': hca.AccessRemoteWrite, 'a': hca.AccessRemoteAtomic}[c]
	}
	return acc
}

// exec runs one command and returns what it prints. Commands:
//
//	star hosts=N [rate=100Gbps] [delay=1us] [mtu=4096] [retransmit=go-back-0] [timeout=E] [rnr_timer=C] [zero]
//	loss HOST RATE                  random loss on the host's uplink
//	pd HOST NAME
//	mr HOST NAME SIZE [bytes] [access=lrwa] [pd=NAME]
//	cq HOST NAME DEPTH
//	srq HOST NAME MAX [pd=NAME]
//	qp HOST NAME rc|uc|ud [pd=] [cq=] [srq=] [sigall=0] [retry=N] [rnr_retry=N] [max_rd_atomic=N] [min_rnr_timer=C] [access=lrwa|none]
//	                                 (qp_access_flags, given with the mask at INIT; default lrwa)
//	dereg HOST MR
//	connect QP QP
//	modify QP STATE
//	post_send QP OP SIZE [mr=M] [off=N] [remote=M] [roff=N] [rkey=K] [id=N] [imm=N] [add=N] [cmp=N] [swap=N] [to=QP] [inline] [unsignaled]
//	post_recv QP|SRQ SIZE [mr=M] [off=N] [id=N]
//	fill MR BYTE | word MR OFF [VALUE] | bytes MR OFF N
//	run DURATION | poll HOST|CQ | state QP | stats HOST FIELD...
func (e *scriptEnv) exec(line string) (out []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f := strings.Fields(line)
	pos, o := kv(f[1:])
	switch f[0] {
	case "star":
		prof := hca.DefaultProfile()
		if o["zero"] != "" {
			prof = prof.Zero()
		}
		if v, ok := o["mtu"]; ok {
			prof.MTU = int(num(v))
		}
		if v, ok := o["timeout"]; ok {
			prof.AckTimeout = int(num(v))
		}
		if v, ok := o["rnr_timer"]; ok {
			prof.MinRNRTimer = int(num(v))
		}
		if o["retransmit"] == "go-back-0" {
			prof.Retransmit = hca.GoBack0
		}
		if o["placement"] == "direct" {
			prof.Placement = hca.Direct
		}
		rate, delay := 100*fabric.Gbps, sim.Microsecond
		if v, ok := o["rate"]; ok {
			rate, _ = fabric.ParseRate(v)
		}
		if v, ok := o["delay"]; ok {
			delay, _ = sim.ParseTime(v)
		}
		e.eng, e.hcas, _ = star(e.t, int(num(o["hosts"])), rate, delay, prof, swtch.DefaultProfile())
		e.prof = prof
	case "loss":
		h := e.host(pos[0])
		r, _ := strconv.ParseFloat(pos[1], 64)
		if a, b, ok := strings.Cut(pos[1], "/"); ok {
			r = float64(num(a)) / float64(num(b))
		}
		h.Port().Link().SetLoss(r, e.eng.Rand("loss/"+h.Name))
	case "pd":
		e.objs[pos[1]] = e.host(pos[0]).AllocPD()
	case "mr":
		h := e.host(pos[0])
		size, _ := fabric.ParseSize(pos[2])
		pd := h.DefaultPD()
		if v, ok := o["pd"]; ok {
			pd = e.objs[v].(*hca.PD)
		}
		acc := access(o, "lrwa")
		var buf []byte
		if o["bytes"] != "" {
			buf = make([]byte, size)
		}
		e.objs[pos[1]] = h.RegMR(pd, int64(size), buf, acc)
	case "dereg":
		e.host(pos[0]).DeregMR(e.objs[pos[1]].(*hca.MR))
	case "cq":
		e.objs[pos[1]] = e.host(pos[0]).CreateCQ(int(num(pos[2])))
	case "srq":
		h := e.host(pos[0])
		pd := h.DefaultPD()
		if v, ok := o["pd"]; ok {
			pd = e.objs[v].(*hca.PD)
		}
		e.objs[pos[1]] = h.CreateSRQ(pd, int(num(pos[2])))
	case "qp":
		h := e.host(pos[0])
		c := hca.QPCaps{Type: map[string]hca.QPType{"rc": hca.RC, "uc": hca.UC, "ud": hca.UD}[pos[2]],
			PD: h.DefaultPD(), SendCQ: h.DefaultCQ(), RecvCQ: h.DefaultCQ(), SigAll: o["sigall"] != "0"}
		if v, ok := o["pd"]; ok {
			c.PD = e.objs[v].(*hca.PD)
		}
		if v, ok := o["cq"]; ok {
			c.SendCQ = e.objs[v].(*hca.CQ)
			c.RecvCQ = c.SendCQ
		}
		if v, ok := o["srq"]; ok {
			c.SRQ = e.objs[v].(*hca.SRQ)
		}
		qp := h.CreateQPWith(c)
		e.objs[pos[1]] = qp
		a := hca.QPAttr{State: hca.QPInit, Mask: hca.AttrAccessFlags, Access: access(o, "lrwa")}
		if c.Type == hca.UD {
			a = hca.QPAttr{State: hca.QPInit}
		}
		if err := h.ModifyQP(qp, a); err != nil {
			return nil, err
		}
		if c.Type == hca.UD {
			h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR})
			h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS})
		}
		e.objs[pos[1]+".attr"] = o
	case "connect":
		ha, a := e.qp(pos[0])
		hb, b := e.qp(pos[1])
		for _, s := range []struct {
			h    *hca.HCA
			q, r *hca.QP
			n    string
		}{{ha, a, b, pos[0]}, {hb, b, a, pos[1]}} {
			opts := e.objs[s.n+".attr"].(map[string]string)
			at := func(k string) int {
				if v, ok := opts[k]; ok {
					return int(num(v))
				}
				return 0
			}
			peer := hb
			if s.h == hb {
				peer = ha
			}
			if err := s.h.ModifyQP(s.q, hca.QPAttr{State: hca.QPRTR, Dest: peer.ID, DestIP: peer.IP, DestQPN: s.r.QPN, MinRNRTimer: at("min_rnr_timer")}); err != nil {
				return nil, err
			}
			_, setR := opts["retry"]
			_, setN := opts["rnr_retry"]
			a := hca.QPAttr{State: hca.QPRTS, RetryCnt: at("retry"), RNRRetry: at("rnr_retry"), MaxRdAtomic: at("max_rd_atomic")}
			if setR || setN {
				a.SetRetries = true
				if !setR {
					a.RetryCnt = e.prof.RetryCount
				}
				if !setN {
					a.RNRRetry = e.prof.RNRRetry
				}
			}
			if err := s.h.ModifyQP(s.q, a); err != nil {
				return nil, err
			}
		}
	case "modify":
		h, q := e.qp(pos[0])
		st := map[string]hca.QPState{"RESET": hca.QPReset, "INIT": hca.QPInit, "RTR": hca.QPRTR, "RTS": hca.QPRTS, "SQD": hca.QPSQD, "ERR": hca.QPErr}[pos[1]]
		if err := h.ModifyQP(q, hca.QPAttr{State: st}); err != nil {
			return []string{err.Error()}, nil
		}
	case "post_send":
		h, q := e.qp(pos[0])
		size, _ := fabric.ParseSize(pos[2])
		wr := hca.SendWR{Op: map[string]hca.WROpcode{"write": hca.WRWrite, "write_imm": hca.WRWriteImm, "send": hca.WRSend,
			"send_imm": hca.WRSendImm, "read": hca.WRRead, "cmp_swap": hca.WRCompSwap, "fetch_add": hca.WRFetchAdd}[pos[1]],
			Length: int64(size), Signaled: o["unsignaled"] == "", Inline: o["inline"] != ""}
		if v, ok := o["id"]; ok {
			wr.ID = num(v)
		}
		if v, ok := o["mr"]; ok {
			mr := e.objs[v].(*hca.MR)
			off := uint64(0)
			if v, ok := o["off"]; ok {
				off = num(v)
			}
			wr.SGL = []hca.SGE{{Addr: mr.Addr + off, Len: int64(size), LKey: mr.LKey}}
		}
		if v, ok := o["remote"]; ok {
			mr := e.objs[v].(*hca.MR)
			wr.RemoteAddr, wr.RKey = mr.Addr, mr.RKey
			if v, ok := o["roff"]; ok {
				wr.RemoteAddr += num(v)
			}
		}
		if v, ok := o["rkey"]; ok {
			wr.RKey = uint32(num(v))
		}
		if v, ok := o["imm"]; ok {
			wr.Imm = uint32(num(v))
		}
		if v, ok := o["add"]; ok {
			wr.CompareAdd = num(v)
		}
		if v, ok := o["cmp"]; ok {
			wr.CompareAdd = num(v)
		}
		if v, ok := o["swap"]; ok {
			wr.Swap = num(v)
		}
		if v, ok := o["to"]; ok {
			th, tq := e.qp(v)
			wr.AH, wr.RemoteQPN, wr.RemoteQKey = &hca.AH{Dest: th.ID, DestIP: th.IP}, tq.QPN, tq.QKey
		}
		if _, err := h.PostSend(q, wr); err != nil {
			return []string{"error: " + err.Error()}, nil
		}
	case "post_recv":
		size, _ := fabric.ParseSize(pos[1])
		wr := hca.RecvWR{Length: int64(size)}
		if v, ok := o["id"]; ok {
			wr.ID = num(v)
		}
		var h *hca.HCA
		if s, ok := e.objs[pos[0]].(*hca.SRQ); ok {
			h = e.hcas[0]
			for _, x := range e.hcas {
				if x.DefaultPD() == s.PD {
					h = x
				}
			}
			if v, ok := o["mr"]; ok {
				mr := e.objs[v].(*hca.MR)
				wr.SGL = []hca.SGE{{Addr: mr.Addr, Len: int64(size), LKey: mr.LKey}}
			}
			err = h.PostSRQRecv(s, wr)
		} else {
			var q *hca.QP
			h, q = e.qp(pos[0])
			if v, ok := o["mr"]; ok {
				mr := e.objs[v].(*hca.MR)
				off := uint64(0)
				if v, ok := o["off"]; ok {
					off = num(v)
				}
				wr.SGL = []hca.SGE{{Addr: mr.Addr + off, Len: int64(size), LKey: mr.LKey}}
			}
			err = h.PostRecv(q, wr)
		}
		if err != nil {
			return []string{"error: " + err.Error()}, nil
		}
	case "fill":
		mr := e.objs[pos[0]].(*hca.MR)
		for i := range mr.Buf {
			mr.Buf[i] = byte(num(pos[1]) + uint64(i))
		}
	case "word":
		mr := e.objs[pos[0]].(*hca.MR)
		addr := mr.Addr + num(pos[1])
		if len(pos) > 2 {
			b := mr.Bytes(addr, 8)
			for i := range 8 {
				b[i] = byte(num(pos[2]) >> (8 * i))
			}
			return nil, nil
		}
		return []string{fmt.Sprintf("%s[%d] = %d", pos[0], num(pos[1]), mr.Word(addr))}, nil
	case "bytes":
		mr := e.objs[pos[0]].(*hca.MR)
		return []string{fmt.Sprintf("%s[%d:+%d] = %x", pos[0], num(pos[1]), num(pos[2]), mr.Bytes(mr.Addr+num(pos[1]), int64(num(pos[2]))))}, nil
	case "run":
		d, err := sim.ParseTime(pos[0])
		if err != nil {
			return nil, err
		}
		e.eng.Run(e.eng.Now()+d, nil)
		return []string{"now " + e.eng.Now().String()}, nil
	case "poll":
		var cq *hca.CQ
		if c, ok := e.objs[pos[0]].(*hca.CQ); ok {
			cq = c
		} else {
			cq = e.host(pos[0]).DefaultCQ()
		}
		for _, wc := range cq.Poll(1 << 20) {
			out = append(out, fmt.Sprintf("qp%d %s", wc.QPN, wc))
		}
		if len(out) == 0 {
			out = []string{"empty"}
		}
		if cq.Overflows > 0 {
			out = append(out, fmt.Sprintf("overflows %d", cq.Overflows))
		}
	case "state":
		_, q := e.qp(pos[0])
		return []string{fmt.Sprintf("%s %s", pos[0], q.State)}, nil
	case "stats":
		h := e.host(pos[0])
		var parts []string
		for _, name := range pos[1:] {
			v := map[string]int64{
				"rnr_naks": h.Stats.RNRNaksSent, "naks": h.Stats.NaksSent, "no_recv_drops": h.Stats.NoRecvDrops,
				"uc_dropped": h.Stats.UCDroppedMsgs, "qkey_drops": h.Stats.QKeyDrops, "duplicates": h.Stats.Duplicates,
				"retransmitted": h.Stats.Retransmitted, "timeouts": h.Stats.Timeouts, "read_responses": h.Stats.ReadResponses,
				"acks": h.Stats.AcksSent, "data": h.Stats.DataPackets,
			}[name]
			parts = append(parts, fmt.Sprintf("%s=%d", name, v))
		}
		return []string{strings.Join(parts, " ")}, nil
	default:
		return nil, fmt.Errorf("unknown command %q", f[0])
	}
	return out, nil
}
