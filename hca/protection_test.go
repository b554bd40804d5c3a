package hca_test

import (
	"bytes"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// protEnv is one protection case's world: h0's QP a is connected to h1's
// QP b; src is h0's 64 KiB of 0x5a bytes, dst h1's 64 KiB of zeros, and
// res h0's 8-byte buffer for an atomic's result (zero).
type protEnv struct {
	eng      *sim.Engine
	h        []*hca.HCA
	a, b     *hca.QP
	src, dst *hca.MR
	res      *hca.MR
	landed   int64 // bytes of the WRITE in dst when it was deregistered
}

// noAccess asks newProtEnv for a QP with qp_access_flags 0 (0 there
// means every access).
const noAccess hca.Access = 1 << 31

const protLen = 64 << 10

// TestProtectionViolations: each way a verbs program can overstep the
// memory it was given fails as on a real HCA, with the status the
// requester's completion carries (ibv_wc_status: an R_Key, bounds, access
// or PD violation at the responder is rem_access_err; a local SGE outside
// its region is loc_prot_err), and the memory it aimed at stays as it
// was. Two of the cases were holes: a QP given qp_access_flags 0 had full
// remote access, and a WRITE whose region was deregistered mid-message
// kept landing its later packets through the region its first packet had
// found (now: the bytes before the deregistration are there, none after).
func TestProtectionViolations(t *testing.T) {
	write := func(e *protEnv) hca.SendWR {
		return hca.SendWR{Op: hca.WRWrite, SGL: []hca.SGE{{Addr: e.src.Addr, Len: 4096, LKey: e.src.LKey}},
			RemoteAddr: e.dst.Addr, RKey: e.dst.RKey, Signaled: true}
	}
	read := func(e *protEnv) hca.SendWR {
		return hca.SendWR{Op: hca.WRRead, SGL: []hca.SGE{{Addr: e.src.Addr, Len: 4096, LKey: e.src.LKey}},
			RemoteAddr: e.dst.Addr, RKey: e.dst.RKey, Signaled: true}
	}
	dstZero := func(t *testing.T, e *protEnv) {
		if !bytes.Equal(e.dst.Buf, make([]byte, protLen)) {
			t.Errorf("the target region changed")
		}
	}
	srcIntact := func(t *testing.T, e *protEnv) {
		if !bytes.Equal(e.src.Buf, bytes.Repeat([]byte{0x5a}, protLen)) {
			t.Errorf("the READ's local buffer changed")
		}
	}
	for _, c := range []struct {
		name string
		// bAccess is b's qp_access_flags, given with the mask at INIT;
		// dstAccess the target region's access; otherPD registers dst
		// in a PD of its own.
		bAccess, dstAccess hca.Access
		otherPD            bool
		wr                 func(e *protEnv) hca.SendWR
		before             func(e *protEnv) // after set-up, before posting
		// midDereg deregisters dst once two of the WRITE's packets
		// have landed (or two of the READ's responses).
		midDereg bool
		want     hca.WCStatus
		check    func(t *testing.T, e *protEnv)
	}{
		{name: "a wrong rkey", wr: func(e *protEnv) hca.SendWR {
			w := write(e)
			w.RKey += 0x100
			return w
		}, want: hca.WCRemAccessError, check: dstZero},
		{name: "past the region's end", wr: func(e *protEnv) hca.SendWR {
			w := write(e)
			w.RemoteAddr += protLen - 100
			return w
		}, want: hca.WCRemAccessError, check: dstZero},
		{name: "a WRITE to a region without remote write", dstAccess: hca.AccessLocalWrite | hca.AccessRemoteRead,
			wr: write, want: hca.WCRemAccessError, check: dstZero},
		{name: "a READ of a region without remote read", dstAccess: hca.AccessLocalWrite | hca.AccessRemoteWrite,
			wr: read, want: hca.WCRemAccessError, check: srcIntact},
		{name: "an atomic on a region without remote atomic", dstAccess: hca.AccessLocalWrite | hca.AccessRemoteWrite | hca.AccessRemoteRead,
			wr: func(e *protEnv) hca.SendWR {
				return hca.SendWR{Op: hca.WRFetchAdd, SGL: []hca.SGE{{Addr: e.res.Addr, Len: 8, LKey: e.res.LKey}},
					RemoteAddr: e.dst.Addr, RKey: e.dst.RKey, CompareAdd: 1, Signaled: true}
			}, want: hca.WCRemAccessError, check: dstZero},
		{name: "a region of another PD", otherPD: true, wr: write, want: hca.WCRemAccessError, check: dstZero},
		{name: "a QP given qp_access_flags 0", bAccess: noAccess, wr: write, want: hca.WCRemAccessError, check: dstZero},
		{name: "a READ through a QP without remote read", bAccess: hca.AccessLocalWrite | hca.AccessRemoteWrite,
			wr: read, want: hca.WCRemAccessError, check: srcIntact},
		{name: "a deregistered region", wr: write, before: func(e *protEnv) { e.h[1].DeregMR(e.dst) },
			want: hca.WCRemAccessError, check: dstZero},
		{name: "a region deregistered mid-WRITE", wr: func(e *protEnv) hca.SendWR {
			w := write(e)
			w.SGL[0].Len = protLen
			return w
		}, midDereg: true, want: hca.WCRemAccessError, check: func(t *testing.T, e *protEnv) {
			if e.landed >= protLen {
				t.Fatalf("the whole message landed before the deregistration")
			}
			if !bytes.Equal(e.dst.Buf[e.landed:], make([]byte, protLen-e.landed)) {
				t.Errorf("bytes landed after the region was deregistered (%d landed before)", e.landed)
			}
			if !bytes.Equal(e.dst.Buf[:e.landed], e.src.Buf[:e.landed]) {
				t.Errorf("the %d bytes written before the deregistration are not the source's", e.landed)
			}
		}},
		{name: "a region deregistered mid-READ", wr: func(e *protEnv) hca.SendWR {
			w := read(e)
			w.SGL[0].Len = protLen
			return w
		}, midDereg: true, want: hca.WCRemAccessError, check: func(t *testing.T, e *protEnv) {
			if e.landed >= protLen {
				t.Fatalf("the whole READ landed before the deregistration")
			}
			// The responses sent before the deregistration land (dst
			// holds zeros); none is sent after it.
			zeros := int64(bytes.Count(e.src.Buf, []byte{0}))
			if zeros == protLen {
				t.Errorf("every response was sent, the region deregistered after %d bytes had landed", e.landed)
			}
			if zeros < e.landed {
				t.Errorf("%d bytes read, fewer than the %d that had landed", zeros, e.landed)
			}
		}},
		{name: "a local SGE outside its region", wr: func(e *protEnv) hca.SendWR {
			w := write(e)
			w.SGL[0].Addr += protLen - 100
			return w
		}, want: hca.WCLocProtError, check: dstZero},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newProtEnv(t, c.bAccess, c.dstAccess, c.otherPD)
			if c.before != nil {
				c.before(e)
			}
			w, err := e.h[0].PostSend(e.a, c.wr(e))
			if err != nil {
				t.Fatal(err)
			}
			if c.midDereg {
				landed := func() int64 { return e.b.Delivered + e.a.ReadDelivered }
				for landed() < 2*4096 && e.eng.Now() < 100*sim.Microsecond {
					e.eng.Run(e.eng.Now()+50*sim.Nanosecond, nil)
				}
				e.landed = landed()
				e.h[1].DeregMR(e.dst)
			}
			e.eng.Run(e.eng.Now()+100*sim.Microsecond, nil)
			if w.Status != c.want {
				t.Errorf("status %v, want %v", w.Status, c.want)
			}
			c.check(t, e)
		})
	}
}

// newProtEnv connects two hosts through a switch: h0's QP a with every
// access, h1's QP b with bAccess (0 means all; noAccess is none),
// given as ibv_modify_qp gives it, with the attribute mask.
func newProtEnv(t *testing.T, bAccess, dstAccess hca.Access, otherPD bool) *protEnv {
	t.Helper()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	if bAccess == 0 {
		bAccess = hca.AccessAll
	}
	if dstAccess == 0 {
		dstAccess = hca.AccessAll
	}
	e := &protEnv{eng: eng, h: h}
	mk := func(x *hca.HCA, acc hca.Access) *hca.QP {
		cq := x.DefaultCQ()
		qp := x.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: x.DefaultPD(), SendCQ: cq, RecvCQ: cq, SigAll: true})
		if acc == noAccess {
			acc = 0
		}
		if err := x.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, Mask: hca.AttrAccessFlags, Access: acc}); err != nil {
			t.Fatal(err)
		}
		return qp
	}
	e.a, e.b = mk(h[0], hca.AccessAll), mk(h[1], bAccess)
	h[0].Connect(e.a, h[1].ID, h[1].IP, e.b.QPN)
	h[1].Connect(e.b, h[0].ID, h[0].IP, e.a.QPN)
	e.src = h[0].RegMR(h[0].DefaultPD(), protLen, bytes.Repeat([]byte{0x5a}, protLen), hca.AccessAll)
	e.res = h[0].RegMR(h[0].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
	pd := h[1].DefaultPD()
	if otherPD {
		pd = h[1].AllocPD()
	}
	e.dst = h[1].RegMR(pd, protLen, make([]byte, protLen), dstAccess)
	return e
}

// TestModifyQPMask: with an attribute mask, ModifyQP takes what the mask
// names, zero included, and refuses a transition whose required
// attributes (ibv_modify_qp(3)) the mask leaves out.
func TestModifyQPMask(t *testing.T) {
	_, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	x := h[0]
	cq := x.DefaultCQ()
	qp := x.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: x.DefaultPD(), SendCQ: cq, RecvCQ: cq})
	if qp.Access != 0 {
		t.Errorf("a new QP has access %b; verbs gives it none until INIT", qp.Access)
	}
	steps := []struct {
		a    hca.QPAttr
		want error
	}{
		{hca.QPAttr{State: hca.QPInit, Mask: hca.AttrQKey}, hca.ErrAttrMask}, // an RC QP's INIT needs its access flags
		{hca.QPAttr{State: hca.QPInit, Mask: hca.AttrAccessFlags, Access: hca.AccessRemoteWrite}, nil},
		{hca.QPAttr{State: hca.QPInit, Mask: hca.AttrAccessFlags}, nil}, // 0, as the mask says
		{hca.QPAttr{State: hca.QPRTR, Mask: hca.AttrAV | hca.AttrDestQPN | hca.AttrRQPSN, Dest: h[1].ID, DestIP: h[1].IP}, hca.ErrAttrMask},
		{hca.QPAttr{State: hca.QPRTR, Mask: hca.AttrAV | hca.AttrDestQPN | hca.AttrRQPSN | hca.AttrMaxDestRdAtomic | hca.AttrMinRNRTimer,
			Dest: h[1].ID, DestIP: h[1].IP, MaxDestRdAtomic: 1, MinRNRTimer: 12}, nil},
		{hca.QPAttr{State: hca.QPRTS, Mask: hca.AttrSQPSN}, hca.ErrAttrMask},
		{hca.QPAttr{State: hca.QPRTS, Mask: hca.AttrSQPSN | hca.AttrTimeout | hca.AttrRetryCnt | hca.AttrRNRRetry | hca.AttrMaxRdAtomic,
			Timeout: 14, RetryCnt: 0, RNRRetry: 0, MaxRdAtomic: 1}, nil},
	}
	for i, s := range steps {
		if err := x.ModifyQP(qp, s.a); err != s.want {
			t.Fatalf("step %d (to %v): %v, want %v", i, s.a.State, err, s.want)
		}
		if i == 1 && qp.Access != hca.AccessRemoteWrite {
			t.Errorf("access %b after INIT with remote write", qp.Access)
		}
		if i == 2 && qp.Access != 0 {
			t.Errorf("access %b after INIT with a mask and access 0; want none", qp.Access)
		}
	}
	if qp.State != hca.QPRTS {
		t.Errorf("state %v, want RTS", qp.State)
	}
}

// TestReadResponsesBeforeTheNAK: three 16 KiB READs posted back to back,
// the third with a key no region has. The responder has the first two's
// responses to send when the third arrives; it answers in PSN order, so
// they go out whole and complete with their data, and the third's NAK
// follows them (before, the NAK went ahead of them, the responder's QP
// went to the error state at once, and all three failed). A WRITE posted
// after the READs is flushed.
func TestReadResponsesBeforeTheNAK(t *testing.T) {
	e := newProtEnv(t, 0, 0, false)
	const n = 16 << 10
	for i := range 3 {
		wr := hca.SendWR{ID: uint64(i), Op: hca.WRRead, SGL: []hca.SGE{{Addr: e.src.Addr + uint64(i*n), Len: n, LKey: e.src.LKey}},
			RemoteAddr: e.dst.Addr + uint64(i*n), RKey: e.dst.RKey, Signaled: true}
		if i == 2 {
			wr.RKey |= 1 << 31
		}
		if _, err := e.h[0].PostSend(e.a, wr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.h[0].PostSend(e.a, hca.SendWR{ID: 3, Op: hca.WRWrite, SGL: []hca.SGE{{Addr: e.src.Addr, Len: 64, LKey: e.src.LKey}},
		RemoteAddr: e.dst.Addr, RKey: e.dst.RKey, Signaled: true}); err != nil {
		t.Fatal(err)
	}
	for i := range e.dst.Buf {
		e.dst.Buf[i] = byte(i)
	}
	e.eng.Run(sim.Millisecond, nil)
	got := map[uint64]hca.WCStatus{}
	for _, wc := range e.h[0].DefaultCQ().Poll(16) {
		got[wc.WRID] = wc.Status
	}
	want := map[uint64]hca.WCStatus{0: hca.WCSuccess, 1: hca.WCSuccess, 2: hca.WCRemAccessError, 3: hca.WCFlushed}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("WR %d: %v, want %v (all: %v)", id, got[id], st, got)
		}
	}
	if !bytes.Equal(e.src.Buf[:2*n], e.dst.Buf[:2*n]) {
		t.Errorf("the first two READs' data did not land")
	}
	if !bytes.Equal(e.src.Buf[2*n:3*n], bytes.Repeat([]byte{0x5a}, n)) {
		t.Errorf("the refused READ's buffer changed")
	}
}
