package hca_test

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestIWConnOutlivesItsQP: rdma_disconnect then rdma_destroy_qp at once,
// as lfsim's flows and rping's client close. The connection outlives its
// QP until the close is done, as iw_cxgb4's endpoint does: the passive
// end answers the FIN with its FIN-ACK, the active end with the last ACK,
// and both hear of the close, the active end the FIN's and the FIN-ACK's
// one-way times (oneWay) after its FIN. A passive end whose QP is
// destroyed before the FIN comes is abandoned with an RST (iw_cm's
// destroy of a made connection), and the FIN that then reaches it,
// for a connection no longer there, is answered with RST too (RFC 9293
// §3.10.7.1); the active end's close ends on the first, its FIN not sent
// again. Before the fix the active end forgot its connection as its QP
// went: the FIN-ACK, or nothing, came to a connection gone, and no last
// ACK or RST was ever sent.
func TestIWConnOutlivesItsQP(t *testing.T) {
	for _, tc := range []struct {
		name string
		// passiveFirst: the passive QP is destroyed at once too (out of
		// band), before the FIN comes; else on its close.
		passiveFirst bool
		active       string // what the active end sends from its FIN on
		passive      string // what the passive end sends from the FIN's arrival on
	}{
		{"passive closes on the FIN", false, "FIN, last ACK", "FIN-ACK"},
		{"passive destroyed first", true, "FIN", "RST, RST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
			qa, qb := h[0].CreateQP(), h[1].CreateQP()
			ca, _ := iwConnect(t, h[0], h[1], qa, qb, nil)
			closed := map[string]sim.Time{}
			ca.OnClosed = func(*hca.IWConn) { closed["active"] = eng.Now() }
			eng.Run(100*sim.Microsecond, nil)
			cb := h[1].IWConnOf(qb)
			if !ca.Ready() || cb == nil || !cb.Ready() {
				t.Fatal("the connection was not made")
			}
			cb.OnClosed = func(*hca.IWConn) {
				closed["passive"] = eng.Now()
				if err := h[1].DestroyQP(qb); err != nil {
					t.Fatal(err)
				}
			}
			log := wireLog(eng, h)
			t0 := eng.Now()
			ca.Close()
			if err := h[0].DestroyQP(qa); err != nil {
				t.Fatal(err)
			}
			if tc.passiveFirst {
				if err := h[1].DestroyQP(qb); err != nil {
					t.Fatal(err)
				}
			}
			eng.Run(eng.Now()+200*sim.Second, nil) // past every retransmission (127 s)
			if got := sentBy(*log, h[0].Port().Name); got != tc.active {
				t.Errorf("the active end sent %q; want %q", got, tc.active)
			}
			if got := sentBy(*log, h[1].Port().Name); got != tc.passive {
				t.Errorf("the passive end sent %q; want %q", got, tc.passive)
			}
			if closed["active"] == 0 {
				t.Error("the active end never heard its close end")
			}
			if !tc.passiveFirst {
				wire := map[fabric.SetupStep]int32{}
				for _, e := range *log {
					if e.kind == fabric.KindSetup {
						wire[e.step] = e.wire
					}
				}
				want := t0 + oneWay(wire[fabric.StepFIN]) + oneWay(wire[fabric.StepFINACK])
				if d := closed["active"] - want; d < -sim.Nanosecond || d > sim.Nanosecond {
					t.Errorf("the active end closed at %v; want the FIN's and FIN-ACK's one-way times after its FIN, %v", closed["active"], want)
				}
				if closed["passive"] == 0 {
					t.Error("the passive end never heard the FIN")
				}
			}
			if strings.Contains(sentBy(*log, h[0].Port().Name), "RST") {
				t.Error("the active end answered an RST")
			}
		})
	}
}
