package resolve

import (
	"net/netip"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/scenario"
)

// mckey reads an mckey generator into Tests: its sender, receivers and
// group, the tool's defaults filled in.
func (b *builder) mckey(gen int, tv *scenario.TrafficV, path string, g *scenario.MckeyS) {
	src, ok := b.hostIf(g.Sender, path+".sender")
	rcv, _, ok2 := b.hostList(&g.Receivers, path+".receivers")
	if !ok || !ok2 || !g.Receivers.Set {
		return
	}
	if g.Receivers.All {
		rcv = nil
		for _, h := range b.t.Hosts() {
			if h != src {
				rcv = append(rcv, h)
			}
		}
	}
	for i, r := range rcv {
		if r == src {
			b.errorf(g.Receivers.Names[i].Pos, path+".receivers", "%s is the sender; mckey's sender does not receive its own messages", scenario.Show(g.Receivers.Names[i].V))
			return
		}
	}
	ip := uint32(239<<24 | 1<<16 | 1<<8 | (1 + b.groups))
	if g.Group.Set {
		a, err := netip.ParseAddr(g.Group.V)
		if err != nil || !a.Is4() || !fabric.IsMulticastIP(ipOf(a)) {
			b.errorf(g.Group.Pos, path+".group", "%s is not an IPv4 multicast address (224.0.0.0 to 239.255.255.255)", scenario.Show(g.Group.V))
			return
		}
		ip = ipOf(a)
	}
	for _, o := range b.s.Tests {
		if o.Kind == "mckey" && o.Mckey.GroupIP == ip {
			b.errorf(g.Group.Pos, path+".group", "traffic[%d] already uses this group; give each mckey its own", o.Generator)
			return
		}
	}
	prio := b.s.HCAProfile(src).Priority
	overrideNum(&prio, g.Priority)
	// The tool's defaults for what was not given; what was is kept as
	// written, 0 included (settle: 0 is no pause).
	c := programs.MckeyConfig{Group: fabric.MulticastGroup(b.groups), GroupIP: ip, Count: programs.MckeyCount,
		Size: programs.MckeySize, Settle: programs.MckeySettle, Start: g.Start.V, Priority: prio}
	overrideNum(&c.Count, g.Count)
	overrideNum(&c.Size, g.Size)
	override(&c.Settle, g.Settle)
	b.groups++
	mtu := b.s.HCAProfile(src).MTU
	for _, r := range rcv {
		mtu = min(mtu, b.s.HCAProfile(r).MTU)
	}
	if c.Size > int64(mtu) {
		b.errorf(g.Size.Pos, path+".size", "mckey: message_size %d is larger than active mtu %d (a UD message is one packet)", c.Size, mtu)
		return
	}
	if at := c.Start + c.Settle; at >= b.s.Stop.At {
		b.warnf(tv.Pos, path, "mckey sends only %s after it joins (its sleep(3); settle: to change it), at %s, not before stop.at (%s)", c.Settle, at, b.s.Stop.At)
	}
	b.s.Tests = append(b.s.Tests, Test{Kind: "mckey", Src: src, Dst: src, Receivers: rcv, Mckey: c, Generator: gen, Pos: tv.Pos})
}

func ipOf(a netip.Addr) uint32 {
	v := a.As4()
	return uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
}
