package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestIWARPWindowCountsPathMTUSegments: an iWARP QP whose path MTU
// (QPAttr.PathMTU, 1024) is below its port's (4096) cuts FPDUs of 1024
// bytes, and its TCP counts each as 1024 bytes of the window: with a
// fixed 64 KiB send and receive window (no congestion control), the
// first round trip carries 64 KiB / 1024 = 64 segments, the closed form,
// exactly (before any ACK returns: 100 us one-way links, stopped at
// 100 us after the first segment leaves). Counting them as port-MTU
// segments let 16 go, a quarter of the window's bytes. Both TCP streams:
// the requester's (a WRITE's segments) and the responder's (a READ's).
func TestIWARPWindowCountsPathMTUSegments(t *testing.T) {
	const window, pathMTU = 64 << 10, 1024
	for _, tc := range []struct {
		op   string
		stop sim.Time // before the first ACK of the stream returns
	}{
		{"write", 100 * sim.Microsecond},
		{"read", 300 * sim.Microsecond},
	} {
		t.Run(tc.op, func(t *testing.T) {
			p := hca.DefaultProfile()
			p.Transport, p.MTU = fabric.IWARP, 4096
			p.WithTCP(func(c *hca.TCPProfile) { c.RcvWin, c.SndWin, c.NewCC = window, window, nil })
			eng, h, _ := star(t, 2, 100*fabric.Gbps, 100*sim.Microsecond, p, swtch.DefaultProfile())
			qa, qb := h[0].CreateQP(), h[1].CreateQP()
			for _, x := range []struct {
				h      *hca.HCA
				qp     *hca.QP
				peer   *hca.HCA
				remote uint32
			}{{h[0], qa, h[1], qb.QPN}, {h[1], qb, h[0], qa.QPN}} {
				for _, a := range []hca.QPAttr{{State: hca.QPInit, Access: hca.AccessAll},
					{State: hca.QPRTR, Dest: x.peer.ID, DestIP: x.peer.IP, DestQPN: x.remote, PathMTU: pathMTU},
					{State: hca.QPRTS}} {
					if err := x.h.ModifyQP(x.qp, a); err != nil {
						t.Fatal(err)
					}
				}
			}
			ma := h[0].RegMR(h[0].DefaultPD(), 1<<20, nil, hca.AccessAll)
			mb := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
			qa.RemoteAddr, qa.RemoteRKey = mb.Addr, mb.RKey
			op := hca.WRWrite
			if tc.op == "read" {
				op = hca.WRRead
			}
			if _, err := h[0].PostSend(qa, hca.SendWR{Op: op, Signaled: true, RemoteAddr: mb.Addr, RKey: mb.RKey,
				SGL: []hca.SGE{{Addr: ma.Addr, Len: 1 << 20, LKey: ma.LKey}}}); err != nil {
				t.Fatal(err)
			}
			eng.Run(tc.stop, nil)
			got := h[0].Stats.DataPackets
			if tc.op == "read" {
				got = h[1].Stats.ReadResponses
			}
			if want := int64(window / pathMTU); got != want {
				t.Fatalf("%s: %d segments in the first round trip, want %d (window / path MTU)", tc.op, got, want)
			}
		})
	}
}
