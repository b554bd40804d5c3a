package kind

import "github.com/lfsim/lfsim/fabric"

// Transport is one transport's row of the table (hca.transport): what a
// file calls it and what it needs of the rest of the simulator, which
// resolve, assembly and the programs read instead of naming a transport.
//
// A transport is a parameter of the one HCA model, not a plugin of it:
// the HCA's datapath frames each transport itself (hca/, fabric's
// framing), by the value Framing names, and this table is where the rest
// of lfsim learns what the transport needs. fabric is below this
// package, so the rows live here rather than registered by the model.
// A new transport's row (RegisterTransport) is enough for the format
// (hca.transport's enumeration, the JSON Schema), resolve's checks of
// the file, the memory estimate, devinfo and perftest's report; it still
// needs its framing in fabric (a Transport value, its headers and wire
// size) and the HCA's transmit and receive paths for it, and any rule
// the row's facts do not say (iWARP's own, RDMAP's, are resolve/iwarp.go's,
// applied to the rows with RDMAP).
type Transport struct {
	// Name is hca.transport's value.
	Name string
	// Title is its name as its standard writes it (RoCEv1), for
	// messages.
	Title string
	// Doc is one line for the docs: what it is and its source.
	Doc string
	// Framing is the HCA's transport that frames it (hca.Profile's
	// Transport).
	Framing fabric.Transport
	// Wire is the bytes a packet with opcode op and payload bytes takes
	// on an Ethernet link (fabric's framing), for a flow's ideal
	// completion time. iWARP's is RoCEv2's, as the ideal has always
	// counted it: its MPA, TCP and IP headers are not counted there.
	Wire func(op fabric.Opcode, payload int) int

	// Ethernet and InfiniBand are the link layers it runs on. On
	// InfiniBand links, where the transport is InfiniBand's own, a NIC's
	// profile keeps the first row's (the default), which a file may
	// therefore name there; another row not on InfiniBand is refused.
	Ethernet, InfiniBand bool
	// Does says what it does, as the message refusing it on a link layer
	// not its own says it ("frames RDMA for Ethernet").
	Does string

	// Routed: its frames are routed over IP (by topology.routing, ECMP
	// hashing their ports, a switch's load balancing choosing among
	// paths). Otherwise the fabric is one layer-2 domain: switches bridge
	// it by MAC along one spanning tree (fabric.RoutingSpanningTree),
	// which has no routing to choose and one path between two hosts.
	Routed bool
	// IP: its frames carry an IP header, in whose ECN field switches
	// mark and which an overlay tunnels; otherwise no switch can mark it
	// (a control that reacts to marks is refused) and no overlay carries
	// it. INT: in-band telemetry rides on its UDP header. EtherType and
	// Header are, for a frame without IP, its EtherType and the header
	// that follows (RoCEv1's 0x8915 and "a GRH", IBTA annex A16), which
	// messages refusing ECN or an overlay name.
	IP, INT   bool
	EtherType uint16
	Header    string

	// TCP: it runs over the NIC's TCP (hca/tcp.go), whose congestion
	// control (hca.tcp.cc, the rows with CC.TCP) stands for RDMA's
	// (hca.cc is refused), whose recovery stands for RDMA's (hca's
	// retransmission keys are refused), whose connection state each flow
	// holds (the memory estimate), and on whose streams a READ's
	// responses go from the responder (hca/tcpread.go). Otherwise hca.cc's
	// RDMA congestion controls apply, a READ's responses under the
	// responder's control only when it ControlsReads.
	TCP bool
	// Block is the key under hca: of its parameters ("tcp": hca.tcp),
	// refused with another transport; "" for none.
	Block string
	// RDMAP: its verbs are iWARP's RDMAP (RFC 5040) over MPA: reliable
	// connections only, no immediate data, no RNR NAK, rdma_cm over
	// iw_cm (resolve/iwarp.go holds these rules).
	RDMAP bool
	// Atomics: it has atomic operations (ibv_devinfo's atomic_cap
	// ATOMIC_HCA; ATOMIC_NONE otherwise, and atomic traffic is refused).
	Atomics bool
	// Capture: observe.pcap writes its frames.
	Capture bool

	// VerbsTransport is ibv_devinfo's transport line (enum
	// ibv_transport_type: "InfiniBand (0)", which RoCE devices report
	// too, or "iWARP (1)"); PerftestTransport is perftest's
	// transport_str ("IB" or "IW").
	VerbsTransport, PerftestTransport string
	// GIDType is the RoCE type ibv_devinfo prints after each of an
	// Ethernet port's two GIDs (the link-local one from the MAC and the
	// IPv4-mapped one: "RoCE v2"); "" for a port whose one GID is its MAC,
	// zero-padded, with no type (iw_cxgb4's query_gid).
	GIDType string
}

var transports = table[Transport]{name: func(t Transport) string { return t.Name }}

func init() {
	for _, t := range []Transport{{
		Name: "rocev2", Title: "RoCEv2", Framing: fabric.RoCEv2, Wire: fabric.RoCEv2Wire,
		Doc:      "the InfiniBand transport over IPv4 and UDP port 4791 (IBTA annex A17); routed, ECN-capable, hashed by ECMP",
		Ethernet: true, Does: "frames RDMA for Ethernet",
		Routed: true, IP: true, INT: true, Atomics: true, Capture: true,
		VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB", GIDType: "RoCE v2",
	}, {
		Name: "rocev1", Title: "RoCEv1", Framing: fabric.RoCEv1, Wire: fabric.RoCEv1Wire,
		Doc:      "the InfiniBand transport after EtherType 0x8915 and a GRH (IBTA annex A16); layer 2 only, bridged along a spanning tree",
		Ethernet: true, Does: "frames RDMA for Ethernet",
		EtherType: fabric.EtherTypeRoCEv1, Header: "a GRH",
		Atomics: true, Capture: true,
		VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB", GIDType: "RoCE v1",
	}, {
		Name: "iwarp", Title: "iWARP", Framing: fabric.IWARP, Wire: fabric.RoCEv2Wire,
		Doc:      "RDMAP over DDP over MPA over TCP (RFC 5040, 5041, 5044), IPv4 and Ethernet; routed, hashed by ECMP on TCP's ports, RC only",
		Ethernet: true, Does: "runs RDMA over TCP on Ethernet",
		Routed: true, IP: true, TCP: true, Block: "tcp", RDMAP: true, Capture: true,
		VerbsTransport: "iWARP (1)", PerftestTransport: "IW",
	}, {
		Name: "uet", Title: "UET", Framing: fabric.UET, Wire: fabric.UETWire,
		Doc:      "Ultra Ethernet's transport, PDS and SES headers over IPv4 and UDP port 4793 (UEC 1.0.1); reliable unordered delivery on the RC machinery's selective repeat and direct placement; routed, ECN-capable, hashed by ECMP over the entropy (its UDP source port) the sender chooses per packet (hca.uet.spray)",
		Ethernet: true, Does: "frames RDMA for Ethernet",
		Routed: true, IP: true, Block: "uet",
		VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB",
	}} {
		RegisterTransport(t)
	}
}

// RegisterTransport adds t to the table, after those registered before
// it (the order of hca.transport's enumeration; the first is the
// default). A second row with the same name or the same Framing panics.
// unregister takes it out again (for a test's toy transport).
func RegisterTransport(t Transport) (unregister func()) {
	for _, r := range Transports() {
		if r.Framing == t.Framing {
			panic("kind: transport " + t.Name + "'s framing is " + r.Name + "'s")
		}
	}
	return transports.register("transport", t, func(n string) bool { return n != "" })
}

// Transports is the table, in registration order.
func Transports() []Transport { return transports.all() }

// LookupTransport is the row named name.
func LookupTransport(name string) (Transport, bool) { return transports.lookup(name) }

// TransportOf is the row of the HCA's transport f (an HCA profile's);
// the default row when none frames it.
func TransportOf(f fabric.Transport) Transport {
	if r, ok := transports.find(func(r Transport) bool { return r.Framing == f }); ok {
		return r
	}
	r, _ := transports.find(func(Transport) bool { return true })
	return r
}

// TransportNames are hca.transport's values, in table order.
func TransportNames() []string {
	var out []string
	for _, t := range Transports() {
		out = append(out, t.Name)
	}
	return out
}

// EncapNames are hca.overlay.encap's values: the encapsulations an
// overlay may use, as the fabric defines them (fabric.Encaps).
func EncapNames() []string {
	var out []string
	for _, e := range fabric.Encaps() {
		out = append(out, e.String())
	}
	return out
}
