package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Build creates the network of s: one engine seeded with s.Seed, a switch
// model per switch, an HCA per host, and one RC QP pair per flow with its
// WRITE posted at the flow's start.
func Build(s *resolve.Scenario) (*Network, error) { return BuildWorkers(s, 1) }

// BuildWorkers is Build for a run on workers goroutines (issue 31): when
// the scenario can be cut (Network.Serial says why not), the network is
// cut into partitions (planPartitions), each on an engine of a sim.Group,
// and its results are the same as on one worker's, byte for byte.
func BuildWorkers(s *resolve.Scenario, workers int) (*Network, error) {
	n := &Network{Scenario: s, flowLimit: resolve.MaxFlows,
		Switches: make([]*swtch.Switch, len(s.Topology.Nodes)),
		HCAs:     make([]*hca.HCA, len(s.Topology.Nodes)),
	}
	var fab *fabric.Network
	var plan partitionPlan
	if workers > 1 {
		plan = planPartitions(s.Topology, workers, serverGPUs(s))
		n.Serial = n.serialReason(plan)
	}
	if workers > 1 && n.Serial == "" {
		n.Group = sim.NewGroup(s.Seed, plan.parts, workers, topologyLookahead(s.Topology))
		fab = fabric.NewPartitioned(n.Group, s.Topology, plan.part)
		n.plan = plan
	} else {
		fab = fabric.NewNetwork(sim.NewEngine(s.Seed), s.Topology)
	}
	n.Eng, n.Fabric = fab.Eng, fab
	n.parts = make([]partState, len(fab.Pools))
	n.windowed = fab.Eng.Lookahead() > 0
	// Ports learn their pause response and their node's largest frame
	// before any switch is made: a switch's headroom depends on its
	// peers'.
	maxFrames := s.MaxFrames() // as the buffer check before the build takes them
	for _, host := range s.Topology.Hosts() {
		port := fab.Ports[host][0]
		port.SenderFrame = s.SenderFrame(host)
		port.ResponseDelay = swtch.PauseResponse(port.Rate)
		if p2, ok := s.Topology.SecondPort(host); ok && s.VPI(host) {
			port := fab.Ports[p2][0]
			port.SenderFrame = s.SenderFrame(p2)
			port.ResponseDelay = swtch.PauseResponse(port.Rate)
		}
	}
	for id, node := range s.Topology.Nodes {
		if node.Kind == fabric.Switch {
			prof := s.SwitchProfile(fabric.NodeID(id))
			for _, p := range fab.Ports[id] {
				p.ResponseDelay = prof.PFC.ResponseDelay(p.Rate)
			}
		}
	}
	if s.LinkLayer == fabric.InfiniBand || s.Mixed() {
		// Every InfiniBand port grants credits for its buffer per VL; a
		// port's own largest packet is its host's MTU packet (with a GRH
		// if it sends multicast), or for a switch the network's largest.
		mcast := s.MulticastSenders()
		for id, ports := range fab.Ports {
			if s.LinkLayerOf(fabric.NodeID(id)) != fabric.InfiniBand {
				continue
			}
			frame := maxFrames[fabric.InfiniBand]
			if s.Topology.Nodes[id].Kind == fabric.Host {
				frame = s.HostFrame(fabric.NodeID(id), mcast[id])
			}
			for i, p := range ports {
				if perVL, ok := s.LongHaul(fabric.NodeID(id), i); ok {
					p.EnableLongHaulCredits(perVL, s.IB.DataVLs, frame) // between two range extenders
					continue
				}
				p.EnableCredits(s.IB.VLBuffer, s.IB.DataVLs, frame)
			}
		}
	}
	if buf := s.UEC.CBFCBuffer; buf > 0 {
		// Ultra Ethernet's CBFC: every Ethernet port grants credits for
		// its buffer per traffic class, as InfiniBand's per VL.
		for id, ports := range fab.Ports {
			frame := maxFrames[fabric.Ethernet]
			if s.Topology.Nodes[id].Kind == fabric.Host {
				frame = s.HostFrame(fabric.NodeID(id), false)
			}
			for _, p := range ports {
				p.EnableCBFC(buf, frame)
			}
		}
	}
	if s.UEC.LLR {
		// Ultra Ethernet's link-level retry: every link, both ways.
		for _, ports := range fab.Ports {
			for _, p := range ports {
				p.Link().EnableLLR()
			}
		}
	}
	// Every host's connection manager owns its QP1, made when a program
	// asks for it or a MAD comes (cm.Agent: one function for each
	// profile of the hosts'); on InfiniBand it asks the SA, which is
	// filled in below, once its host's HCA is made.
	var sa *cm.SubnetAdmin
	if s.LinkLayer == fabric.InfiniBand {
		sa = &cm.SubnetAdmin{}
	}
	agents := map[cm.Profile]func(*hca.HCA) hca.GSIAgent{}
	for i, host := range s.Topology.Hosts() {
		name := s.Topology.Nodes[host].Name
		prof := s.HCAProfile(host)
		resolve.ApplyCCToProfile(&prof, s.CC)
		c := s.CMProfile(host)
		if agents[c] == nil {
			agents[c] = cm.Agent(c, sa)
		}
		prof.NewGSIAgent = agents[c]
		n.HCAs[host] = hca.New(fab.EngineOf(host), fab.PoolOf(host), host, name, fabric.HostIP(i), prof, fab.Ports[host][0])
		if p2, ok := s.Topology.SecondPort(host); ok && s.VPI(host) {
			// A VPI adapter's port on the other fabric: a PCI function
			// of its own (resolve/vpi.go).
			prof := s.HCAProfile(p2)
			resolve.ApplyCCToProfile(&prof, s.CC)
			prof.NewGSIAgent = agents[c]
			n.HCAs[p2] = hca.New(fab.EngineOf(p2), fab.PoolOf(p2), p2, s.Topology.Nodes[p2].Name, s.PortIP(p2), prof, fab.Ports[p2][0])
		} else if ok {
			n.HCAs[host].AddPort(fab.Ports[p2][0], p2)
		}
		if rate := s.HostBandwidthOf(host); rate > 0 {
			// The adapter's host interface, shared by its ports.
			hi := hca.NewHostInterface(fab.EngineOf(host), rate)
			n.HCAs[host].ShareHostInterface(hi)
			if p2, ok := s.Topology.SecondPort(host); ok && s.VPI(host) {
				n.HCAs[p2].ShareHostInterface(hi)
			}
		}
	}
	setPeerMTU(s, n.HCAs)
	if len(s.Topology.Endpoints()) > len(s.Topology.Hosts()) && !s.Mixed() {
		for _, h := range n.HCAs {
			if h != nil {
				h.SetPortMap(s.Topology, s.IB.LMC > 0)
			}
		}
	}
	if s.LinkLayer == fabric.InfiniBand {
		// The SA on the subnet manager's host answers rdma_cm's path
		// queries.
		sm := s.SMNode()
		lids := s.LIDs()
		ref := s.Topology.Nodes[sm].Ports[0]
		*sa = cm.SubnetAdmin{Node: sm, IP: n.HCAs[sm].IP, LID: lids.Of, Rate: s.Topology.Links[ref.Link].Rate}
	}
	for id, node := range s.Topology.Nodes {
		if node.Kind != fabric.Switch {
			continue
		}
		nid := fabric.NodeID(id)
		prof := s.SwitchProfile(nid)
		if s.UET.ReceiverCredits {
			// RCCC's receivers answer for their own links (rccc.go).
			prof.ECN.HostLinksUnmarked = true
		}
		sw := swtch.New(fab.EngineOf(nid), fab.PoolOf(nid), nid, node.Name, prof, fab.Ports[id], s.RoutesAt(nid), maxFrames[s.LinkLayerOf(nid)])
		if err := sw.Check(); err != nil {
			return nil, err
		}
		n.Switches[id] = sw
		n.balanced = n.balanced || sw.Prof.LoadBalance.Chooses()
		n.trimming = n.trimming || sw.Prof.Trim
	}
	if len(s.IB.PortSL2VL) > 0 {
		// Every port has a table, switch.ib.sl2vl where the file gives
		// none: a packet moved to another VL returns to its SL's usual VL
		// at the next switch.
		for _, sw := range n.Switches {
			if sw != nil {
				for out := range fab.Ports[sw.ID] {
					sw.SetSL2VL(out, -1, s.IB.SL2VL)
				}
			}
		}
		for _, t := range s.IB.PortSL2VL {
			n.Switches[t.Switch].SetSL2VL(t.Out, t.In, t.Table)
		}
	}
	n.creditSinks()
	if err := n.buildFlows(); err != nil {
		return nil, err
	}
	if err := n.buildCollectives(); err != nil {
		return nil, err
	}
	for _, f := range s.Faults {
		n.scheduleFault(f)
	}
	if err := n.prepareFaultModels(); err != nil {
		return nil, err
	}
	for _, t := range s.Tests {
		tr := &TestRun{Test: t}
		var err error
		switch t.Kind {
		case "perftest":
			tr.Perftest, err = programs.NewPerftest(n.HCAs[t.Src], n.HCAs[t.Dst], t.Perftest)
		case "rping":
			tr.Rping, err = programs.NewRping(n.HCAs[t.Src], n.HCAs[t.Dst], t.Rping)
		case "rdma_server":
			tr.Server = programs.NewRdmaServer(n.HCAs[t.Src], t.Port, t.Start)
		case "mckey":
			tr.Mckey, err = n.startMckey(t)
		case "rdma_client":
			tr.Client = programs.NewRdmaClient(n.HCAs[t.Src], t.Dst, n.HCAs[t.Dst].IP, t.Port, t.Start)
		default:
			tr.Pingpong, err = programs.NewPingpong(n.HCAs[t.Src], n.HCAs[t.Dst], t.Pingpong)
		}
		if err != nil {
			return nil, fmt.Errorf("traffic[%d]: %v", t.Generator, err)
		}
		n.Tests = append(n.Tests, tr)
	}
	return n, nil
}

// startMckey puts the group's tree in the switches' tables (its members'
// joins, taken as done when the program starts) and starts mckey.
func (n *Network) startMckey(t resolve.Test) (*programs.Mckey, error) {
	topo := n.Scenario.Topology
	ports, err := fabric.MulticastTree(topo, t.Src, append([]fabric.NodeID{t.Src}, t.Receivers...))
	if err != nil {
		return nil, fmt.Errorf("mckey: %v", err)
	}
	for id, sw := range n.Switches {
		if sw != nil {
			sw.SetMulticast(t.Mckey.Group, ports[fabric.NodeID(id)])
		}
	}
	var rcv []*hca.HCA
	for _, r := range t.Receivers {
		rcv = append(rcv, n.HCAs[r])
	}
	return programs.NewMckey(n.HCAs[t.Src], rcv, t.Mckey)
}
