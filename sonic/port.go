package sonic

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A port's settings: lfsim's switch keys as the port's entries give them,
// each with the entry and field it comes from. Ports are compared key by
// key, as the keys' YAML text.

// setting is one key's value and where in the file it comes from.
type setting struct {
	node *yaml.Node
	text string
	from string // TABLE|KEY field
	at   int
}

// show is the setting's YAML text, or "nothing" for none.
func (s *setting) show() string {
	if s == nil {
		return "nothing"
	}
	return s.text
}

// portOut is one port's settings, by key ("pfc.xoff").
type portOut struct {
	port  string
	order []string
	vals  map[string]*setting
}

func (o *portOut) set(key string, n *yaml.Node, from string, at int) {
	if _, ok := o.vals[key]; !ok {
		o.order = append(o.order, key)
	}
	o.vals[key] = &setting{node: n, text: encode(n), from: from, at: at}
}

// encode is a node's YAML text on one line.
func encode(n *yaml.Node) string {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err.Error() // a node this package made: does not happen
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// keyOrder is the order of the keys in the mapping Read gives, as
// SCENARIO.md lists the switch's keys.
var keyOrder = []string{"buffer", "reserved", "ingress_threshold", "egress_threshold",
	"pfc.priorities", "pfc.xoff", "pfc.xon", "pfc.headroom", "pfc.watchdog",
	"ecn", "trust", "dscp2prio", "scheduler"}

// node is the port's settings as a mapping of switch keys (pfc's under
// pfc).
func (o *portOut) node() *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	var pfc *yaml.Node
	for _, k := range keyOrder {
		s := o.vals[k]
		if s == nil {
			continue
		}
		if sub, ok := strings.CutPrefix(k, "pfc."); ok {
			if pfc == nil {
				pfc = &yaml.Node{Kind: yaml.MappingNode}
				m.Content = append(m.Content, scalar("pfc"), pfc)
			}
			pfc.Content = append(pfc.Content, scalar(sub), s.node)
			continue
		}
		m.Content = append(m.Content, scalar(k), s.node)
	}
	return m
}

// port computes one port's settings (name "" for a file that configures
// no port: its switch-wide tables only).
func (r *reader) port(name string) *portOut {
	o := &portOut{port: name, vals: map[string]*setting{}}
	pe := r.byPort[name]
	if pe == nil {
		pe = &portEntries{pg: map[int]*entry{}, bq: map[int]*entry{}, queue: map[int]*entry{}}
	}
	c := r.classify(o, pe)
	if c == nil {
		return o
	}
	r.buffers(o, pe, c)
	r.schedule(o, pe, c)
	r.watchdog(o, pe, c)
	return o
}

// YAML nodes of the values Read gives: plain scalars, whose tags YAML
// resolves (a number is an int or a float, "5%" and "200ms" strings), and
// the small mappings and lists in flow style, as SCENARIO.md writes them.

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func intNode(n int64) *yaml.Node { return scalar(strconv.FormatInt(n, 10)) }

// alphaNode is {alpha: 2^n}: SAI's dynamic threshold n as the alpha of
// lfsim's dynamic thresholds (saibuffer.h, SAI_BUFFER_PROFILE_ATTR_
// SHARED_DYNAMIC_TH: "the threshold is set to the 2^n of available
// buffer of the pool").
func alphaNode(n int64) *yaml.Node {
	return flowMap("alpha", scalar(strconv.FormatFloat(math.Ldexp(1, int(n)), 'g', -1, 64)))
}

// flowMap is {k1: v1, k2: v2, ...}.
func flowMap(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, scalar(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return m
}

// intsNode is [a, b, ...].
func intsNode(xs []int) *yaml.Node {
	s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, x := range xs {
		s.Content = append(s.Content, intNode(int64(x)))
	}
	return s
}
