package sonic

import (
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// Classification: how a port gives a packet a traffic class (TC), and the
// class its queue, priority group (PG) and PFC priority. lfsim gives a
// packet one priority, which is its queue, the ingress accounting it is
// charged to and the PFC priority that pauses it (SCENARIO.md, "The
// switch's buffer"); so a SONiC port is read when, for the traffic
// classes its packets can have, the queue is the priority, a lossless
// queue's traffic is in a priority group of its own whose XOFF sends PFC
// for that queue's priority, and a received PFC priority pauses the
// queue of that number. The template's maps (qos_config.j2's "AZURE")
// are so; a port whose maps are not is refused at the map that breaks
// it. SAI's defaults, where a port binds no map (saiport.h): every packet
// has the port's default traffic class, 0 (SAI_PORT_ATTR_QOS_DEFAULT_TC),
// a TC with no queue goes to queue 0 (SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP:
// "Default no map, i.e. all packets to queue 0"), and to priority group
// 0 likewise.

// class is what the rest of a port's tables need of its classification.
type class struct {
	qos       *entry
	lossless  []int    // the lossless queues (= PFC priorities), sorted
	isLL      [8]bool  // by queue
	pgOf      [8]int   // a lossless queue's priority group
	reached   [8]bool  // the queues some packet reaches
	lossyPGs  []int    // the priority groups of the lossy queues reached, sorted
	pgLossy   [8][]int // a lossy priority group's queues
	dscpQ     [64]int  // each DSCP's queue (with trust: dscp)
	trustDSCP bool
}

// classify reads a port's PORT_QOS_MAP entry and the maps it binds,
// sets trust, dscp2prio and pfc.priorities, and returns the class (nil
// when it could not be read).
func (r *reader) classify(o *portOut, pe *portEntries) *class {
	if r.tables["PORT_QOS_MAP"] == nil {
		if len(r.ports) > 0 {
			r.errorf(r.root.at, "PORT_QOS_MAP", "the file configures ports' buffers or queues and has no PORT_QOS_MAP: lfsim reads those through a port's classification (which queues and priority groups are lossless, which carry traffic); give the whole config_db.json, or the qos template's tables with the buffer template's")
		} else {
			r.warnf(r.root.at, "", "the file has none of the tables that configure a port's QoS (PORT_QOS_MAP, BUFFER_PG, BUFFER_QUEUE, QUEUE, PFC_WD): nothing read")
		}
		return nil
	}
	q := pe.qos
	errs := r.nerr
	c := &class{qos: q}
	dscpM, dscpFrom := r.lookup(q, "dscp_to_tc_map", "DSCP_TO_TC_MAP"), q
	if q == nil || q.fields["dscp_to_tc_map"] == nil {
		// The switch's map (PORT_QOS_MAP|global, SAI_SWITCH_ATTR_QOS_
		// DSCP_TO_TC_MAP) is a port's without one of its own.
		dscpM, dscpFrom = r.lookup(r.global, "dscp_to_tc_map", "DSCP_TO_TC_MAP"), r.global
	}
	dot1pM := r.lookup(q, "dot1p_to_tc_map", "DOT1P_TO_TC_MAP")
	tcQ := r.lookup(q, "tc_to_queue_map", "TC_TO_QUEUE_MAP")
	tcPG := r.lookup(q, "tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP")
	pfcQ := r.lookup(q, "pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE")
	pfcPG := r.lookup(q, "pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP")
	r.unmodelledBindings(q)
	if r.nerr > errs {
		return nil
	}
	get := func(m *qmap, from int) int {
		if m == nil {
			return 0
		}
		v, _ := m.get(from)
		return v
	}
	// The traffic classes a packet can have, by DSCP (trust dscp) or by
	// 802.1p priority (trust pcp).
	var tcs []int
	trust, trustFrom, trustAt := "dscp", "PORT_QOS_MAP", r.tables["PORT_QOS_MAP"].at
	switch {
	case dscpM != nil && dot1pM != nil:
		_, at, _ := q.field("dot1p_to_tc_map")
		r.errorf(at, q.where(), "dot1p_to_tc_map: the port binds a dscp_to_tc_map too; which of the two classifies an IP packet is the ASIC's choice, and lfsim trusts one (switch.trust): bind one")
		return nil
	case dscpM != nil:
		_, trustAt, _ = dscpFrom.field("dscp_to_tc_map")
		trustFrom = dscpFrom.where() + " dscp_to_tc_map"
		for d := range 64 {
			tc := get(dscpM, d)
			tcs = append(tcs, tc)
			c.dscpQ[d] = get(tcQ, tc)
		}
		c.trustDSCP = true
	case dot1pM != nil:
		trust = "pcp"
		_, trustAt, _ = q.field("dot1p_to_tc_map")
		trustFrom = q.where() + " dot1p_to_tc_map"
		for p := range 8 {
			tc := get(dot1pM, p)
			tcs = append(tcs, tc)
			if qu := get(tcQ, tc); qu != p && qu <= 7 {
				at := dot1pM.at
				if a, ok := dot1pM.toAt[p]; ok {
					at = a
				}
				r.errorf(at, dot1pM.where(), "802.1p priority %d goes to traffic class %d and queue %d; lfsim trusting the 802.1p priority (trust: pcp) keeps it as the packet's queue, so only maps that send each priority to its own queue can be read (or bind a dscp_to_tc_map)", p, tc, qu)
			}
		}
	default:
		// No map: every packet in traffic class 0 (SAI_PORT_ATTR_QOS_
		// DEFAULT_TC), which lfsim says as trust: dscp with every DSCP
		// on that class's queue.
		if q != nil {
			trustAt, trustFrom = q.at, q.where()
		}
		tcs = []int{0}
		for d := range 64 {
			c.dscpQ[d] = get(tcQ, 0)
		}
		c.trustDSCP = true
	}
	// Each class's queue: lfsim's ports have 8, one per priority.
	for _, tc := range tcs {
		if qu := get(tcQ, tc); qu > 7 {
			r.errorf(tcQ.toAt[tc], tcQ.where(), "traffic class %d goes to queue %d; lfsim's ports have 8 queues, one per priority (0..7)", tc, qu)
		}
	}
	if r.nerr > errs {
		return nil
	}
	o.set("trust", scalar(trust), trustFrom, trustAt)
	if c.trustDSCP {
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for d := range 64 {
			m.Content = append(m.Content, intNode(int64(d)), intNode(int64(c.dscpQ[d])))
		}
		from, at := trustFrom, trustAt
		if dscpM != nil {
			from, at = dscpM.where(), dscpM.at
		}
		o.set("dscp2prio", m, from, at)
	}
	r.lossless(o, c, q, pfcQ, pfcPG)
	if r.nerr > errs {
		return nil
	}
	r.groups(c, tcs, tcQ, tcPG)
	if r.nerr > errs {
		return nil
	}
	return c
}

// lossless reads pfc_enable: the lossless priorities, each the queue
// that PFC priority pauses (MAP_PFC_PRIORITY_TO_QUEUE) and whose traffic
// a priority group of its own accounts (PFC_PRIORITY_TO_PRIORITY_GROUP_
// MAP, on Mellanox and Barefoot: qos_config.j2's pfc_to_pg_map_supported_
// asics; elsewhere PG p for priority p).
func (r *reader) lossless(o *portOut, c *class, q *entry, pfcQ, pfcPG *qmap) {
	from, at := "PORT_QOS_MAP", r.tables["PORT_QOS_MAP"].at
	if q != nil {
		from, at = q.where(), q.at
		if s, at, ok := q.field("pfc_asym"); ok && s != "off" {
			r.errorf(at, q.where(), "pfc_asym %q: asymmetric PFC (pausing on priorities it does not send PAUSE for) is not modelled; lfsim's lossless priorities pause both ways", s)
		}
		if ll, lat, ok := r.list(q, "pfc_enable"); ok {
			c.lossless, at, from = ll, lat, q.where()+" pfc_enable"
		}
	}
	sort.Ints(c.lossless)
	o.set("pfc.priorities", intsNode(c.lossless), from, at)
	if pfcQ == nil && len(c.lossless) > 0 {
		r.warnf(at, from, "the port binds no pfc_to_queue_map: lfsim pauses queue p on PFC priority p, as the template's map (MAP_PFC_PRIORITY_TO_QUEUE \"AZURE\") does; SAI leaves a port without one to the ASIC (saiport.h, SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP)")
	}
	pgUsed := map[int]int{}
	for _, p := range c.lossless {
		c.isLL[p] = true
		if pfcQ != nil {
			if qu, ok := pfcQ.get(p); !ok || qu != p {
				r.errorf(pfcQ.at, pfcQ.where(), "PFC priority %d %s; lfsim's PFC priority is the queue it pauses, so only %d to %d can be read", p, goesTo(qu, ok, "pauses queue"), p, p)
			}
		}
		c.pgOf[p] = p
		if pfcPG != nil {
			g, ok := pfcPG.get(p)
			if !ok {
				r.errorf(pfcPG.at, pfcPG.where(), "lossless priority %d (pfc_enable) is in no priority group; give it one", p)
			}
			c.pgOf[p] = g
		}
		if other, dup := pgUsed[c.pgOf[p]]; dup {
			r.errorf(at, from, "lossless priorities %d and %d share priority group %d; lfsim accounts each priority on its own", other, p, c.pgOf[p])
		}
		pgUsed[c.pgOf[p]] = p
	}
}

func goesTo(v int, ok bool, what string) string {
	if !ok {
		return "is not in the map"
	}
	return fmt.Sprintf("%s %d", what, v)
}

// groups checks that each traffic class a packet can have is in the
// priority group its queue needs: a lossless queue's own, and for a
// lossy queue one that no lossless queue has. lfsim accounts each lossy
// priority of a port on its own, where SONiC's template puts several
// lossy classes in priority group 0: a warning says so.
func (r *reader) groups(c *class, tcs []int, tcQ, tcPG *qmap) {
	var pgLL [8]bool
	for _, p := range c.lossless {
		pgLL[c.pgOf[p]] = true
	}
	seen := map[int]bool{}
	for _, tc := range tcs {
		if seen[tc] {
			continue
		}
		seen[tc] = true
		qu, g := 0, 0
		if tcQ != nil {
			qu, _ = tcQ.get(tc)
		}
		if tcPG != nil {
			g, _ = tcPG.get(tc)
		}
		at, where := r.qosPlace(c)
		if tcPG != nil {
			at, where = tcPG.at, tcPG.where()
			if a, ok := tcPG.toAt[tc]; ok {
				at = a
			}
		}
		if qu > 7 {
			continue // refused in classify
		}
		c.reached[qu] = true
		switch {
		case c.isLL[qu] && g != c.pgOf[qu]:
			r.errorf(at, where, "traffic class %d goes to lossless queue %d (pfc_enable) and to priority group %d, not %d, whose XOFF sends PFC for priority %d; lfsim charges a lossless queue's traffic to its own accounting", tc, qu, g, c.pgOf[qu], qu)
		case !c.isLL[qu] && pgLL[g]:
			r.errorf(at, where, "traffic class %d goes to lossy queue %d and to priority group %d, a lossless priority's; lfsim pauses only lossless priorities", tc, qu, g)
		case !c.isLL[qu]:
			if !contains(c.pgLossy[g], qu) {
				c.pgLossy[g] = append(c.pgLossy[g], qu)
			}
		}
	}
	for g := range 8 {
		if len(c.pgLossy[g]) == 0 {
			continue
		}
		c.lossyPGs = append(c.lossyPGs, g)
		sort.Ints(c.pgLossy[g])
		if len(c.pgLossy[g]) > 1 {
			at, where := r.qosPlace(c)
			if tcPG != nil {
				at, where = tcPG.at, tcPG.where()
			}
			r.warnf(at, where, "lossy queues %s share priority group %d, whose buffer profile limits them together; lfsim accounts each lossy priority of a port on its own against ingress_threshold: the same while one of them at a time arrives on a port", ints(c.pgLossy[g]), g)
		}
	}
}

// qosPlace is where a port's classification is: its PORT_QOS_MAP entry,
// or the table's.
func (r *reader) qosPlace(c *class) (int, string) {
	if c.qos != nil {
		return c.qos.at, c.qos.where()
	}
	return r.tables["PORT_QOS_MAP"].at, "PORT_QOS_MAP"
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// unmodelledBindings refuses or warns of the maps a port binds that lfsim
// has no model for.
func (r *reader) unmodelledBindings(q *entry) {
	if q == nil {
		return
	}
	if _, at, ok := q.field("tc_to_dscp_map"); ok {
		r.errorf(at, q.where(), "tc_to_dscp_map: re-marking a packet's DSCP at egress is not modelled; lfsim's switches keep the DSCP a packet arrives with")
	}
	for _, f := range []string{"dscp_to_fc_map", "exp_to_fc_map", "mpls_tc_to_tc_map"} {
		if _, at, ok := q.field(f); ok {
			r.warnf(at, q.where(), "%s: no effect: forwarding classes choose among class-based next-hop groups, and MPLS labels; lfsim has neither", f)
		}
	}
}
