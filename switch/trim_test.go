package swtch_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestTrimmedHeaderClass: a trimmed header is charged to TrimPriority's
// ingress account and leaves at TrimPriority, whichever path trimmed it
// (review F, finding 5). Two senders at line rate into one receiver on
// priority 0, no PFC, trimming on: with a small egress threshold the
// egress queue refuses (trimQueued), with a small ingress threshold the
// ingress does (Switch.Receive). Either way each sender's port holds its
// headers on priority 7 at some point (at least one header, TrimBytes),
// every trimmed packet reaches the receiver at priority 7, and at the end
// every ingress account is empty. When trimQueued kept the header on the
// packet's own class, the egress row's priority-7 peak was 0.
func TestTrimmedHeaderClass(t *testing.T) {
	const wire = 4178
	link := fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}
	for _, c := range []struct {
		name string
		set  func(*swtch.Profile)
	}{
		{"egress refuses", func(p *swtch.Profile) { p.EgressThreshold = swtch.Threshold{Bytes: 3 * wire} }},
		{"ingress refuses", func(p *swtch.Profile) { p.IngressThreshold = swtch.Threshold{Bytes: 3 * wire} }},
	} {
		prof := noPFC()
		prof.Trim = true
		c.set(&prof)
		b := newBed(t, 3, link, prof, wire)
		var trimmedRx, wrongPrio int64
		b.hosts[2].onRx = func(p *fabric.Packet) {
			if p.Kind == fabric.KindTrimmed {
				trimmedRx++
				if p.Priority != swtch.TrimPriority {
					wrongPrio++
				}
			}
		}
		b.flow(0, 2, 0, wire, 200)
		b.flow(1, 2, 0, wire, 200)
		b.start()
		b.eng.Run(sim.Millisecond, nil)
		s := b.sw.Stats
		if s.Trimmed == 0 || trimmedRx != s.Trimmed || wrongPrio != 0 {
			t.Errorf("%s: %d trimmed, %d received as trimmed (%d not at priority %d); want every one, at %d", c.name, s.Trimmed, trimmedRx, wrongPrio, swtch.TrimPriority, swtch.TrimPriority)
		}
		for i := 0; i < 2; i++ {
			if peak := b.sw.PeakIngress(i, swtch.TrimPriority); peak < swtch.TrimBytes {
				t.Errorf("%s: port %d's priority %d held at most %d bytes; want its headers (at least %d)", c.name, i, swtch.TrimPriority, peak, swtch.TrimBytes)
			}
		}
		for i := 0; i < 3; i++ {
			for prio := uint8(0); prio < 8; prio++ {
				if n := b.sw.IngressBytes(i, prio); n != 0 {
					t.Errorf("%s: port %d priority %d still holds %d bytes", c.name, i, prio, n)
				}
			}
		}
	}
}
