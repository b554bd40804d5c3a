package sonic

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Buffers: a port's priority groups' profiles (BUFFER_PG) and queues'
// (BUFFER_QUEUE), their pools (BUFFER_POOL), as SAI defines them
// (saibuffer.h) and as lfsim's MMU models them (SCENARIO.md, "The
// switch's buffer"; switch/mmu.go):
//
//   - a pool's size is SAI_BUFFER_POOL_ATTR_SIZE, which includes the
//     shared headroom pool, its xoff (saibuffer.h,
//     SAI_BUFFER_POOL_ATTR_XOFF_SIZE: "If shared headroom pool size is
//     not zero, its size is included in the corresponding ingress buffer
//     pool size SAI_BUFFER_POOL_ATTR_SIZE", since SAI v1.5:
//     opencomputeproject/SAI PR 980, 2019); the shared pool the
//     thresholds divide is size - xoff: buffer: {shared}. NVIDIA's SAI
//     departs from it: it makes the shared headroom pool a pool of its
//     own beside SIZE (Mellanox/SAI-Implementation mlnx_sai_buffer.c,
//     mlnx_sai_set_pool_size_attr), and sonic-swss's
//     cfgmgr/buffer_pool_mellanox.lua sizes the ingress pool with it
//     already taken out; on a Spectrum switch the shared pool is size
//     (buffer: {shared: size} beside sonic: says so).
//   - a static_th of 0 is no limit on the shared usage (SHARED_STATIC_TH):
//     the pool's size (threshold).
//   - a profile's size is the reserved buffer (SAI_BUFFER_PROFILE_ATTR_
//     RESERVED_BUFFER_SIZE): reserved.
//   - dynamic_th n is a dynamic threshold of 2^n times the pool's free
//     buffer (SHARED_DYNAMIC_TH), static_th a static one in bytes
//     (SHARED_STATIC_TH); on a lossless priority group the PG sends XOFF
//     past reserved plus that threshold: pfc.xoff {alpha: 2^n}, or
//     size + static_th bytes; on a lossy one it drops past it:
//     ingress_threshold; on a lossy queue: egress_threshold.
//   - xoff is the PG's headroom after XOFF (XOFF_TH): pfc.headroom.
//   - XON is sent at max(xon, limit - xon_offset) (XON_TH, XON_OFFSET_TH):
//     pfc.xon {offset: xon_offset}, or xon bytes without an offset.
//
// This is the traditional buffer model, whose profiles config_db.json
// holds (buffermgrd writes the lossless ones there: sonic-swss
// cfgmgr/buffermgr.cpp, doSpeedUpdateTask). Spectrum (Mellanox) switches
// count a lossless PG's headroom in its size; lfsim reads SAI's meaning.

// bpool is a BUFFER_POOL entry.
type bpool struct {
	e          *entry
	typ        string
	size, xoff int64
}

// bprofile is a BUFFER_PROFILE entry.
type bprofile struct {
	e                        *entry
	pool                     *bpool
	size, xon, xoff, xonOff  int64
	th                       int64 // dynamic_th's n, or static_th's bytes
	dynamic                  bool
	xonGiven, xonOffGiven    bool
	xoffGiven, thresholdSeen bool
}

// same reports whether two profiles give the same values (their names
// may differ).
func (p *bprofile) same(o *bprofile) bool {
	return p.pool == o.pool && p.size == o.size && p.xon == o.xon && p.xoff == o.xoff &&
		p.xonOff == o.xonOff && p.th == o.th && p.dynamic == o.dynamic
}

// maxBytes bounds a buffer size: 1 TiB, far above any switch's.
const maxBytes = 1 << 40

// pool reads BUFFER_POOL|name (nil and an error when it cannot).
func (r *reader) pool(name string, at int, where string) *bpool {
	if p, ok := r.pools[name]; ok {
		return p
	}
	r.pools[name] = nil
	e := r.entry("BUFFER_POOL", name)
	if e == nil {
		r.errorf(at, where, "pool: BUFFER_POOL has no pool %q", name)
		return nil
	}
	p := &bpool{e: e}
	typ, tat, ok := e.field("type")
	switch {
	case !ok:
		r.errorf(e.at, e.where(), "type: not given; a pool is ingress, egress or both (sonic-buffer-pool.yang)")
		return nil
	case typ != "ingress" && typ != "egress" && typ != "both":
		r.errorf(tat, e.where(), "type: %q is not ingress, egress or both", typ)
		return nil
	}
	p.typ = typ
	if m, mat, ok := e.field("mode"); ok && m != "static" && m != "dynamic" {
		r.errorf(mat, e.where(), "mode: %q is not static or dynamic", m)
	}
	size, _, ok := r.intField(e, "size", 0, maxBytes)
	if !ok {
		if _, pat, pct := e.field("percentage"); pct {
			r.errorf(pat, e.where(), "percentage without a size: the dynamic buffer model's, where buffermgrd computes the pool's size at run time; lfsim reads the size (give size, as `mmuconfig -l` or APPL_DB's BUFFER_POOL_TABLE shows it)")
		} else if _, given := e.fields["size"]; !given {
			r.errorf(e.at, e.where(), "size: not given; a pool's size in bytes is needed")
		}
		return nil
	}
	if _, pat, pct := e.field("percentage"); pct {
		r.warnf(pat, e.where(), "percentage: no effect: the dynamic buffer model's share of the buffer for this pool; lfsim reads size")
	}
	xoff, xat, _ := r.intField(e, "xoff", 0, maxBytes)
	if xoff > size {
		r.errorf(xat, e.where(), "xoff (%d bytes, the shared headroom pool) is more than the pool's size (%d), which holds it (saibuffer.h, SAI_BUFFER_POOL_ATTR_XOFF_SIZE)", xoff, size)
		return nil
	}
	p.size, p.xoff = size, xoff
	r.pools[name] = p
	return p
}

// refName is a reference to an entry of table t: its name, or
// "[TABLE|name]" as older SONiC releases wrote references.
func refName(s, t string) string {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = strings.TrimPrefix(s[1:len(s)-1], t+"|")
	}
	return s
}

// profileOf reads the profile that entry ref (BUFFER_PG or BUFFER_QUEUE)
// names.
func (r *reader) profileOf(ref *entry) *bprofile {
	name, at, ok := ref.field("profile")
	if !ok {
		r.errorf(ref.at, ref.where(), "profile: not given")
		return nil
	}
	name = refName(name, "BUFFER_PROFILE")
	if name == "NULL" {
		r.errorf(at, ref.where(), "profile NULL: the dynamic buffer model's, where buffermgrd computes the profile from the port's speed and cable at run time; lfsim reads the traditional model's profiles (give the profile, as APPL_DB's BUFFER_PROFILE_TABLE shows it)")
		return nil
	}
	if p, ok := r.profiles[name]; ok {
		return p
	}
	r.profiles[name] = nil
	e := r.entry("BUFFER_PROFILE", name)
	if e == nil {
		r.errorf(at, ref.where(), "profile: BUFFER_PROFILE has no profile %q", name)
		return nil
	}
	p := &bprofile{e: e}
	errs := r.nerr
	pn, pat, ok := e.field("pool")
	if !ok {
		r.errorf(e.at, e.where(), "pool: not given")
		return nil
	}
	p.pool = r.pool(refName(pn, "BUFFER_POOL"), pat, e.where())
	var sizeOK bool
	p.size, _, sizeOK = r.intField(e, "size", 0, maxBytes)
	if !sizeOK {
		if _, given := e.fields["size"]; !given {
			r.errorf(e.at, e.where(), "size: not given; a profile's reserved size in bytes is needed (0 for none)")
		}
	}
	p.xon, _, p.xonGiven = r.intField(e, "xon", 0, maxBytes)
	p.xoff, _, p.xoffGiven = r.intField(e, "xoff", 0, maxBytes)
	p.xonOff, _, p.xonOffGiven = r.intField(e, "xon_offset", 0, maxBytes)
	dyn, _, dynOK := r.intField(e, "dynamic_th", -8, 7)
	st, sat, stOK := r.intField(e, "static_th", 0, maxBytes)
	_, dynGiven := e.fields["dynamic_th"]
	_, stGiven := e.fields["static_th"]
	switch {
	case dynGiven && stGiven:
		r.errorf(sat, e.where(), "static_th: the profile gives dynamic_th too; a profile's threshold is one or the other (SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE)")
	case dynOK:
		p.th, p.dynamic, p.thresholdSeen = dyn, true, true
	case stOK:
		p.th, p.thresholdSeen = st, true
	case !dynGiven && !stGiven:
		r.errorf(e.at, e.where(), "neither dynamic_th nor static_th: a profile's threshold is one of them (sonic-buffer-profile.yang)")
	}
	if h, hat, ok := e.field("headroom_type"); ok && h != "static" {
		r.errorf(hat, e.where(), "headroom_type %q: the dynamic buffer model's, where buffermgrd computes the headroom at run time; lfsim reads the traditional model's profiles", h)
	}
	if a, aat, ok := e.field("packet_discard_action"); ok && a != "drop" {
		r.errorf(aat, e.where(), "packet_discard_action %q: packet trimming is not modelled; lfsim drops what a full buffer cannot take", a)
	}
	if r.nerr > errs || p.pool == nil {
		return nil
	}
	r.profiles[name] = p
	return p
}

// buffers reads a port's priority groups' and queues' profiles and sets
// buffer, reserved, pfc.xoff, pfc.xon, pfc.headroom, ingress_threshold
// and egress_threshold.
func (r *reader) buffers(o *portOut, pe *portEntries, c *class) {
	errs := r.nerr
	// The lossless priority groups' profile: one for all, as lfsim gives
	// every lossless priority one XOFF, XON and headroom.
	var ll, ly *bprofile
	var llRef *entry
	var missing []int
	for _, p := range c.lossless {
		g := c.pgOf[p]
		ref := pe.pg[g]
		if ref == nil {
			missing = append(missing, g)
			continue
		}
		prof := r.profileOf(ref)
		if prof == nil {
			continue
		}
		if ll != nil && !ll.same(prof) {
			r.errorf(ref.at, ref.where(), "lossless priority groups of %s have different profiles (%s, %s); lfsim gives every lossless priority one xoff, xon and headroom", o.port, ll.e.key, prof.e.key)
			continue
		}
		if ll == nil {
			ll, llRef = prof, ref
		}
	}
	switch {
	case len(c.lossless) > 0 && llRef == nil && len(missing) > 0:
		at, where := r.tables["PORT_QOS_MAP"].at, "BUFFER_PG"
		if c.qos != nil {
			_, at, _ = c.qos.field("pfc_enable")
			where = c.qos.where() + " pfc_enable"
		}
		r.warnf(at, where, "BUFFER_PG gives the lossless priority groups (%s) no profile: SONiC's buffermgrd adds pg_lossless_<speed>_<cable>_profile at run time from the SKU's pg_profile_lookup.ini (sonic-swss cfgmgr/buffermgr.cpp); lfsim keeps its own pfc.xoff, pfc.xon, pfc.headroom and reserved", ints(missing))
	case len(missing) > 0 && llRef != nil:
		r.errorf(llRef.at, llRef.where(), "gives lossless priority groups a profile and %s none; lfsim gives every lossless priority one profile", groupsText(missing))
	}
	// The lossy priority groups' profile.
	var lyMissing []int
	for _, g := range c.lossyPGs {
		ref := pe.pg[g]
		if ref == nil {
			lyMissing = append(lyMissing, g)
			continue
		}
		prof := r.profileOf(ref)
		if prof == nil {
			continue
		}
		if ly != nil && !ly.same(prof) {
			r.errorf(ref.at, ref.where(), "lossy priority groups of %s have different profiles (%s, %s); lfsim gives every lossy priority one ingress_threshold", o.port, ly.e.key, prof.e.key)
			continue
		}
		if ly == nil {
			ly = prof
		}
	}
	if len(lyMissing) > 0 && len(r.entries["BUFFER_PG"]) > 0 {
		r.warnf(r.tables["BUFFER_PG"].at, "BUFFER_PG", "gives the lossy priority group%s %s of %s no profile: SAI leaves such a group to the ASIC's defaults; lfsim keeps its ingress_threshold", plural(len(lyMissing)), ints(lyMissing), o.port)
	}
	if r.nerr > errs {
		return
	}
	r.ingress(o, ll, ly)
	if r.nerr > errs {
		return
	}
	var pool *bpool
	if ll != nil {
		pool = ll.pool
	} else if ly != nil {
		pool = ly.pool
	}
	r.egress(o, pe, c, pool)
	r.portLists(pe)
}

func groupsText(gs []int) string {
	return "priority group" + plural(len(gs)) + " " + ints(gs)
}

// ingress sets the keys of the ingress profiles: the shared pool,
// reserved, the lossless priorities' XOFF, XON and headroom, and the
// lossy ones' threshold.
func (r *reader) ingress(o *portOut, ll, ly *bprofile) {
	if ll == nil && ly == nil {
		return
	}
	rp := ly // the profile whose pool and reserved size lfsim takes
	if ll != nil {
		rp = ll
	}
	if ll != nil && ly != nil && ll.pool != ly.pool {
		r.errorf(ly.e.at, ly.e.where(), "draws on pool %s and the lossless profile %s on %s; lfsim's switch has one shared buffer", ly.pool.e.key, ll.e.key, ll.pool.e.key)
		return
	}
	p := rp.pool
	if p.typ == "egress" {
		r.errorf(rp.e.at, rp.e.where(), "a priority group's profile draws on %s, an egress pool; a priority group's pool is an ingress one", p.e.key)
		return
	}
	_, sat, _ := p.e.field("size")
	o.set("buffer", flowMap("shared", intNode(p.size-p.xoff)), p.e.where()+" size", sat)
	if p.xoff > 0 {
		_, xat, _ := p.e.field("xoff")
		r.warnf(xat, p.e.where(), "xoff: the shared headroom pool (%d bytes) that SONiC's lossless priority groups draw their headroom from, each up to its profile's xoff (saibuffer.h, SAI_BUFFER_POOL_ATTR_XOFF_SIZE); lfsim sets aside each port's headroom for each lossless priority: the same while the headroom in use stays within %d bytes", p.xoff, p.xoff)
	}
	_, rat, _ := rp.e.field("size")
	o.set("reserved", intNode(rp.size), rp.e.where()+" size", rat)
	if ll != nil && ly != nil && ll.size != ly.size {
		r.warnf(rat, ll.e.where(), "size: lfsim reserves %d bytes (the lossless profile's size) for every priority of a port; SONiC's lossy priority groups reserve %d (%s): the same but for the %d bytes per lossy group that lfsim holds from the shared pool", ll.size, ly.size, ly.e.where(), ll.size-ly.size)
	}
	if ll != nil {
		r.losslessProfile(o, ll)
	}
	if ly != nil {
		if ly.xoffGiven || ly.xonGiven || ly.xonOffGiven {
			r.warnf(ly.e.at, ly.e.where(), "xoff, xon and xon_offset: no effect on a lossy priority group, which sends no PFC")
		}
		_, at, _ := ly.e.field(thField(ly))
		o.set("ingress_threshold", threshold(ly), ly.e.where()+" "+thField(ly), at)
	}
}

func thField(p *bprofile) string {
	if p.dynamic {
		return "dynamic_th"
	}
	return "static_th"
}

// threshold is a profile's threshold as lfsim's: {alpha: 2^n} or bytes.
// A static_th of 0 is no limit on the shared usage (saibuffer.h,
// SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH: "When set to zero there is
// no limit for the shared usage"): the pool's whole size, which no
// priority group or queue of it can pass, as SONiC's Broadcom templates
// write "no limit" (the S6100's ingress_lossy_profile, static_th the
// size of its pool).
func threshold(p *bprofile) *yaml.Node {
	if p.dynamic {
		return alphaNode(p.th)
	}
	if p.th == 0 {
		return intNode(p.pool.size)
	}
	return intNode(p.th)
}

// losslessProfile sets pfc.xoff, pfc.xon and pfc.headroom.
func (r *reader) losslessProfile(o *portOut, ll *bprofile) {
	_, tat, _ := ll.e.field(thField(ll))
	switch {
	case ll.dynamic:
		o.set("pfc.xoff", alphaNode(ll.th), ll.e.where()+" dynamic_th", tat)
	case ll.th == 0:
		// No limit on the shared usage (threshold): XOFF once the
		// priority group holds its reserve and the whole shared pool,
		// or the pool is full, as lfsim's MMU sends it for a packet the
		// pool cannot take.
		o.set("pfc.xoff", intNode(ll.size+ll.pool.size-ll.pool.xoff), ll.e.where()+" size, static_th 0 (no limit: the shared pool)", tat)
	default:
		o.set("pfc.xoff", intNode(ll.size+ll.th), ll.e.where()+" size, static_th", tat)
	}
	_, xat, _ := ll.e.field("xoff")
	if !ll.xoffGiven {
		r.warnf(ll.e.at, ll.e.where(), "xoff: not given, so no headroom (SAI's default 0): past XOFF the priority group drops")
	}
	o.set("pfc.headroom", intNode(ll.xoff), ll.e.where()+" xoff", xat)
	switch {
	case ll.xonOffGiven && ll.xonOff > 0:
		_, at, _ := ll.e.field("xon_offset")
		o.set("pfc.xon", flowMap("offset", intNode(ll.xonOff)), ll.e.where()+" xon_offset", at)
		if ll.xon > ll.size {
			r.warnf(at, ll.e.where(), "xon and xon_offset: SAI resumes at the larger of xon (%d) and the XOFF limit less xon_offset (%d); lfsim at the larger of the XOFF limit less xon_offset and reserved (%d): the same while the XOFF limit is above %d bytes", ll.xon, ll.xonOff, ll.size, ll.xon+ll.xonOff)
		}
	default:
		_, at, _ := ll.e.field("xon")
		o.set("pfc.xon", intNode(ll.xon), ll.e.where()+" xon", at)
	}
}

// egress reads the port's queues' profiles (BUFFER_QUEUE): a lossy
// queue's threshold is egress_threshold; a lossless queue has no egress
// limit in lfsim (PFC bounds it at ingress).
func (r *reader) egress(o *portOut, pe *portEntries, c *class, ingress *bpool) {
	var ly *bprofile
	var noProfile []int
	for qu := range 8 {
		ref := pe.bq[qu]
		if !c.reached[qu] && !c.isLL[qu] {
			continue
		}
		if ref == nil {
			noProfile = append(noProfile, qu)
			continue
		}
		prof := r.profileOf(ref)
		if prof == nil {
			continue
		}
		if prof.size > 0 {
			_, at, _ := prof.e.field("size")
			r.warnf(at, prof.e.where(), "size: a queue's reserved buffer (%d bytes) is not modelled; lfsim's egress queues draw on the shared pool from their first byte: the same but for those bytes", prof.size)
		}
		if prof.pool.typ == "ingress" {
			r.errorf(prof.e.at, prof.e.where(), "a queue's profile draws on %s, an ingress pool; a queue's pool is an egress one", prof.pool.e.key)
			continue
		}
		if c.isLL[qu] {
			if prof.dynamic || ingress == nil || prof.th != 0 && prof.th < ingress.size { // static_th 0: no limit
				_, at, _ := prof.e.field(thField(prof))
				r.warnf(at, prof.e.where(), "%s: a lossless queue's egress limit is not modelled: lfsim never drops a lossless packet at egress (PFC bounds lossless traffic at ingress): the same while the queue stays under it", thField(prof))
			}
			continue
		}
		if ly != nil && !ly.same(prof) {
			r.errorf(ref.at, ref.where(), "lossy queues of %s have different profiles (%s, %s); lfsim gives every lossy queue one egress_threshold", o.port, ly.e.key, prof.e.key)
			continue
		}
		if ly == nil {
			ly = prof
		}
	}
	if len(noProfile) > 0 && len(r.entries["BUFFER_QUEUE"]) > 0 {
		r.warnf(r.tables["BUFFER_QUEUE"].at, "BUFFER_QUEUE", "gives queue%s %s of %s no profile: SAI leaves such a queue to the ASIC's defaults; lfsim keeps its egress_threshold", plural(len(noProfile)), ints(noProfile), o.port)
	}
	if ly == nil {
		return
	}
	if ingress != nil && ly.pool != ingress {
		_, at, _ := ly.e.field("pool")
		r.warnf(at, ly.e.where(), "pool: SONiC's lossy queues draw on their own pool (%s, %d bytes); lfsim's egress_threshold divides the one shared buffer's free bytes: the same dynamic threshold gives another limit", ly.pool.e.key, ly.pool.size)
	}
	_, at, _ := ly.e.field(thField(ly))
	o.set("egress_threshold", threshold(ly), ly.e.where()+" "+thField(ly), at)
}

// portLists warns of a port's port-level buffer profiles, which lfsim has
// no model for.
func (r *reader) portLists(pe *portEntries) {
	for _, e := range []*entry{pe.inList, pe.egList} {
		if e == nil {
			continue
		}
		_, at, _ := e.field("profile_list")
		r.warnf(at, e.table, "profile_list: a port's own limit on a pool (a port-level profile, as Spectrum switches configure) is not modelled; lfsim limits priority groups and queues only: the same while a port stays under it")
	}
}
