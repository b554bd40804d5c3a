package fabric

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// IBSimCAGUID is the node GUID ibsim gives host n's channel adapter in
// the net file WriteIBSimNet writes: ibsim numbers a CA's ports from its
// node GUID (port p's GUID is the node GUID + p, ibsim/sim_net.c
// init_ports), so a CA whose port GUID were GUID(n) would have the node
// GUID GUID(n)-1, the switch's before it when NodeID n-1 is a switch.
// The CA's GUIDs therefore carry lfsim's low 32 bits under 0x0002c904
// (OUI 0x0002c9, then 04 where lfsim's have 03): port 1's GUID is
// GUID(n) + 2^32, and the order of the hosts' GUIDs is their NodeIDs'.
// Switches keep lfsim's GUID(n) as node and port GUID (a switch has one,
// ibsim's port 0).
func IBSimCAGUID(n NodeID) uint64 { return GUID(n) + 1<<32 - 1 }

// WriteIBSimNet writes the InfiniBand side of t as an ibsim net file
// (ibsim's netfile format, that of ibnetdiscover's output: a record per
// node, "Switch PORTS "NAME"" or "Hca PORTS "NAME"", then a line per
// connected port, "[PORT] "PEER"[PEERPORT]", records apart by an empty
// line), in NodeID order, so that OpenSM run on it (ibsim-run opensm)
// sees lfsim's fabric: its ports numbered from 1 as WriteLFTs numbers
// them (lfsim's port i is port i+1), each switch's GUID set before its
// record ("switchguid=") to lfsim's GUID, each CA's to IBSimCAGUID
// ("caguid="). ibsim runs the subnet manager from the first node.
//
// Only what OpenSM would see is written: nodes with a LID in lids (a
// range extender, which the subnet manager does not see, and the
// Ethernet side of a mixed network have none), and the links between
// them. It fails on a range extender that has links into the subnet
// (ibsim cannot hide it) and on a name ibsim cannot read (a double
// quote, or longer than ibsim's 63 characters).
func WriteIBSimNet(w io.Writer, t *Topology, lids *LIDs) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# lfsim's fabric as an ibsim net file: %d nodes with LIDs, LMC %d.\n", lids.n, lids.lmc)
	fmt.Fprintf(bw, "# Run it: ibsim -s FILE, then ibsim-run opensm -o -R ENGINE with guid2lid in OSM_CACHE_DIR.\n")
	for id, n := range t.Nodes {
		at := NodeID(id)
		if n.RangeExtender {
			for _, p := range n.Ports {
				if lids.Of(p.Peer) != 0 {
					return fmt.Errorf("%s is a range extender, which the subnet manager does not see, and an ibsim net file cannot hide it", n.Name)
				}
			}
			continue
		}
		if lids.Of(at) == 0 {
			continue
		}
		if strings.ContainsRune(n.Name, '"') || len(n.Name) > 63 {
			return fmt.Errorf("node %q: ibsim reads a node's name between double quotes, at most 63 characters", n.Name)
		}
		kind := "Hca"
		if n.Kind == Switch {
			kind = "Switch"
			fmt.Fprintf(bw, "\nswitchguid=0x%016x\n", GUID(at))
		} else {
			fmt.Fprintf(bw, "\ncaguid=0x%016x\n", IBSimCAGUID(at))
		}
		fmt.Fprintf(bw, "%s\t%d \"%s\"\n", kind, len(n.Ports), n.Name)
		for pi, p := range n.Ports {
			if lids.Of(p.Peer) == 0 {
				continue
			}
			fmt.Fprintf(bw, "[%d]\t\"%s\"[%d]\n", pi+1, t.Nodes[p.Peer].Name, p.PeerPort+1)
		}
	}
	return bw.Flush()
}

// WriteGUID2LID writes OpenSM's guid2lid file (its persistent LID
// assignment, read from OSM_CACHE_DIR at start unless it is told to
// reassign LIDs, osm_lid_mgr.c) with lfsim's LIDs for the port GUIDs of
// WriteIBSimNet's fabric: "0xGUID 0xMIN 0xMAX" per port and an empty
// line (osm_db_files.c reads the lines after a key up to an empty one as
// its value, so without it only the first entry counts), MIN the base
// LID, MAX the last of its 2^LMC; a switch its base LID alone (ibsim's
// switches have a base port 0, which OpenSM gives one LID whatever the
// LMC: it drops a wider entry and numbers the switch anew). With it
// OpenSM's LIDs are lfsim's, and the forwarding tables compare entry by
// entry.
func WriteGUID2LID(w io.Writer, t *Topology, lids *LIDs) error {
	bw := bufio.NewWriter(w)
	for id, n := range t.Nodes {
		at := NodeID(id)
		base := lids.Of(at)
		if base == 0 || n.RangeExtender {
			continue
		}
		guid, last := GUID(at), int(base)
		if n.Kind == Host {
			guid, last = IBSimCAGUID(at)+1, int(base)+1<<lids.lmc-1
		}
		fmt.Fprintf(bw, "0x%016x 0x%04x 0x%04x\n\n", guid, base, last)
	}
	return bw.Flush()
}
