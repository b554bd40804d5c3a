package metamorphic

import (
	"strconv"

	"github.com/lfsim/lfsim/kind"
)

// The congestion controls the generator draws are the table's
// (kind.CCs), those the link layer allows, in the table's order: a
// control registered later is drawn too, with defaultWeight and its
// defaults. ccDraw holds what the generator knows of some: their weights
// and how it draws their parameters (the weights and draws it had when
// it named them itself, so that a seed makes the scenario it made then).

// ccDraw is the generator's choice for one control.
type ccDraw struct {
	// weight among the RDMA controls of RoCEv2 (and of InfiniBand), and
	// of RoCEv1 (which takes those that need neither ECN nor INT).
	weight, rocev1 int
	// uet is its weight under UET (0: defaultWeight).
	uet int
	// params draws hca.<name>'s keys, nil for none (the file gives no
	// hca.<name>: its defaults).
	params func(g *gen) []KV
}

// The weights of a control ccDraws does not list: on Ethernet as TIMELY
// and HPCC weigh, on InfiniBand (where "none" weighs 1) as IB CC does.
const defaultWeight, defaultIBWeight = 15, 2

var ccDraws = map[string]ccDraw{
	"dcqcn": {weight: 25, params: func(g *gen) []KV {
		var d []KV
		if g.chance(0.5) {
			d = append(d, KV{"variant", one(g, "paper", "nvidia")})
			if g.chance(0.5) {
				d = append(d, KV{"rpg_ai_rate", one(g, "5Mbps", "40Mbps")}, KV{"rpg_hai_rate", one(g, "50Mbps", "400Mbps")})
			}
			if g.chance(0.3) {
				d = append(d, KV{"min_time_between_cnps", one(g, "4us", "50us")})
			}
		}
		// The CNPs' class and NVIDIA's keys (issue 47's QoS).
		return append(d, g.notificationQoS()...)
	}},
	"hpcc": {weight: 15, params: func(g *gen) []KV {
		if !g.chance(0.5) {
			return nil
		}
		return []KV{{"eta", one(g, "0.95", "90%")}, {"max_stage", strconv.Itoa(one(g, 0, 5))}}
	}},
	"timely": {weight: 15, rocev1: 40, params: func(g *gen) []KV {
		if !g.chance(0.5) {
			return nil
		}
		return []KV{{"t_low", "10us"}, {"t_high", "100us"}, {"min_rtt", "2us"}}
	}},
	"dctcp": {weight: 15, params: func(g *gen) []KV {
		if !g.chance(0.5) {
			return nil
		}
		d := []KV{{"g", one(g, "0.0625", "6.25%", "0.5")}}
		if g.chance(0.5) {
			d = append(d, KV{"initial_window", one(g, "16KiB", "64KiB")})
		}
		return d
	}},
	"ibcc": {weight: 2, params: func(g *gen) []KV {
		if !g.chance(0.5) {
			return nil
		}
		return []KV{{"ccti_increase", strconv.Itoa(g.between(1, 4))}, {"ccti_limit", "127"}, {"ccti_timer", one(g, "5us", "20us")}}
	}},
	// UET's NSCC (issue 53): UET's own, and beside RoCEv2's others.
	"nscc": {weight: 8, uet: 60, params: ueWindowParams},
}

// ccChoices are the pairs of name and weight (weighted's) of the
// controls keep allows, in the table's order, each weighing what weight
// reads from its ccDraw or else dflt, after first (the choices that name
// no control: no hca.cc, none).
func ccChoices(keep func(kind.CC) bool, weight func(ccDraw) int, dflt int, first ...any) []any {
	out := first
	for _, r := range kind.CCs() {
		if !keep(r) {
			continue
		}
		w := dflt
		if d, ok := ccDraws[r.Name]; ok {
			w = weight(d)
		}
		if w > 0 {
			out = append(out, r.Name, w)
		}
	}
	return out
}

// ccParams adds hca.<cc>'s keys, if the generator draws any for it.
func (g *gen) ccParams(cc string) {
	if d, ok := ccDraws[cc]; ok && d.params != nil {
		if p := d.params(g); p != nil {
			g.s.HCA = append(g.s.HCA, KV{cc, flowMap(p)})
		}
	}
}

// tcpCCs are hca.tcp.cc's values: the table's TCP controls.
func tcpCCs() []string { return kind.Names(func(r kind.CC) bool { return r.TCP }) }
