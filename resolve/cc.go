package resolve

import (
	"strings"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// CCConfig holds the congestion controls' parameters, from the top-level
// hca: block over their defaults, by the control's name (kind.CC.Name):
// each a pointer to the control's own parameter struct
// (the struct its congestion.Define names). Which control a host runs is its
// profile's CC; the parameters are the same for every host (a per-host
// hca: override may choose the control, not its parameters).
type CCConfig map[string]any

// ccConfig reads the parameters of every congestion control an Ethernet
// NIC runs (hca.<name>) over their defaults; InfiniBand's own are read
// with the rest of InfiniBand's setup (infiniband), as a file on
// Ethernet that gives them is refused there.
func (b *builder) ccConfig(h *scenario.HCAS) CCConfig {
	c := CCConfig{}
	for _, row := range kind.CCs() {
		if row.Ethernet {
			b.ccParams(c, row.Name, h)
		}
	}
	return c
}

// ccParams sets c[name] to hca.<name> over the control's defaults (its
// preset's, when the file names one): each value given is checked where
// it is, then the whole set.
func (b *builder) ccParams(c CCConfig, name string, h *scenario.HCAS) {
	ctl, ok := congestion.Lookup(name)
	if !ok {
		return
	}
	sec := h.CCParams(name)
	preset := ""
	for _, g := range sec.Given {
		if g.Param.Preset {
			preset = g.V.(string)
		}
	}
	p := ctl.Defaults(preset)
	path := "hca." + name + "."
	for _, g := range sec.Given {
		if msg := g.Param.Check(g.V); msg != "" {
			b.errorf(g.Pos, path+g.Param.Key, "%s", msg)
		}
		g.Param.Set(p, g.V)
	}
	for _, pr := range ctl.Check(p) {
		b.errorf(sec.KeyPos(pr.Key), path+pr.Key, "%s", pr.Msg)
	}
	c[name] = p
}

// ccGiven says whether the top-level hca.<name> gives key.
func (b *builder) ccGiven(name string) func(key string) bool {
	sec := b.f.HCA.CCParams(name)
	return sec.Has
}

// marking is the switches' ECN marking a congestion control asks for
// when the file gives no switch.ecn: its own, or the defaults turned on.
func marking(row kind.CC, ecn swtch.ECN) swtch.ECN {
	if m := row.Marking; m != nil {
		return swtch.ECN{Enabled: true, Kmin: m.Kmin, Kmax: m.Kmax, Pmax: m.Pmax, AtEnqueue: m.AtEnqueue}
	}
	ecn.Enabled = true
	return ecn
}

// setTime copies a time that the file gives.
func setTime(dst *sim.Time, v scenario.TimeV) {
	if v.Set {
		*dst = v.V
	}
}

// noNodeCCParams rejects congestion parameters in a per-host override.
func (b *builder) noNodeCCParams(h *scenario.HCAS, path string) {
	for _, row := range kind.CCs() {
		if k := row.Name; len(row.Params) > 0 && h.Has(k) {
			b.errorf(h.KeyPos(k), path+"."+k, "congestion-control parameters are the same for every host: set them under the top-level hca:, not per host")
		}
	}
}

// ApplyCCToProfile sets what a host's congestion control needs of its
// NIC (kind.CC): the notification point's CNP pacing, an ACK for every
// packet, marks echoed in ACKs instead of CNPs.
func ApplyCCToProfile(p *hca.Profile, c CCConfig) {
	ctl, ok := congestion.Lookup(p.CC)
	if !ok {
		return
	}
	if ctl.CNP != nil {
		p.CNPInterval, p.CNPWindowed = ctl.CNP(c[p.CC])
	}
	if ctl.CNPClass != nil {
		p.CNPDSCP, p.CNPPriority = ctl.CNPClass(c[p.CC])
	}
	if ctl.AckEvery {
		p.AckEvery = 1
	}
	if ctl.EchoECN {
		p.EchoECN = true
	}
}

// ccList lists the rows of the table that keep says, each as show
// writes it, in the table's order.
func ccList(keep func(kind.CC) bool, show func(kind.CC) string) []string {
	var out []string
	for _, row := range kind.CCs() {
		if keep(row) {
			out = append(out, show(row))
		}
	}
	return out
}

// orList writes items as a message does: "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// ccName is a row's name, for ccList.
func ccName(row kind.CC) string { return row.Name }
