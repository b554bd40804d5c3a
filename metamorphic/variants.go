package metamorphic

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/lfsim/lfsim/kind"
)

// The variants of a scenario that the relations run beside it.

// initialWindow is a control's initial_window (hca.<cc>.initial_window)
// as the generator writes it.
var initialWindow = regexp.MustCompile(`, initial_window: [^,}]*`)

// ObserversOff is s with its observers off, or as near off as a file can
// ask: no sampling but at the stop time, no queue, link or flow series,
// no capture. The deadlock detector cannot be switched off; its after:
// is kept, since with stop.when: deadlock it decides when the run ends.
func ObserversOff(s *Spec) *Spec {
	c := s.Clone()
	c.Observe = []KV{{"interval", Ns(s.StopNs)}, {"queues", "none"}, {"links", "none"}, {"flows", "none"}}
	if v, ok := Get(s.Observe, "deadlock"); ok {
		c.Observe = append(c.Observe, KV{"deadlock", v})
	}
	c.PcapHosts, c.PcapPorts, c.PcapPort2 = nil, nil, nil
	return c
}

// SteadyStop is the shorter stop of the linearity relation, L, for s:
// the steady variant runs for L and for 4L. A run's first events come
// slowly: the first packets cross the fabric before any answer comes
// back, and a TCP (iWARP's) opens its window from ten segments, doubling
// it each round trip. L is two round trips of the longest path (each
// link its delay and 1 us for serialization and the switch's pipeline,
// range extenders' long hauls, and 2 us of the NICs' latencies), at
// least 25 us, and on iWARP one
// round trip more per doubling of slow start up to the path's
// bandwidth-delay product, rounded up to 5 us: by then every source is
// near its steady rate, and the rest of the start is what LinearFactor
// allows for.
func SteadyStop(s *Spec) int64 {
	t := &s.Topo
	delay := t.DelayNs
	if t.Rate2 != "" {
		delay = max(delay, t.Delay2Ns)
	}
	rtt := 2*int64(pathLinks(t))*(delay+1000) + 2000
	// A pair of range extenders makes its link three: two more links and
	// the long haul (up to 50 us one way) in place of its delay.
	rtt += 2 * (t.longHaul() + int64(len(t.Extenders))*2*(delay+1000))
	l := max(25000, 2*rtt)
	if s.Transport == "iwarp" {
		mtu := float64(s.MTU)
		if mtu == 0 {
			mtu = 4096
		}
		bdp := bitsPerSecond(t.Rate) * float64(rtt) * 1e-9 / 8
		for w := 10 * mtu; w < bdp; w *= 2 {
			l += rtt
		}
	}
	return (l + 4999) / 5000 * 5000
}

// pathLinks is how many links the longest path between two hosts
// crosses.
func pathLinks(t *Topo) int {
	switch t.Kind {
	case "star":
		return 2
	case "dumbbell":
		return 3
	case "leaf-spine", "rail-optimized":
		return 4
	case "fat-tree":
		return 6
	case "ring":
		return 2 + t.Switches/2
	}
	if len(t.SwitchLinks) >= t.Switches { // explicit, closed into a ring
		return 2 + t.Switches/2
	}
	return 1 + t.Switches
}

// Steady is s with a steady load, stopped at stopNs: every source busy
// from the start to the end, so that the events a run processes grow
// with the time it runs and nothing else. Flows start at 0, connected out
// of band (rdma_cm's set-up would leave the first run idle), and are too
// long to end (256 MiB, where a link carries 1.25 MB in 100 us at
// 100 Gb/s). A poisson generator of RC or UC flows becomes such long flows
// over its hosts (an incast to its to:, or a permutation): its flows
// would pile up wherever they are offered more than a receiver takes
// (many to one, a slow or hung receiver), and every waiting flow's timers
// would make the events grow with the backlog. UD flows and UD poisson
// become a UD poisson stream at half their links' rate, at most
// flowsPerHost datagrams per host in 4 × SteadyStop (the same load at
// every stop); a datagram waits for nothing. Atomics (8 bytes, no long
// flow) are dropped. Programs run for 10^4 or 10^5 iterations, mckey with
// no settling time and messages of one MTU (settle: 1ns, written when
// settle: 0 still meant the tool's 3 s; 0 is no pause now, and 1 ns
// keeps the scenarios the seeds make); rdma_server and rdma_client, a
// single exchange, are dropped, and so is a DCTCP initial_window (below
// its default, the path's bandwidth-delay product, DCTCP slow-starts).
// A collective, and an nccl_tests program, becomes one call of the same
// op of 256 MiB on the same ranks from the start (no iterations, start
// or after: an nccl_tests program's barriers are not steady).
// Faults that hold a rate (loss, a PAUSE storm, a slow or hung receiver)
// hold it from the start to the end; links going down and entries going
// missing are dropped. Observers are kept. The run stops on time only.
func Steady(s *Spec, stopNs int64) *Spec {
	c := s.Clone()
	c.StopNs, c.When = stopNs, nil
	c.Expect = nil
	for _, r := range kind.CCs() {
		if v, ok := Get(c.HCA, r.Name); ok {
			c.HCA = Set(c.HCA, r.Name, initialWindow.ReplaceAllString(v, ""))
		}
	}
	var items []Item
	for _, it := range c.Traffic {
		it.Opts = slices.DeleteFunc(it.Opts, func(kv KV) bool {
			switch kv.K {
			case "start", "until", "connect", "recv_at", "remote_mr", "settle":
				return true
			}
			return false
		})
		qp, _ := Get(it.Opts, "qp")
		op, _ := Get(it.Opts, "op")
		if op == "atomic" {
			continue // an atomic is 8 bytes: no long flow, no steady stream without a backlog
		}
		switch it.Kind {
		case "poisson":
			if qp == "ud" {
				it = udStream(it, s)
				break
			}
			// A fixed population of long flows over the same hosts:
			// poisson's flows pile up where they are offered more than
			// a receiver takes (many to one, a slow or hung receiver),
			// and each waiting flow's timers would make the events grow
			// with the backlog, not with time.
			it = longFlows(it)
		case "flow", "incast", "permutation", "all_to_all", "ring_allreduce":
			if qp != "ud" {
				it.Opts = Set(it.Opts, "size", "256MiB")
				break
			}
			if get(it.Opts, "port") == "2" {
				// A poisson generator's flows leave port 1: a UD flow
				// from a VPI host's port 2 has no steady stream (the
				// relation is restricted, not the check weakened).
				continue
			}
			size := parseBytes(get(it.Opts, "size"))
			if it.Kind == "ring_allreduce" {
				// Each step of a ring sends one chunk, size / hosts.
				n := int64(len(it.Hosts))
				if it.All {
					n = int64(s.Topo.NumHosts())
				}
				size = (size + n - 1) / n
			}
			it = asPoisson(it)
			it.Opts = Set(Del(it.Opts, "size"), "sizes", Bytes(size))
			for _, p := range s.byFabric(it) {
				items = append(items, udStream(p, s))
			}
			continue
		case "perftest", "pingpong":
			it.Opts = Set(it.Opts, "iterations", "100000")
			it.Opts = Del(it.Opts, "qps")
		case "rping":
			it.Opts = Set(it.Opts, "count", "100000")
		case "mckey":
			it.Opts = Set(it.Opts, "count", "10000")
			// Messages of one MTU, as the flows' packets are: a link's
			// events per microsecond then change little when its share
			// moves between mckey and the flows (a CC cutting them).
			it.Opts = Set(it.Opts, "size", strconv.Itoa(or(s.MTU, 4096)))
			it.Opts = append(it.Opts, KV{"settle", "1ns"})
		case "rdma_server", "rdma_client":
			continue
		case "nccl_tests", "collective":
			// One call too long to end, from the start (an nccl_tests
			// program's phases and barriers are not steady).
			it.Kind, it.After = "collective", nil
			it.Opts = slices.DeleteFunc(it.Opts, func(kv KV) bool {
				switch kv.K {
				case "iterations", "minbytes", "maxbytes", "stepfactor", "stepbytes", "iters", "warmup_iters":
					return true
				}
				return false
			})
			it.Opts = Set(it.Opts, "size", "256MiB")
		}
		items = append(items, it)
	}
	c.Traffic = items
	// A fault that comes or goes while the run goes makes its load
	// change: a steady one holds from the start to the end. A link that
	// goes down makes the routes converge over time (100 us a hop by
	// default), as a missing entry floods: neither is steady.
	var faults []Fault
	for _, f := range c.Faults {
		switch f.Action {
		case "loss", "pfc-storm", "slow-receiver", "rx-hang":
			f.AtNs = 0
			f.Opts = Del(f.Opts, "until")
			faults = append(faults, f)
		}
	}
	c.Faults = faults
	return c
}

// udStream is a UD poisson generator running to the end at half its
// links' rate, making at most flowsPerHost datagrams per host in 4 ×
// SteadyStop (the same load at every stop). A datagram waits for nothing,
// so UD's do not pile up.
func udStream(it Item, s *Spec) Item {
	v, ok := Get(it.Opts, "sizes")
	if !ok {
		return it // the shrinker took its sizes away: the load stays as drawn
	}
	size := parseBytes(v)
	it.Opts = Set(it.Opts, "load", percent(capLoad(0.5, float64(size), bitsPerSecond(s.Topo.Rate), 4*SteadyStop(s))))
	return it
}

// longFlows turns a poisson generator of RC or UC flows into long flows
// over the same hosts: an incast to its to:, or a permutation of its
// hosts.
func longFlows(p Item) Item {
	opts := slices.DeleteFunc(slices.Clone(p.Opts), func(kv KV) bool { return kv.K == "load" || kv.K == "sizes" })
	opts = append([]KV{{"size", "256MiB"}}, opts...)
	if p.To >= 0 {
		return Item{Kind: "incast", From: -1, To: p.To, All: p.All, Hosts: slices.Clone(p.Hosts), Opts: opts}
	}
	return Item{Kind: "permutation", From: -1, To: -1, All: p.All, Hosts: slices.Clone(p.Hosts), Opts: opts}
}

// asPoisson turns a flow generator's item into a poisson generator over
// the same hosts: from each source to its destination for a flow or an
// incast, among the hosts for the others.
func asPoisson(it Item) Item {
	p := Item{Kind: "poisson", From: -1, To: -1, All: it.All, Opts: slices.DeleteFunc(slices.Clone(it.Opts), func(kv KV) bool {
		switch kv.K {
		case "count", "messages", "post_list", "port", "dscp":
			return true
		}
		return false
	})}
	switch it.Kind {
	case "flow":
		p.Hosts, p.To = []int{it.From}, it.To
	case "incast":
		p.Hosts, p.To = slices.Clone(it.Hosts), it.To
	default:
		p.Hosts = slices.Clone(it.Hosts)
	}
	return p
}

// byFabric splits a poisson generator whose hosts' first ports are on
// both fabrics of a mixed network (an incast's senders reach its to: on
// either) into one generator per fabric, as a generator's hosts must
// share one; any other comes back whole.
func (s *Spec) byFabric(p Item) []Item {
	if !s.Mixed() {
		return []Item{p}
	}
	hosts := p.Hosts
	if p.All {
		hosts = slices.DeleteFunc(seq(s.Topo.NumHosts()), func(h int) bool { return h == p.To })
	}
	var out []Item
	for _, ib := range []bool{true, false} {
		q := p
		q.All, q.Hosts = false, slices.DeleteFunc(slices.Clone(hosts), func(h int) bool { return s.PortIB(h, 1) != ib })
		if len(q.Hosts) > 0 {
			q.Opts = slices.Clone(p.Opts)
			out = append(out, q)
		}
	}
	if len(out) == 1 {
		return []Item{p}
	}
	return out
}
