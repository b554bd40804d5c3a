package metamorphic

import (
	"slices"
	"strconv"
)

// Which fabric each switch and each host port is on, for the rules of a
// mixed network (VPI: InfiniBand and Ethernet switches at once), and the
// links a fault may name. On a network of one link layer every port is
// on it.

// Mixed says whether the network has InfiniBand and Ethernet switches.
func (s *Spec) Mixed() bool { return !s.IB && slices.Contains(s.Topo.IBSwitch, true) }

// OnIB says whether switch i is on InfiniBand.
func (s *Spec) OnIB(i int) bool {
	if s.IB {
		return true
	}
	return i < len(s.Topo.IBSwitch) && s.Topo.IBSwitch[i]
}

// SecondSwitch is the switch of host h's second link (its port 2), if
// it has one.
func (t *Topo) SecondSwitch(h int) (int, bool) {
	if t.DualStar {
		return 1, true
	}
	if i := slices.Index(t.DualPort, h); i >= 0 {
		return t.SecondTo[i], true
	}
	return 0, false
}

// PortIB says whether host h's port (1 or 2) is on InfiniBand.
func (s *Spec) PortIB(h, port int) bool {
	sw := s.Topo.HostSwitch(h)
	if port == 2 {
		sw, _ = s.Topo.SecondSwitch(h)
	}
	return s.OnIB(sw)
}

// VPIHost says whether host h has a port on each fabric.
func (s *Spec) VPIHost(h int) bool {
	_, ok := s.Topo.SecondSwitch(h)
	return ok && s.PortIB(h, 1) != s.PortIB(h, 2)
}

// Reaches says whether host h has a port on fabric ib (InfiniBand when
// true): a flow to h from a port on that fabric goes there.
func (s *Spec) Reaches(h int, ib bool) bool {
	if s.PortIB(h, 1) == ib {
		return true
	}
	_, ok := s.Topo.SecondSwitch(h)
	return ok && s.PortIB(h, 2) == ib
}

// Extender is range extender i's name.
func ExtenderName(i int) string { return "x" + strconv.Itoa(i) }

// SwitchLinkNames are the links between switches and range extenders,
// by name, in the order the file gives them.
func (t *Topo) SwitchLinkNames() [][2]string {
	var out [][2]string
	for i, p := range t.SwitchPairs() {
		a, b := Switch(p[0]), Switch(p[1])
		if k := t.extenderOn(i); k >= 0 {
			xa, xb := ExtenderName(2*k), ExtenderName(2*k+1)
			out = append(out, [2]string{a, xa}, [2]string{xa, xb}, [2]string{xb, b})
			continue
		}
		out = append(out, [2]string{a, b})
	}
	return out
}

// extenderOn is the index of the extender pair on switch link i, or -1.
func (t *Topo) extenderOn(i int) int {
	if t.Kind != "explicit" {
		return -1
	}
	for k, x := range t.Extenders {
		if x.Link == i {
			return k
		}
	}
	return -1
}

// longHaul is the sum of the extenders' long hauls, one way (a path
// crosses each at most once).
func (t *Topo) longHaul() int64 {
	var sum int64
	for _, x := range t.Extenders {
		sum += x.LongNs
	}
	return sum
}

// portsOf is how many ports switch sw has: its hosts' links (first and
// second) and its links to other switches.
func (t *Topo) portsOf(sw int) int {
	n := 0
	for h := range t.NumHosts() {
		if t.HostSwitch(h) == sw {
			n++
		}
		if second, ok := t.SecondSwitch(h); ok && second == sw {
			n++
		}
	}
	for _, l := range t.SwitchPairs() {
		for _, end := range l {
			if end == sw {
				n++
			}
		}
	}
	return n
}
