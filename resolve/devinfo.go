package resolve

import (
	"fmt"
	"net"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// DeviceName is the name every simulated host gives its HCA (each host
// has one, as a server has mlx5_0).
const DeviceName = "lfsim0"

// Devices is what ibv_devices prints for the scenario's hosts
// (rdma-core's libibverbs/examples/device_list.c: a header, then each
// device and its node GUID), one block per host, the host named in a
// comment line.
func (s *Scenario) Devices() string {
	var b strings.Builder
	for _, h := range s.Topology.Hosts() {
		fmt.Fprintf(&b, "# %s\n", s.Topology.Nodes[h].Name)
		fmt.Fprintf(&b, "    %-16s\t   node GUID\n", "device")
		fmt.Fprintf(&b, "    %-16s\t----------------\n", "------")
		fmt.Fprintf(&b, "    %-16s\t%016x\n", DeviceName, fabric.GUID(h))
	}
	return b.String()
}

// DevInfo is what ibv_devinfo prints (verbose: ibv_devinfo -v) for
// host h's HCA, in rdma-core's libibverbs/examples/devinfo.c's lines and
// spelling, from the very values the model runs with: the HCA's profile
// (MTU, max_rd_atomic, max_msg_sz), the host's link (width and speed
// from its rate), its LID (InfiniBand) and its GIDs. It prints only the
// fields the model has a value for; where ibv_devinfo -v prints a
// device limit the model does not have (max_qp, max_cqe, max_mr, ...),
// a closing comment names them instead of inventing a number.
func (s *Scenario) DevInfo(h fabric.NodeID, verbose bool) string {
	p := s.HCAProfile(h)
	t := kind.TransportOf(p.Transport)
	guid := fabric.GUID(h)
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f("hca_id:\t%s\n", DeviceName)
	f("\ttransport:\t\t\t%s\n", t.VerbsTransport) // RoCE devices report IBV_TRANSPORT_IB too
	f("\tnode_guid:\t\t\t%s\n", guidStr(guid))
	f("\tsys_image_guid:\t\t\t%s\n", guidStr(guid))
	f("\tvendor_id:\t\t\t0x%04x\n", 0)
	f("\tvendor_part_id:\t\t\t%d\n", 0)
	f("\thw_ver:\t\t\t\t0x%X\n", 0)
	// A dual-port HCA's second port is a node of its own (its link, its
	// LID, its GID).
	ports := []fabric.NodeID{h}
	if p2, ok := s.Topology.SecondPort(h); ok {
		ports = append(ports, p2)
	}
	f("\tphys_port_cnt:\t\t\t%d\n", len(ports))
	if verbose {
		f("\tmax_qp_rd_atom:\t\t\t%d\n", p.MaxDestRdAtomic)
		f("\tmax_qp_init_rd_atom:\t\t%d\n", p.MaxRdAtomic)
		if t.Atomics {
			f("\tatomic_cap:\t\t\tATOMIC_HCA (1)\n")
		} else {
			f("\tatomic_cap:\t\t\tATOMIC_NONE (0)\n") // iWARP's RFC 5040 has no atomics
		}
	}
	for i, n := range ports {
		link := s.Topology.Links[s.Topology.Nodes[n].Ports[0].Link]
		ib := s.LinkLayerOf(n) == fabric.InfiniBand // each port its own (a VPI adapter's, vpi.go)
		f("\t\tport:\t%d\n", i+1)
		f("\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n")
		f("\t\t\tmax_mtu:\t\t4096 (5)\n")
		f("\t\t\tactive_mtu:\t\t%d (%d)\n", p.MTU, mtuEnum(p.MTU))
		lid, lmc, sm := 0, 0, 0
		if ib {
			lids := s.LIDs()
			lid, lmc, sm = int(lids.Of(n)), s.IB.LMC, int(lids.Of(s.SMNode()))
		}
		f("\t\t\tsm_lid:\t\t\t%d\n", sm)
		f("\t\t\tport_lid:\t\t%d\n", lid)
		f("\t\t\tport_lmc:\t\t0x%02x\n", lmc)
		f("\t\t\tlink_layer:\t\t%s\n", linkLayerTitle(s.LinkLayerOf(n)))
		if verbose {
			f("\t\t\tmax_msg_sz:\t\t0x%x\n", p.MaxMsgSize)
			if ib {
				f("\t\t\tmax_vl_num:\t\t%s\n", vlStr(s.IB.DataVLs))
			}
			if w, speed, code, ok := widthSpeed(link.Rate); ok {
				f("\t\t\tactive_width:\t\t%dX (%d)\n", w, widthCode(w))
				f("\t\t\tactive_speed:\t\t%s (%d)\n", speed, code)
			}
			f("\t\t\teffective_speed:\t%.1f Gbps\n", float64(link.Rate)/1e9)
			if ib {
				f("\t\t\tphys_state:\t\tLINK_UP (5)\n")
			}
			for i, g := range s.gids(n) {
				f("\t\t\tGID[%3d]:\t\t%s\n", i, g)
			}
		}
	}
	if verbose {
		f("# ibv_devinfo -v also prints device limits the model has none of (max_mr_size, max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd, max_srq, ...); they are left out rather than invented\n")
	}
	f("\n")
	return b.String()
}

// gids is host h's GID table as devinfo prints it: on InfiniBand the
// link-local GID from the port's GUID; on Ethernet the link-local GID
// from the MAC and the IPv4-mapped one, each with its RoCE type.
func (s *Scenario) gids(h fabric.NodeID) []string {
	if s.LinkLayerOf(h) == fabric.InfiniBand {
		g := make([]byte, 16)
		g[0], g[1] = 0xfe, 0x80
		for i := 0; i < 8; i++ {
			g[8+i] = byte(fabric.GUID(h) >> (56 - 8*i))
		}
		var parts []string
		for i := 0; i < 16; i += 2 {
			parts = append(parts, fmt.Sprintf("%02x%02x", g[i], g[i+1]))
		}
		return []string{strings.Join(parts, ":")}
	}
	gidType := kind.TransportOf(s.HCA.Transport).GIDType
	mac := []byte{0x02, byte(h >> 16), byte(h >> 8), byte(h), 0, 0} // reports.PortMAC(h, 0)
	if gidType == "" {
		// An iWARP port's one GID is its MAC, zero-padded (iw_cxgb4's
		// query_gid), with no RoCE type.
		g := make(net.IP, 16)
		copy(g, mac)
		return []string{g.String()}
	}
	ll := net.IP{0xfe, 0x80, 0, 0, 0, 0, 0, 0, mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]}
	ip := s.PortIP(h)
	v4 := net.IPv4(byte(ip>>24), byte(ip>>16), byte(ip>>8), byte(ip))
	return []string{ll.String() + ", " + gidType, "::ffff:" + v4.To4().String() + ", " + gidType}
}

// guidStr is devinfo.c's guid_str: four groups of four hex digits.
func guidStr(g uint64) string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", g>>48&0xffff, g>>32&0xffff, g>>16&0xffff, g&0xffff)
}

// mtuEnum is enum ibv_mtu's value for an MTU (256 is 1, 4096 is 5).
func mtuEnum(mtu int) int {
	for i, m := range []int{256, 512, 1024, 2048, 4096} {
		if m == mtu {
			return i + 1
		}
	}
	return 0
}

// vlStr is devinfo.c's vl_str for a number of data VLs.
func vlStr(n int) string {
	return map[int]string{1: "1 (1)", 2: "2 (2)", 4: "4 (3)", 8: "8 (4)"}[n]
}

// widthCode is the IBTA width code devinfo.c decodes (width_str).
func widthCode(w int) int { return map[int]int{1: 1, 4: 2, 8: 4, 12: 8, 2: 16}[w] }

// widthSpeed splits a link rate into IBTA lanes and a lane speed that
// devinfo.c's speed_str names: four lanes if that gives a named speed,
// else one.
func widthSpeed(r fabric.Rate) (width int, speed string, code int, ok bool) {
	speeds := []struct {
		rate fabric.Rate
		name string
		code int
	}{{2_500_000_000, "2.5 Gbps", 1}, {5 * fabric.Gbps, "5.0 Gbps", 2}, {10 * fabric.Gbps, "10.0 Gbps", 4}, {14 * fabric.Gbps, "14.0 Gbps", 16},
		{25 * fabric.Gbps, "25.0 Gbps", 32}, {50 * fabric.Gbps, "50.0 Gbps", 64}, {100 * fabric.Gbps, "100.0 Gbps", 128}, {200 * fabric.Gbps, "200.0 Gbps", 256}}
	for _, w := range []int{4, 1} {
		for _, sp := range speeds {
			if sp.rate*fabric.Rate(w) == r {
				return w, sp.name, sp.code, true
			}
		}
	}
	return 0, "", 0, false
}
