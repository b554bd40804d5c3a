package assembly

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Defaults that are the scenario format's own (the profiles' defaults live
// with the profiles).
const (
	defaultSeed          = 1
	defaultStop          = 10 * sim.Millisecond
	defaultInterval      = 10 * sim.Microsecond
	defaultDeadlockAfter = 50 * sim.Microsecond
)

// defaultLink is a link's profile when the file gives none: 100 Gb/s, the
// common RoCE host speed, and 1 µs, SCENARIO.md's example delay.
var defaultLink = fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}

// builder turns the decoded schema into a Scenario, checking what needs
// more than one value (names against the topology, xon against xoff, ...).
type builder struct {
	d   *scenario.Decoder
	f   *scenario.File
	lim limits
	s   *Scenario

	t       *fabric.Topology // nil when the topology could not be built
	topoOK  bool             // t is complete and passed its checks
	flowsOK bool             // every generator expanded (flow ids are final)
	hostNms []string         // host names in host order
	names   []string         // all node names, once needed (allNames)
	swNames []string         // switch names, once needed (switchNames)
	declPos map[fabric.NodeID]scenario.Pos
}

func build(d *scenario.Decoder, f *scenario.File, lim limits) *Scenario {
	s := &Scenario{
		File:    d.File,
		Name:    scenario.DefaultName(d.File),
		Seed:    defaultSeed,
		Stop:    Stop{At: defaultStop},
		Routing: fabric.RoutingECMP,
		Switch:  swtch.DefaultProfile(),
		HCA:     hca.DefaultProfile(),
		Observe: observe.Config{
			Interval:      defaultInterval,
			Links:         observe.Selector{All: true},
			Queues:        observe.Selector{All: true},
			Flows:         observe.Selector{All: true},
			DeadlockAfter: defaultDeadlockAfter,
		},
	}
	b := &builder{d: d, f: f, lim: lim, s: s}
	b.header()
	b.applySwitch(&s.Switch, &f.Switch, "switch")
	b.applyHCA(&s.HCA, &f.HCA)
	s.CC = b.ccConfig(&f.HCA)
	if s.HCA.CC == "dcqcn" && !f.Switch.Has("ecn") {
		// DCQCN needs marking switches: on by default, with the paper's
		// kmin/kmax/pmax (switch.ecn: off turns it off).
		s.Switch.ECN.Enabled = true
	}
	if s.Switch.ECN.Enabled && s.HCA.CC == "none" {
		b.warnf(f.Switch.KeyPos("ecn"), "switch.ecn", "ECN marking is on but hca.cc is none: NICs send Not-ECT packets without congestion control, so nothing will be marked")
	}
	b.topology()
	b.routes()
	b.traffic()
	b.observe()
	b.expect()
	b.faults()
	return s
}

// list is listNames, skipped once errors are no longer kept.
func (b *builder) list(names []string) string {
	if b.d.Full() {
		return ""
	}
	return scenario.ListNames(names)
}

// allNames returns every node name in id order, computed once.
func (b *builder) allNames() []string {
	if b.names == nil {
		b.names = b.t.Names()
	}
	return b.names
}

func (b *builder) errorf(p scenario.Pos, path, format string, args ...any) {
	b.d.Errorf(p, path, format, args...)
}

func (b *builder) warnf(p scenario.Pos, path, format string, args ...any) {
	b.d.Warnf(p, path, format, args...)
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (b *builder) header() {
	f, s := b.f, b.s
	if f.Name.Set {
		if !validName.MatchString(f.Name.V) {
			b.errorf(f.Name.Pos, "name", "%s is not a valid name: use letters, digits, '.', '_' and '-', starting with a letter or digit (it names the output folder)", scenario.Quote(f.Name.V))
		}
		s.Name = f.Name.V
	}
	s.Description = f.Description.V
	if f.Seed.Set {
		s.Seed = f.Seed.V
	}
	st := &f.Stop
	seen := map[string]bool{}
	for _, w := range st.When.Items {
		if seen[w.V] {
			b.errorf(w.Pos, "stop.when", "%s is listed twice", w.V)
		}
		seen[w.V] = true
		switch w.V {
		case "flows-done":
			s.Stop.WhenFlowsDone = true
		case "deadlock":
			s.Stop.WhenDeadlock = true
		}
	}
	if st.At.Set {
		s.Stop.At = st.At.V
		if st.At.V == 0 {
			if len(st.When.Items) == 0 {
				b.errorf(st.At.Pos, "stop.at", "0 means no time limit, which needs a when: condition; give a time such as 10ms or add when: flows-done")
			}
			s.Stop.At = sim.Never
		}
	}
}

// applySwitch overrides p with what block s gives; path names the block
// in messages.
func (b *builder) applySwitch(p *swtch.Profile, s *scenario.SwitchS, path string) {
	if !s.Set {
		return
	}
	if s.Buffer.Set {
		p.Buffer = s.Buffer.V
	}
	if s.Latency.Set {
		p.Latency = s.Latency.V
	}
	if s.Forwarding.Set {
		p.CutThrough = s.Forwarding.V == "cut-through"
	}
	if s.Reserved.Set {
		p.Reserved = s.Reserved.V
	}
	if s.IngressTh.Given() {
		p.IngressThreshold = threshold(&s.IngressTh)
	}
	if s.EgressTh.Given() {
		p.EgressThreshold = threshold(&s.EgressTh)
	}
	pf := &s.PFC
	if pf.Has("priorities") {
		p.PFC.Priorities = []uint8{}
		seen := map[int64]bool{}
		for _, pr := range pf.Priorities {
			if !pr.Set {
				continue
			}
			if seen[pr.V] {
				b.errorf(pr.Pos, path+".pfc.priorities", "priority %d is listed twice", pr.V)
				continue
			}
			seen[pr.V] = true
			p.PFC.Priorities = append(p.PFC.Priorities, uint8(pr.V))
		}
	} else {
		p.PFC.Priorities = append([]uint8(nil), p.PFC.Priorities...) // no sharing between profiles
	}
	if pf.XOFF.Bytes.Set {
		p.PFC.XOFF, p.PFC.XOFFAlpha = pf.XOFF.Bytes.V, 0
	}
	if pf.XOFF.Dyn.Alpha.Set {
		p.PFC.XOFFAlpha = pf.XOFF.Dyn.Alpha.V
	}
	if pf.XON.Bytes.Set {
		p.PFC.XON, p.PFC.XONOffset = pf.XON.Bytes.V, 0
	}
	if off := pf.XON.Rel.Offset; off.Set {
		p.PFC.XONOffset = off.V
		if off.V > p.PFC.XOFF {
			b.errorf(off.Pos, path+".pfc.xon.offset", "offset (%s) must not exceed xoff (%s)", off.V, p.PFC.XOFF)
		}
	}
	if p.PFC.XONOffset > 0 && p.PFC.XONOffset <= p.PFC.XOFF {
		p.PFC.XON = p.PFC.XOFF - p.PFC.XONOffset
	}
	if (pf.XON.Bytes.Set || pf.XOFF.Bytes.Set) && p.PFC.XON > p.PFC.XOFF {
		at, key := pf.XON.Bytes.Pos, ".pfc.xon"
		if !pf.XON.Bytes.Set {
			at, key = pf.XOFF.Bytes.Pos, ".pfc.xoff"
		}
		b.errorf(at, path+key, "xon (%s) must not exceed xoff (%s)", p.PFC.XON, p.PFC.XOFF)
	}
	if (pf.XOFF.Bytes.Set || s.Buffer.Set) && p.PFC.XOFFAlpha == 0 && p.PFC.XOFF >= p.Buffer {
		at, key := pf.XOFF.Bytes.Pos, ".pfc.xoff"
		if !pf.XOFF.Bytes.Set {
			at, key = s.Buffer.Pos, ".buffer"
		}
		b.errorf(at, path+key, "xoff (%s) must be below the buffer (%s)", p.PFC.XOFF, p.Buffer)
	}
	if pf.Has("headroom") {
		p.PFC.HeadroomAuto, p.PFC.Headroom = pf.Headroom.Auto, pf.Headroom.Size.V
	}
	if pf.Has("response") {
		p.PFC.ResponseAuto, p.PFC.Response = pf.Response.Auto, pf.Response.Time.V
	}
	if w := &pf.Watchdog; w.Set {
		// Keys left out take SCENARIO.md's example values.
		wd := swtch.Watchdog{Detect: 200 * sim.Microsecond, Restore: sim.Millisecond, Action: "drop"}
		if p.PFC.Watchdog != nil {
			wd = *p.PFC.Watchdog
		}
		if w.Detect.Set {
			wd.Detect = w.Detect.V
		}
		if w.Restore.Set {
			wd.Restore = w.Restore.V
		}
		if w.Action.Set {
			wd.Action = w.Action.V
		}
		p.PFC.Watchdog = &wd
	}
	if s.EgressFIFO.Set {
		p.EgressFIFO = s.EgressFIFO.V
	}
	if s.FloodLossless.Set {
		p.FloodLossless = s.FloodLossless.V
	}
	if s.Tagger.Set {
		p.Tagger = s.Tagger.V
	}
	if s.Has("ecn") {
		e := &s.ECN
		p.ECN.Enabled = !e.Off
		if e.Kmin.Set {
			p.ECN.Kmin = e.Kmin.V
		}
		if e.Kmax.Set {
			p.ECN.Kmax = e.Kmax.V
		}
		if e.Pmax.Set {
			p.ECN.Pmax = e.Pmax.V
		}
		if e.Mark.Set {
			p.ECN.AtEnqueue = e.Mark.V == "enqueue"
		}
	}
	if s.Has("scheduler") {
		p.DWRR = nil
		if len(s.Scheduler.DWRR) > 0 {
			p.DWRR = map[uint8]int{}
			for _, k := range slices.Sorted(maps.Keys(s.Scheduler.DWRR)) {
				p.DWRR[uint8(k)] = int(s.Scheduler.DWRR[k])
			}
		}
	}
	if s.ECMPSeed.Set {
		p.ECMPSeed = s.ECMPSeed.V
	}
	if s.ECMPPerSwitch.Set {
		p.ECMPPerSwitch = s.ECMPPerSwitch.V
	}
	if s.LinkLayer.Set {
		p.LinkLayer = s.LinkLayer.V
	}
}

var retransmits = map[string]hca.Retransmit{"go-back-n": hca.GoBackN, "go-back-0": hca.GoBack0, "selective": hca.Selective}

// applyHCA overrides p with what block h gives.
func (b *builder) applyHCA(p *hca.Profile, h *scenario.HCAS) {
	if !h.Set {
		return
	}
	set := func(dst *int, v scenario.IntV) {
		if v.Set {
			*dst = int(v.V)
		}
	}
	set(&p.MTU, h.MTU)
	if h.Priority.Set {
		p.Priority = uint8(h.Priority.V)
	}
	if h.Retransmit.Set {
		p.Retransmit = retransmits[h.Retransmit.V]
	}
	set(&p.AckTimeout, h.AckTimeout)
	set(&p.RetryCount, h.RetryCount)
	set(&p.RNRRetry, h.RNRRetry)
	set(&p.MaxRdAtomic, h.MaxRdAtomic)
	set(&p.AckEvery, h.AckEvery)
	for _, t := range []struct {
		dst *sim.Time
		v   scenario.TimeV
	}{{&p.DoorbellLatency, h.DoorbellLatency}, {&p.WQEFetchLatency, h.WQEFetchLatency}, {&p.DMALatency, h.DMALatency},
		{&p.TxPktLatency, h.TxPktLatency}, {&p.RxPktLatency, h.RxPktLatency}, {&p.RTOLow, h.RTOLow}, {&p.RTOHigh, h.RTOHigh}} {
		if t.v.Set {
			*t.dst = t.v.V
		}
	}
	if h.MaxInline.Set {
		p.MaxInline = int(h.MaxInline.V)
	}
	if p.RTOLow > p.RTOHigh && (h.RTOLow.Set || h.RTOHigh.Set) {
		at := h.RTOLow.Pos
		if !h.RTOLow.Set {
			at = h.RTOHigh.Pos
		}
		b.errorf(at, "hca.rto_low", "rto_low (%s) is above rto_high (%s); IRN uses the low one for short flights", p.RTOLow, p.RTOHigh)
	}
	if h.Has("rx_rate") {
		p.RxRate = 0
		if !h.RxRate.Line {
			p.RxRate = h.RxRate.Rate.V
		}
	}
	if h.CC.Set {
		p.CC = h.CC.V
	}
	if h.PFCWatchdog.After.Set {
		p.PFCWatchdog = h.PFCWatchdog.After.V
	}
	if len(p.CCParams) > 0 { // no sharing between profiles
		m := make(map[string]string, len(p.CCParams))
		for k, v := range p.CCParams {
			m[k] = v
		}
		p.CCParams = m
	}
}

// ---- topology

// link returns base overridden by l's fields.
func link(base fabric.LinkSpec, l *scenario.LinkS) fabric.LinkSpec {
	if l.Rate.Set {
		base.Rate = l.Rate.V
	}
	if l.Delay.Set {
		base.Delay = l.Delay.V
	}
	return base
}

// satMul multiplies non-negative numbers, saturating instead of
// overflowing.
func satMul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x != 0 && p > math.MaxInt64/x {
			return math.MaxInt64
		}
		p *= x
	}
	return p
}

// fits checks a generated topology's size against the limits.
func (b *builder) fits(at scenario.Pos, hosts, switches, links int64) bool {
	what := ""
	switch {
	case hosts > int64(b.lim.Hosts):
		what = fmt.Sprintf("%s hosts; at most %d are supported", count(hosts), b.lim.Hosts)
	case switches > int64(b.lim.Switches):
		what = fmt.Sprintf("%s switches; at most %d are supported", count(switches), b.lim.Switches)
	case links > int64(b.lim.Links):
		what = fmt.Sprintf("%s links; at most %d are supported", count(links), b.lim.Links)
	case satMul(switches, hosts) > int64(b.lim.RouteEntries) || satMul(switches, switches) > int64(b.lim.RouteEntries)/4:
		what = fmt.Sprintf("%s switches and %s hosts, too many for the routing tables (one entry per switch and host)", count(switches), count(hosts))
	default:
		return true
	}
	b.errorf(at, "topology", "this topology would have %s", what)
	return false
}

func count(n int64) string {
	if n == math.MaxInt64 {
		return "more than 9223372036854775806"
	}
	return strconv.FormatInt(n, 10)
}

func (b *builder) topology() {
	tv := &b.f.Topology
	var t *fabric.Topology
	var err error
	switch s := tv.Spec.(type) {
	case *scenario.StarS:
		if !s.Hosts.Set || !b.fits(s.Hosts.Pos, s.Hosts.V, 1, s.Hosts.V) {
			return
		}
		t, err = fabric.Star(int(s.Hosts.V), link(defaultLink, &s.Link))
	case *scenario.DumbbellS:
		if !s.Left.Set || !s.Right.Set || !b.fits(tv.Pos, s.Left.V+s.Right.V, 2, s.Left.V+s.Right.V+1) {
			return
		}
		l := link(defaultLink, &s.Link)
		t, err = fabric.Dumbbell(int(s.Left.V), int(s.Right.V), l, link(l, &s.Bottleneck))
	case *scenario.LeafSpineS:
		if !s.Leaves.Set || !s.Spines.Set || !s.HostsPerLeaf.Set {
			return
		}
		h := satMul(s.Leaves.V, s.HostsPerLeaf.V)
		if !b.fits(tv.Pos, h, s.Leaves.V+s.Spines.V, h+satMul(s.Leaves.V, s.Spines.V)) {
			return
		}
		l := link(defaultLink, &s.Link)
		t, err = fabric.LeafSpine(int(s.Leaves.V), int(s.Spines.V), int(s.HostsPerLeaf.V), link(l, &s.HostLink), link(l, &s.FabricLink))
	case *scenario.FatTreeS:
		if !s.K.Set {
			return
		}
		k := s.K.V
		if k%2 != 0 {
			b.errorf(s.K.Pos, "topology.k", "a fat-tree needs an even k; %d is odd", k)
			return
		}
		if k > int64(b.lim.FatTreeK) {
			b.errorf(s.K.Pos, "topology.k", "%d is too large; the largest fat-tree supported has k = %d", k, b.lim.FatTreeK)
			return
		}
		if !b.fits(s.K.Pos, k*k*k/4, 5*k*k/4, 3*k*k*k/4) {
			return
		}
		t, err = fabric.FatTree(int(k), link(defaultLink, &s.Link))
	case *scenario.RingS:
		if !s.Switches.Set {
			return
		}
		per := int64(1)
		if s.HostsPerSwitch.Set {
			per = s.HostsPerSwitch.V
		} else if s.Has("hosts_per_switch") {
			return
		}
		h := satMul(s.Switches.V, per)
		if !b.fits(tv.Pos, h, s.Switches.V, h+s.Switches.V) {
			return
		}
		t, err = fabric.Ring(int(s.Switches.V), int(per), link(defaultLink, &s.Link))
	case *scenario.ExplicitS:
		b.explicit(s)
		return
	default:
		return
	}
	if err != nil { // the schema's bounds should have caught it
		b.errorf(tv.Pos, "topology", "%v", err)
		return
	}
	b.setTopology(t)
	b.topoOK = true
	if err := t.Check(); err != nil {
		b.errorf(tv.Pos, "topology", "%v", err)
		b.topoOK = false
	}
}

func (b *builder) setTopology(t *fabric.Topology) {
	b.t, b.s.Topology = t, t
	for _, h := range t.Hosts() {
		b.hostNms = append(b.hostNms, t.Nodes[h].Name)
	}
}

// checkNodeName checks a name an explicit topology declares: it must be
// usable in port names (s0:p8, s0->h8) and lists (all).
func (b *builder) checkNodeName(n scenario.StrV, path string) bool {
	bad := ""
	switch {
	case n.V == "all" || n.V == "none":
		bad = n.V + " is a keyword (hosts: all)"
	case strings.Contains(n.V, "->"):
		bad = "-> is how ports are named (s0->h8)"
	default:
		for _, r := range n.V {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
				bad = fmt.Sprintf("%q is not allowed", r)
				break
			}
		}
	}
	if bad != "" {
		b.errorf(n.Pos, path, "%s is not a valid node name: %s; use letters, digits, '_', '-' and '.'", scenario.Quote(n.V), bad)
		return false
	}
	return true
}

func (b *builder) explicit(s *scenario.ExplicitS) {
	t := fabric.NewTopology()
	errs := b.d.ErrorCount()
	b.declPos = map[fabric.NodeID]scenario.Pos{}
	declared := map[string]scenario.Pos{}
	add := func(n scenario.StrV, kind fabric.NodeKind, path string) (fabric.NodeID, bool) {
		if !n.Set || !b.checkNodeName(n, path) {
			return 0, false
		}
		if first, dup := declared[n.V]; dup {
			b.errorf(n.Pos, path, "node %s is declared twice (first at %s)", scenario.Show(n.V), scenario.FirstAt(first, n.Pos))
			return 0, false
		}
		declared[n.V] = n.Pos
		id, err := t.AddNode(n.V, kind)
		if err != nil {
			b.errorf(n.Pos, path, "%v", err)
			return 0, false
		}
		b.declPos[id] = n.Pos
		return id, true
	}
	if !b.fits(b.f.Topology.Pos, int64(len(s.Hosts)), int64(len(s.Switches)), int64(len(s.Links))) {
		return
	}
	for i := range s.Hosts {
		h := &s.Hosts[i]
		id, ok := add(h.Name, fabric.Host, h.Path)
		if ok && h.HCA.Set {
			p := b.s.HCA
			b.applyHCA(&p, &h.HCA)
			b.noNodeCCParams(&h.HCA, h.Path+".hca")
			if b.s.HCAProfiles == nil {
				b.s.HCAProfiles = map[fabric.NodeID]hca.Profile{}
			}
			b.s.HCAProfiles[id] = p
		}
	}
	for i := range s.Switches {
		sw := &s.Switches[i]
		id, ok := add(sw.Name, fabric.Switch, sw.Path)
		if ok && sw.Switch.Set {
			p := b.s.Switch
			b.applySwitch(&p, &sw.Switch, sw.Path+".switch")
			if b.s.SwitchProfiles == nil {
				b.s.SwitchProfiles = map[fabric.NodeID]swtch.Profile{}
			}
			b.s.SwitchProfiles[id] = p
		}
	}
	b.setTopology(t)
	def := link(defaultLink, &s.Link)
	names := t.Names()
	for i := range s.Links {
		l := &s.Links[i]
		if !l.OK {
			continue
		}
		x, okA := b.nodeNamed(l.A, l.Path, names)
		y, okB := b.nodeNamed(l.B, l.Path, names)
		if !okA || !okB {
			continue
		}
		switch {
		case x == y:
			b.errorf(l.Pos, l.Path, "a link from %s to itself", scenario.Show(l.A.V))
			continue
		case t.Nodes[x].Kind == fabric.Host && t.Nodes[y].Kind == fabric.Host:
			b.errorf(l.Pos, l.Path, "a link between two hosts, %s and %s; hosts connect to switches", scenario.Show(l.A.V), scenario.Show(l.B.V))
			continue
		}
		spec := def
		if l.Rate.Set {
			spec.Rate = l.Rate.V
		}
		if l.Delay.Set {
			spec.Delay = l.Delay.V
		}
		t.Connect(x, y, spec)
	}
	if b.d.ErrorCount() > errs {
		return // the checks below would only repeat what is wrong
	}
	for id, n := range t.Nodes {
		if len(n.Ports) == 0 {
			b.errorf(b.declPos[fabric.NodeID(id)], "topology", "%s %s has no links", n.Kind, scenario.Show(n.Name))
		}
	}
	if b.d.ErrorCount() > errs || len(t.Hosts()) == 0 {
		if len(t.Hosts()) == 0 {
			b.errorf(s.KeyPos("hosts"), "topology.hosts", "the topology has no hosts")
		}
		return
	}
	// Connectivity through switches (hosts do not forward), from the first
	// host, as fabric.Topology.Check sees it; the error points at the first
	// node that cannot be reached.
	first := t.Hosts()[0]
	var cut []string
	var at scenario.Pos
	for _, id := range t.Unreachable() {
		if len(cut) == 0 {
			at = b.declPos[id]
		}
		cut = append(cut, t.Nodes[id].Name)
	}
	if len(cut) > 0 {
		b.errorf(at, "topology", "the topology is not connected: %s cannot be reached from %s", b.list(cut), scenario.Show(t.Nodes[first].Name))
		return
	}
	if err := t.Check(); err != nil {
		b.errorf(b.f.Topology.Pos, "topology", "%v", err)
		return
	}
	b.topoOK = true
}

// nodeNamed looks up any node by name.
func (b *builder) nodeNamed(n scenario.StrV, path string, names []string) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(n.V)
	if !ok {
		b.errorf(n.Pos, path, "unknown node %s%s; nodes are %s", scenario.Show(n.V), b.d.Suggest(n.V, names), b.list(names))
	}
	return id, ok
}

// host looks up a host by name.
func (b *builder) host(n scenario.StrV, path string) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(n.V)
	switch {
	case !ok:
		b.errorf(n.Pos, path, "unknown host %s%s; hosts are %s", scenario.Show(n.V), b.d.Suggest(n.V, b.hostNms), b.list(b.hostNms))
	case b.t.Nodes[id].Kind != fabric.Host:
		b.errorf(n.Pos, path, "%s is a switch, not a host; hosts are %s", scenario.Show(n.V), b.list(b.hostNms))
		ok = false
	}
	return id, ok
}

func (b *builder) switchNames() []string {
	if b.swNames == nil {
		b.swNames = []string{}
		for _, n := range b.t.Nodes {
			if n.Kind == fabric.Switch {
				b.swNames = append(b.swNames, n.Name)
			}
		}
	}
	return b.swNames
}

// neighbours lists the names of a node's peers, in port order, once each.
func (b *builder) neighbours(id fabric.NodeID) []string {
	var out []string
	seen := map[fabric.NodeID]bool{}
	for _, p := range b.t.Nodes[id].Ports {
		if p.Peer >= 0 && !seen[p.Peer] {
			seen[p.Peer] = true
			out = append(out, b.t.Nodes[p.Peer].Name)
		}
	}
	return out
}

// ---- routes

func (b *builder) routes() {
	r := b.f.Topology.Route
	if r == nil || b.t == nil {
		return
	}
	if r.Routing.Set {
		b.s.Routing = fabric.RoutingAlgo(r.Routing.V)
	}
	errs := b.d.ErrorCount()
	for _, it := range r.Routes.Items {
		path := strings.TrimSuffix(it.Path, "."+scenario.Show(it.Dst.V))
		at, ok := b.t.Lookup(it.At.V)
		switch {
		case !ok:
			sw := b.switchNames()
			b.errorf(it.At.Pos, "topology.routes", "unknown switch %s%s; switches are %s", scenario.Show(it.At.V), b.d.Suggest(it.At.V, sw), b.list(sw))
			continue
		case b.t.Nodes[at].Kind != fabric.Switch:
			b.errorf(it.At.Pos, "topology.routes", "%s is a host; routes are pinned at switches (switches are %s)", scenario.Show(it.At.V), b.list(b.switchNames()))
			continue
		}
		dst, ok := b.t.Lookup(it.Dst.V)
		switch {
		case !ok:
			b.errorf(it.Dst.Pos, path, "unknown host %s%s; hosts are %s", scenario.Show(it.Dst.V), b.d.Suggest(it.Dst.V, b.hostNms), b.list(b.hostNms))
			continue
		case b.t.Nodes[dst].Kind != fabric.Host:
			b.errorf(it.Dst.Pos, path, "%s is a switch; a route's destination is a host (hosts are %s)", scenario.Show(it.Dst.V), b.list(b.hostNms))
			continue
		}
		nb := b.neighbours(at)
		via, ok := b.t.Lookup(it.Via.V)
		if _, adj := b.t.PortTo(at, via); !ok || !adj {
			b.errorf(it.Via.Pos, it.Path, "%s is not a neighbour of %s%s; %s's neighbours are %s", scenario.Show(it.Via.V), scenario.Show(it.At.V), b.d.Suggest(it.Via.V, nb), scenario.Show(it.At.V), b.list(nb))
			continue
		}
		if b.t.Nodes[via].Kind == fabric.Host && via != dst {
			b.errorf(it.Via.Pos, it.Path, "%s is a host, and hosts do not forward; traffic for %s can go to a switch or to %s itself", scenario.Show(it.Via.V), scenario.Show(it.Dst.V), scenario.Show(it.Dst.V))
			continue
		}
		b.s.ExplicitRoutes = append(b.s.ExplicitRoutes, fabric.ExplicitRoute{At: at, Dst: dst, Via: via})
	}
	if !b.topoOK || b.d.ErrorCount() > errs {
		return
	}
	at, path := b.f.Topology.Pos, "topology"
	if r.Routes.Set {
		at, path = r.Routes.Pos, "topology.routes"
	} else if r.Routing.Set {
		at, path = r.Routing.Pos, "topology.routing"
	}
	routes, loops, err := fabric.ComputeRoutes(b.t, b.s.Routing, b.s.ExplicitRoutes)
	if err != nil {
		b.errorf(at, path, "%v", err)
		return
	}
	b.s.Routes = routes
	for _, l := range loops {
		b.warnf(at, path, "the pinned routes make a loop: %s (allowed, e.g. to build a deadlock on purpose)", l.Describe(b.t))
	}
}

// ---- traffic

// hostList resolves a list of host names (or all) for a generator, without
// duplicates.
func (b *builder) hostList(l *scenario.NameListV, path string) ([]fabric.NodeID, []scenario.Pos, bool) {
	if !l.Set || l.All {
		return b.t.Hosts(), nil, true
	}
	ok := true
	out := make([]fabric.NodeID, 0, len(l.Names))
	var at []scenario.Pos
	first := map[fabric.NodeID]scenario.Pos{}
	for _, n := range l.Names {
		if !n.Set {
			ok = false
			continue
		}
		id, found := b.host(n, path)
		if !found {
			ok = false
			continue
		}
		if at, dup := first[id]; dup {
			b.errorf(n.Pos, path, "%s is listed twice (first at %s)", scenario.Show(n.V), scenario.FirstAt(at, n.Pos))
			ok = false
			continue
		}
		first[id] = n.Pos
		out = append(out, id)
		at = append(at, n.Pos)
	}
	return out, at, ok
}

func (b *builder) traffic() {
	if len(b.f.Traffic) == 0 && b.f.Set {
		b.warnf(b.f.KeyPos("traffic"), "traffic", "no traffic: the run only idles until stop.at")
	}
	if b.t == nil {
		return
	}
	errs := b.d.ErrorCount()
	defer func() { b.flowsOK = b.d.ErrorCount() == errs }()
	lossless := b.losslessPriorities()
	for i := range b.f.Traffic {
		tv := &b.f.Traffic[i]
		if tv.Gen == nil {
			continue
		}
		path := tv.Path + "." + tv.Kind
		var com *scenario.GenCommon
		var pairs [][2]fabric.NodeID
		var n int64 // flows this generator makes, known before expanding
		switch g := tv.Gen.(type) {
		case *scenario.FlowS:
			com = &g.GenCommon
			src, ok1 := b.hostIf(g.From, path+".from")
			dst, ok2 := b.hostIf(g.To, path+".to")
			if !ok1 || !ok2 {
				continue
			}
			if src == dst {
				b.errorf(g.To.Pos, path+".to", "a flow from %s to itself", scenario.Show(g.To.V))
				continue
			}
			pairs = [][2]fabric.NodeID{{src, dst}}
			n = 1
		case *scenario.IncastS:
			com = &g.GenCommon
			dst, ok := b.hostIf(g.To, path+".to")
			if !g.From.Set {
				continue // missing, or not a list: reported
			}
			var srcs []fabric.NodeID
			if g.From.All {
				for _, h := range b.t.Hosts() {
					if h != dst {
						srcs = append(srcs, h)
					}
				}
			} else {
				var at []scenario.Pos
				var okl bool
				srcs, at, okl = b.hostList(&g.From, path+".from")
				ok = ok && okl
				for j, s := range srcs {
					if ok && s == dst {
						b.errorf(at[j], path+".from", "a flow from %s to itself: %s is the receiver (to:)", scenario.Show(g.To.V), scenario.Show(g.To.V))
						ok = false
					}
				}
			}
			if !ok {
				continue
			}
			for _, s := range srcs {
				pairs = append(pairs, [2]fabric.NodeID{s, dst})
			}
			n = int64(len(pairs))
		case *scenario.PermutationS, *scenario.AllToAllS:
			var hl *scenario.NameListV
			if p, isPerm := g.(*scenario.PermutationS); isPerm {
				com, hl = &p.GenCommon, &p.Hosts
			} else {
				a := g.(*scenario.AllToAllS)
				com, hl = &a.GenCommon, &a.Hosts
			}
			hosts, _, ok := b.hostList(hl, path+".hosts")
			if !ok {
				continue
			}
			if len(hosts) < 2 {
				at := hl.Pos
				if !hl.Set {
					at = tv.Pos
				}
				b.errorf(at, path+".hosts", "%s needs at least 2 hosts, not %d", tv.Kind, len(hosts))
				continue
			}
			n = int64(len(hosts))
			if tv.Kind == "all_to_all" {
				n = satMul(n, n-1)
			}
			if int64(len(b.s.Flows))+n > int64(b.lim.Flows) {
				b.tooManyFlows(tv, n)
				return
			}
			if tv.Kind == "permutation" {
				perm := derangement(sim.Stream(b.s.Seed, fmt.Sprintf("traffic/permutation/%d", i)), len(hosts))
				for j, s := range hosts {
					pairs = append(pairs, [2]fabric.NodeID{s, hosts[perm[j]]})
				}
			} else {
				for _, s := range hosts {
					for _, d := range hosts {
						if s != d {
							pairs = append(pairs, [2]fabric.NodeID{s, d})
						}
					}
				}
			}
		case *scenario.PerftestS, *scenario.PingpongS:
			b.test(i, tv, path)
			continue
		case *scenario.RingAllreduceS:
			if !b.ringAllreduce(i, tv, path, g, lossless) {
				return
			}
			continue
		case *scenario.PoissonS:
			b.poisson(i, tv, path, g, lossless)
			continue
		default:
			continue
		}
		if int64(len(b.s.Flows))+n > int64(b.lim.Flows) {
			b.tooManyFlows(tv, n)
			return
		}
		b.addFlows(i, tv, path, com, pairs, lossless)
	}
}

func (b *builder) tooManyFlows(tv *scenario.TrafficV, n int64) {
	b.errorf(tv.Pos, tv.Path, "this %s makes %s flows, %s in all; at most %d flows are supported", tv.Kind, count(n), count(n+int64(len(b.s.Flows))), b.lim.Flows)
}

// hostIf resolves a host name that was given (an unset name already has
// its error).
func (b *builder) hostIf(n scenario.StrV, path string) (fabric.NodeID, bool) {
	if !n.Set {
		return 0, false
	}
	return b.host(n, path)
}

// genSize is the size: of a generator (all modelled ones require it).
func genSize(g any) scenario.SizeV {
	switch g := g.(type) {
	case *scenario.FlowS:
		return g.Size
	case *scenario.IncastS:
		return g.Size
	case *scenario.PermutationS:
		return g.Size
	case *scenario.AllToAllS:
		return g.Size
	}
	return scenario.SizeV{}
}

func (b *builder) addFlows(gen int, tv *scenario.TrafficV, path string, com *scenario.GenCommon, pairs [][2]fabric.NodeID, lossless map[uint8]bool) {
	size := genSize(tv.Gen)
	if !size.Set {
		return
	}
	b.addFlowsSized(gen, tv, path, com, pairs, size, nil, nil, lossless)
}

// qpOp returns a generator's qp: and op: with their defaults (rc, write),
// and checks that they go together and with the largest message size
// (at that position); ok is false after an error.
func (b *builder) qpOp(tv *scenario.TrafficV, path string, com *scenario.GenCommon, srcs []fabric.NodeID, maxSize int64, sizeAt scenario.Pos) (qp, op string, ok bool) {
	qp, op = "rc", "write"
	if com.QP.Set {
		qp = com.QP.V
	}
	if com.Op.Set {
		op = com.Op.V
	}
	opAt := com.Op.Pos
	if !com.Op.Set {
		opAt = tv.Pos
	}
	switch {
	case qp == "ud" && op != "send":
		b.errorf(opAt, path+".op", "UD carries only SEND, not %s; use op: send with qp: ud", op)
		return qp, op, false
	case qp == "uc" && (op == "read" || op == "atomic"):
		b.errorf(opAt, path+".op", "UC has no %s (only RC does); use qp: rc", op)
		return qp, op, false
	}
	if op == "read" {
		for _, s := range srcs {
			if cc := b.s.HCAProfile(s).CC; cc == "hpcc" || cc == "timely" {
				b.warnf(opAt, path+".op", "%s does not control READs: the data is the responder's READ responses, which no ACK answers, so they go at line rate (DCQCN does control them)", strings.ToUpper(cc))
				break
			}
		}
	}
	for _, s := range srcs {
		prof := b.s.HCAProfile(s)
		if mtu := prof.MTU; qp == "ud" && maxSize > int64(mtu) {
			b.errorf(sizeAt, path+".size", "a UD message is at most one MTU (%d bytes), not %d bytes", mtu, maxSize)
			return qp, op, false
		}
		// A flow longer than the largest message is posted as several
		// work requests on one QP; they must fit its send queue.
		if limit := prof.MaxMsgSize * int64(prof.MaxSendWR); maxSize > limit {
			b.errorf(sizeAt, path+".size", "a flow is at most max_send_wr (%d) messages of %s, %s in all, not %s",
				prof.MaxSendWR, fabric.Size(prof.MaxMsgSize), fabric.Size(limit), fabric.Size(maxSize))
			return qp, op, false
		}
	}
	return qp, op, true
}

// addFlowsSized adds one flow per pair: of size sizes[i] (or size when
// sizes is nil), waiting for the flows after[i] (none when after is nil).
func (b *builder) addFlowsSized(gen int, tv *scenario.TrafficV, path string, com *scenario.GenCommon, pairs [][2]fabric.NodeID, size scenario.SizeV, sizes []int64, after [][]int, lossless map[uint8]bool) {
	srcs := make([]fabric.NodeID, len(pairs))
	for i, p := range pairs {
		srcs[i] = p[0]
	}
	largest := int64(size.V)
	for _, sz := range sizes {
		largest = max(largest, sz)
	}
	qp, op, ok := b.qpOp(tv, path, com, srcs, largest, size.Pos)
	if !ok {
		return
	}
	if op == "atomic" && size.V != 8 {
		b.errorf(size.Pos, path+".size", "an atomic is 8 bytes, not %s", size.V)
		return
	}
	warned := false
	firstID := len(b.s.Flows)
	for _, p := range pairs {
		prio := b.s.HCAProfile(p[0]).Priority
		if com.Priority.Set {
			prio = uint8(com.Priority.V)
		}
		if lossless != nil && !lossless[prio] && !warned {
			warned = true
			at := com.Priority.Pos
			if !com.Priority.Set {
				at = tv.Pos
			}
			b.warnf(at, path, "priority %d is not lossless on every switch (switch.pfc.priorities); its packets can be dropped", prio)
		}
		f := Flow{
			ID: len(b.s.Flows), Src: p[0], Dst: p[1], QP: qp, Op: op,
			Size: int64(size.V), Start: com.Start.V, Priority: prio,
			Generator: gen, Pos: tv.Pos,
		}
		if sizes != nil {
			f.Size = sizes[len(b.s.Flows)-firstID]
		}
		if after != nil {
			f.After = after[len(b.s.Flows)-firstID]
		}
		b.s.Flows = append(b.s.Flows, f)
	}
	if com.Start.Set && com.Start.V >= b.s.Stop.At {
		b.warnf(com.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", com.Start.V, b.s.Stop.At)
	}
}

// losslessPriorities is the set of priorities that PFC protects on every
// switch, or nil when PFC is off everywhere (a lossy fabric on purpose).
func (b *builder) losslessPriorities() map[uint8]bool {
	profiles := []swtch.Profile{b.s.Switch}
	for _, p := range b.s.SwitchProfiles {
		profiles = append(profiles, p)
	}
	count := map[uint8]int{}
	on := false
	for _, p := range profiles {
		for _, pr := range p.PFC.Priorities {
			count[pr]++
			on = true
		}
	}
	if !on {
		return nil
	}
	out := map[uint8]bool{}
	for pr, c := range count {
		out[pr] = c == len(profiles)
	}
	return out
}

var qpTypes = map[string]hca.QPType{"rc": hca.RC, "uc": hca.UC, "ud": hca.UD}

// test checks a perftest or pingpong generator and adds it to Tests,
// with the tools' defaults filled in.
func (b *builder) test(gen int, tv *scenario.TrafficV, path string) {
	var from, to scenario.StrV
	var com *scenario.GenCommon
	switch g := tv.Gen.(type) {
	case *scenario.PerftestS:
		from, to, com = g.From, g.To, &g.GenCommon
	case *scenario.PingpongS:
		from, to, com = g.From, g.To, &g.GenCommon
	}
	src, ok1 := b.hostIf(from, path+".from")
	dst, ok2 := b.hostIf(to, path+".to")
	if com.Op.Set {
		b.errorf(com.Op.Pos, path+".op", "%s chooses its operation itself (perftest's test:, pingpong always SENDs); remove op:", tv.Kind)
		ok1 = false
	}
	if !ok1 || !ok2 {
		return
	}
	if src == dst {
		b.errorf(to.Pos, path+".to", "a %s from %s to itself", tv.Kind, scenario.Show(to.V))
		return
	}
	qt := hca.RC
	if com.QP.Set {
		qt = qpTypes[com.QP.V]
	}
	prio := b.s.HCAProfile(src).Priority
	if com.Priority.Set {
		prio = uint8(com.Priority.V)
	}
	if lossless := b.losslessPriorities(); lossless != nil && !lossless[prio] {
		at := com.Priority.Pos
		if !com.Priority.Set {
			at = tv.Pos
		}
		b.warnf(at, path, "priority %d is not lossless on every switch (switch.pfc.priorities); its packets can be dropped", prio)
	}
	t := Test{Kind: tv.Kind, Src: src, Dst: dst, Generator: gen, Pos: tv.Pos}
	mtu := min(b.s.HCAProfile(src).MTU, b.s.HCAProfile(dst).MTU)
	switch g := tv.Gen.(type) {
	case *scenario.PerftestS:
		c := hca.PerftestConfig{Test: g.Test.V, Type: qt, Size: int64(g.Size.V), Iters: int(g.Iterations.V),
			QPs: int(g.QPs.V), TxDepth: int(g.TxDepth.V), CQMod: int(g.CQMod.V), RxDepth: int(g.RxDepth.V),
			Priority: prio, Start: com.Start.V}
		c = hca.PerftestDefaults(c)
		if err := hca.CheckPerftest(c, mtu); err != nil {
			at := tv.Pos
			for _, p := range []scenario.Pos{g.Size.Pos, com.QP.Pos, g.QPs.Pos} {
				if p.Line > 0 {
					at = p
					break
				}
			}
			b.errorf(at, path, "%s: %v", g.Test.V, err)
			return
		}
		if n := int64(c.Iters) * int64(c.QPs); n > 10_000_000 {
			b.errorf(g.QPs.Pos, path+".qps", "iterations × qps is %d; at most 10000000 are supported", n)
			return
		}
		t.Perftest = c
	case *scenario.PingpongS:
		c := hca.PingpongDefaults(hca.PingpongConfig{Type: qt, Size: int64(g.Size.V), Iters: int(g.Iterations.V),
			RxDepth: int(g.RxDepth.V), Priority: prio, Start: com.Start.V})
		if qt == hca.UD && c.Size > int64(mtu) {
			at := g.Size.Pos
			if !g.Size.Set {
				at = tv.Pos
			}
			b.errorf(at, path+".size", "a UD message is at most one MTU (%d bytes), not %d", mtu, c.Size)
			return
		}
		t.Pingpong = c
	}
	if com.Start.Set && com.Start.V >= b.s.Stop.At {
		b.warnf(com.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", com.Start.V, b.s.Stop.At)
	}
	b.s.Tests = append(b.s.Tests, t)
}

// derangement draws a uniformly random permutation of 0..n-1 without fixed
// points (n >= 2): Fisher-Yates, repeated until no element stays.
func derangement(r *rand.Rand, n int) []int {
	p := make([]int, n)
	for {
		for i := range p {
			p[i] = i
		}
		for i := n - 1; i > 0; i-- {
			j := int(uniform(r, uint64(i+1)))
			p[i], p[j] = p[j], p[i]
		}
		fixed := false
		for i, v := range p {
			if v == i {
				fixed = true
				break
			}
		}
		if !fixed {
			return p
		}
	}
}

// uniform draws from 0..n-1 (n > 0) by rejection sampling from Uint64, so
// that the sequence depends only on the stream, not on how a library
// version implements bounded draws.
func uniform(r *rand.Rand, n uint64) uint64 {
	rem := (math.MaxUint64%n + 1) % n // 2^64 mod n: the values to reject
	for {
		x := r.Uint64()
		if rem == 0 || x <= math.MaxUint64-rem {
			return x % n
		}
	}
}

// ---- observe and expect

// ports resolves a port reference: "s0:p8", "s0->h8", or (when
// wholeNodes) a node name meaning all its ports (hostsOnly: only a host's).
func (b *builder) ports(s scenario.StrV, path string, wholeNodes, hostsOnly bool) []observe.PortRef {
	v := s.V
	lookup := func(name string) (fabric.NodeID, bool) {
		id, ok := b.t.Lookup(name)
		if !ok {
			b.errorf(s.Pos, path, "unknown node %s%s; nodes are %s", scenario.Show(name), b.d.Suggest(name, b.allNames()), b.list(b.allNames()))
		}
		return id, ok
	}
	const forms = "a port is written node:pN (s0:p8) or node->peer (s0->h8)"
	if a, peer, ok := strings.Cut(v, "->"); ok {
		x, ok1 := lookup(a)
		if !ok1 {
			return nil
		}
		y, found := b.t.Lookup(peer)
		p, adj := b.t.PortTo(x, y)
		if !found || !adj {
			nb := b.neighbours(x)
			b.errorf(s.Pos, path, "%s has no port facing %s%s; its neighbours are %s", scenario.Show(a), scenario.Show(peer), b.d.Suggest(peer, nb), b.list(nb))
			return nil
		}
		return []observe.PortRef{{Node: x, Port: p}}
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		name, ps := v[:i], v[i+1:]
		num, err := strconv.Atoi(strings.TrimPrefix(ps, "p"))
		if !strings.HasPrefix(ps, "p") || err != nil || num < 0 || strings.HasPrefix(ps, "p+") || strings.HasPrefix(ps, "p-") {
			b.errorf(s.Pos, path, "%s is not a port; %s", scenario.Show(v), forms)
			return nil
		}
		x, ok := lookup(name)
		if !ok {
			return nil
		}
		np := len(b.t.Nodes[x].Ports)
		if num >= np {
			has := fmt.Sprintf("p0..p%d", np-1)
			switch np {
			case 0:
				has = "none"
			case 1:
				has = "p0"
			}
			b.errorf(s.Pos, path, "%s has no port p%d; its ports are %s", scenario.Show(name), num, has)
			return nil
		}
		return []observe.PortRef{{Node: x, Port: num}}
	}
	x, ok := b.t.Lookup(v)
	if !wholeNodes || (ok && hostsOnly && b.t.Nodes[x].Kind != fabric.Host) {
		what := forms
		if wholeNodes {
			what = "expected a host or a port; " + forms
		}
		if ok {
			b.errorf(s.Pos, path, "%s is a %s, not a port; %s", scenario.Show(v), b.t.Nodes[x].Kind, what)
		} else {
			b.errorf(s.Pos, path, "%s is not a port; %s", scenario.Show(v), forms)
		}
		return nil
	}
	if !ok {
		lookup(v)
		return nil
	}
	out := make([]observe.PortRef, len(b.t.Nodes[x].Ports))
	for i := range out {
		out[i] = observe.PortRef{Node: x, Port: i}
	}
	return out
}

func (b *builder) selector(s *scenario.SelV, path string) observe.Selector {
	if !s.Set || s.All {
		return observe.Selector{All: true}
	}
	out := observe.Selector{Ports: []observe.PortRef{}}
	if b.t == nil {
		return out
	}
	for i, it := range s.Items {
		if it.Set {
			out.Ports = append(out.Ports, b.ports(it, fmt.Sprintf("%s[%d]", path, i), true, false)...)
		}
	}
	return out
}

func (b *builder) observe() {
	o, so := &b.f.Observe, &b.s.Observe
	if o.Interval.Set {
		so.Interval = o.Interval.V
	}
	if o.Deadlock.After.Set {
		so.DeadlockAfter = o.Deadlock.After.V
	}
	so.Links = b.selector(&o.Links, "observe.links")
	so.Queues = b.selector(&o.Queues, "observe.queues")
	if o.Flows.Set && !o.Flows.All {
		so.Flows = observe.Selector{Flows: []int{}}
		for _, id := range o.Flows.IDs {
			if !id.Set || !b.flowsOK {
				continue
			}
			if id.V >= int64(len(b.s.Flows)) {
				b.errorf(id.Pos, "observe.flows", "flow %d does not exist; %s", id.V, flowRange(len(b.s.Flows)))
				continue
			}
			so.Flows.Flows = append(so.Flows.Flows, int(id.V))
		}
	}
	if b.t != nil {
		for i, p := range o.Pcap {
			if p.Set {
				so.Pcap = append(so.Pcap, b.ports(p, fmt.Sprintf("observe.pcap[%d]", i), true, true)...)
			}
		}
	}
}

func flowRange(n int) string {
	switch n {
	case 0:
		return "the traffic makes no flows"
	case 1:
		return "the only flow is 0"
	}
	return fmt.Sprintf("flows are 0..%d", n-1)
}

// given is an expect: check's value and where it was given, or nil when
// it was not.
func given[T any](set bool, v T, e *scenario.ExpectS, key string) (*T, string) {
	if !set {
		return nil, ""
	}
	return &v, cite(e.KeyPos(key))
}

// cite is where p is, for an expectation's failure: file:line:column, or
// "" when p is no place in the file.
func cite(p scenario.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

func (b *builder) expect() {
	e, se := &b.f.Expect, &b.s.Expect
	se.Drops, se.DropsAt = given(e.Drops.Set, e.Drops.V, e, "drops")
	se.Deadlock, se.DeadlockAt = given(e.Deadlock.Set, e.Deadlock.V, e, "deadlock")
	se.Storm, se.StormAt = given(e.Storm.Set, e.Storm.V, e, "storm")
	se.MinPauseFraction = b.pauseChecks(&e.MinPauseFraction, "expect.min_pause_fraction")
	if fc := &e.FlowsCompleted; fc.All || fc.N.Set {
		v := -1
		if fc.N.Set {
			v = int(min(fc.N.V, math.MaxInt32))
			if b.flowsOK && fc.N.V > int64(len(b.s.Flows)) {
				b.errorf(fc.N.Pos, "expect.flows_completed", "%d is more than the number of flows (%d)", fc.N.V, len(b.s.Flows))
			}
		}
		se.FlowsCompleted, se.FlowsCompletedAt = &v, cite(e.KeyPos("flows_completed"))
	}
	se.MinFairness, se.MinFairnessAt = given(e.MinFairness.Set, e.MinFairness.V, e, "min_fairness")
	se.MaxPauseFraction = b.pauseChecks(&e.MaxPauseFraction, "expect.max_pause_fraction")
	se.MinMeanSlowdown, se.MinMeanSlowdownAt = given(e.MinMeanSlowdown.Set, e.MinMeanSlowdown.V, e, "min_mean_slowdown")
	se.MaxMeanSlowdown, se.MaxMeanSlowdownAt = given(e.MaxMeanSlowdown.Set, e.MaxMeanSlowdown.V, e, "max_mean_slowdown")
}

// pauseChecks reads expect.max_pause_fraction or min_pause_fraction.
func (b *builder) pauseChecks(pc *scenario.PauseChecksV, key string) []observe.PauseFractionCheck {
	var out []observe.PauseFractionCheck
	for i, c := range pc.Items {
		if !c.Port.Set || !c.Value.Set || b.t == nil {
			continue
		}
		path := key
		if !pc.One {
			path = fmt.Sprintf("%s[%d]", path, i)
		}
		ps := b.ports(c.Port, path+".port", false, false)
		if len(ps) == 1 {
			out = append(out, observe.PauseFractionCheck{Port: ps[0], Value: c.Value.V, At: cite(c.Pos)})
		}
	}
	return out
}

// faults checks every fault (faultcheck.go) and builds what the run
// applies.
func (b *builder) faults() {
	if b.t == nil {
		return
	}
	for i := range b.f.Faults {
		if f, ok := b.fault(&b.f.Faults[i], fmt.Sprintf("faults[%d]", i)); ok {
			b.s.Faults = append(b.s.Faults, f)
		}
	}
}

// lossRate reads a loss probability: a number (1e-4, 0.004), a
// percentage (0.1%) or a ratio (1/256), in (0, 1].
func lossRate(v string) (float64, error) {
	bad := fmt.Errorf("expected a probability such as 1e-4, 0.1%% or 1/256, found %s", scenario.Quote(v))
	t := strings.TrimSpace(v)
	var x float64
	var err error
	switch {
	case strings.HasSuffix(t, "%"):
		x, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
		x /= 100
	case strings.Contains(t, "/"):
		num, den, _ := strings.Cut(t, "/")
		var n, d float64
		n, err = strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err == nil {
			d, err = strconv.ParseFloat(strings.TrimSpace(den), 64)
		}
		if err == nil && d == 0 {
			return 0, bad
		}
		x = n / d
	default:
		x, err = strconv.ParseFloat(t, 64)
	}
	if err != nil || math.IsNaN(x) {
		return 0, bad
	}
	if x <= 0 || x > 1 {
		return 0, fmt.Errorf("a loss probability is more than 0 and at most 1, not %s", v)
	}
	return x, nil
}

// threshold is switch.ingress_threshold or egress_threshold as the MMU
// takes it: dynamic (alpha) or static (bytes).
func threshold(x *scenario.ThresholdV) swtch.Threshold {
	if x.Dyn.Alpha.Set {
		return swtch.Threshold{Alpha: x.Dyn.Alpha.V}
	}
	return swtch.Threshold{Bytes: x.Bytes.V}
}
