package metamorphic

import (
	"slices"
	"strconv"
	"time"
)

// Shrink reduces s while fails holds of it: it tries the candidates one
// step smaller (candidates), keeps the first that still fails, and
// starts again from it, until none fails, it has tried budget
// candidates, or the deadline has passed. It returns the smallest that
// failed and how many candidates it tried.
func Shrink(s *Spec, fails func(*Spec) bool, budget int, deadline time.Time) (*Spec, int) {
	tried := 0
	for {
		smaller := false
		for _, c := range candidates(s) {
			if tried >= budget || time.Now().After(deadline) {
				return s, tried
			}
			tried++
			if fails(c) {
				s, smaller = c, true
				break
			}
		}
		if !smaller {
			return s, tried
		}
	}
}

// candidates are the scenarios one step smaller than s, the largest cuts
// first: a traffic item, a fault, the observers, expectations, a key of
// a profile, the stop condition, half the time, an item's key or host, a
// smaller size or count, a smaller topology.
func candidates(s *Spec) []*Spec {
	var out []*Spec
	try := func(f func(c *Spec) bool) {
		c := s.Clone()
		if f(c) {
			out = append(out, c)
		}
	}
	for i := range s.Traffic {
		try(func(c *Spec) bool { c.deleteItem(i); return true })
	}
	for i := range s.Faults {
		try(func(c *Spec) bool { c.Faults = slices.Delete(c.Faults, i, i+1); return true })
	}
	try(func(c *Spec) bool {
		c.Observe, c.PcapHosts, c.PcapPorts, c.PcapPort2 = nil, nil, nil, nil
		return len(s.Observe)+len(s.PcapHosts)+len(s.PcapPorts)+len(s.PcapPort2) > 0
	})
	try(func(c *Spec) bool { c.Expect = nil; return len(s.Expect) > 0 })
	try(func(c *Spec) bool { c.When = nil; return len(s.When) > 0 })
	if s.StopNs > 5000 {
		try(func(c *Spec) bool { c.StopNs = max(5000, s.StopNs/2/1000*1000); return true })
	}
	for _, kvs := range []func(c *Spec) *[]KV{
		func(c *Spec) *[]KV { return &c.Switch }, func(c *Spec) *[]KV { return &c.SwitchIB },
		func(c *Spec) *[]KV { return &c.SM }, func(c *Spec) *[]KV { return &c.HCA },
		func(c *Spec) *[]KV { return &c.Observe },
	} {
		for i := range *kvs(s) {
			try(func(c *Spec) bool { *kvs(c) = slices.Delete(*kvs(c), i, i+1); return true })
		}
	}
	try(func(c *Spec) bool { c.MTU = 0; return s.MTU != 0 })
	// Issue 47's parts of a topology: a pair of range extenders (its
	// link plain again), a host's second link, a switch's own block.
	for i := range s.Topo.Extenders {
		try(func(c *Spec) bool { c.Topo.Extenders = slices.Delete(c.Topo.Extenders, i, i+1); return true })
	}
	if !s.Topo.DualStar {
		for i := range s.Topo.DualPort {
			try(func(c *Spec) bool {
				c.Topo.DualPort = slices.Delete(c.Topo.DualPort, i, i+1)
				c.Topo.SecondTo = slices.Delete(c.Topo.SecondTo, i, i+1)
				return true
			})
		}
	}
	for i := range s.HostBlocks {
		try(func(c *Spec) bool { c.HostBlocks = slices.Delete(c.HostBlocks, i, i+1); return true })
	}
	for i := range s.SwitchBlocks {
		try(func(c *Spec) bool { c.SwitchBlocks = slices.Delete(c.SwitchBlocks, i, i+1); return true })
	}
	for i, it := range s.Traffic {
		for k, kv := range it.Opts {
			try(func(c *Spec) bool { c.Traffic[i].Opts = slices.Delete(c.Traffic[i].Opts, k, k+1); return true })
			switch kv.K {
			case "size":
				if b := parseBytes(kv.V); b > 1 {
					try(func(c *Spec) bool { c.Traffic[i].Opts[k].V = Bytes(b / 2); return true })
				}
			case "iterations", "count":
				if n, _ := strconv.Atoi(kv.V); n > 5 {
					try(func(c *Spec) bool { c.Traffic[i].Opts[k].V = strconv.Itoa(n / 2); return true })
				}
			}
		}
		if len(it.Hosts) > 1 {
			for k := range it.Hosts {
				try(func(c *Spec) bool { c.Traffic[i].Hosts = slices.Delete(c.Traffic[i].Hosts, k, k+1); return true })
			}
		}
	}
	for i := range s.Faults {
		for k := range s.Faults[i].Opts {
			try(func(c *Spec) bool { c.Faults[i].Opts = slices.Delete(c.Faults[i].Opts, k, k+1); return true })
		}
	}
	try(func(c *Spec) bool { return c.smallerTopology() })
	return out
}

// smallerTopology takes a host or a switch away where no host the
// scenario names goes with it (hosts keep their numbers).
func (s *Spec) smallerTopology() bool {
	t := &s.Topo
	used := s.usedHosts()
	last := -1
	for h, u := range used {
		if u {
			last = h
		}
	}
	for _, it := range s.Traffic {
		if it.All {
			return false // all would lose a host
		}
	}
	fits := func(hosts int) bool { return last < hosts }
	switch t.Kind {
	case "star":
		if t.Hosts > 2 && fits(t.Hosts-1) {
			t.Hosts--
			return true
		}
	case "dumbbell":
		if t.Right > 1 && fits(t.Left+t.Right-1) {
			t.Right--
			return true
		}
	case "leaf-spine":
		if t.Spines > 1 {
			t.Spines--
			return true
		}
		if t.Leaves > 2 && fits((t.Leaves-1)*t.HostsPerLeaf) {
			t.Leaves--
			return true
		}
	case "fat-tree":
		if t.K > 4 && fits(16) {
			t.K = 4
			return true
		}
	case "ring":
		if t.Switches > 3 && fits((t.Switches-1)*t.HostsPerSwitch) {
			t.Switches--
			return true
		}
	}
	return false
}
