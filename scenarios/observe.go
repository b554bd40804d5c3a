package scenarios

import (
	"fmt"
	"sort"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// maxSeriesRows bounds timeseries.csv (about 35 MB): past it the sampler
// keeps every other sample and doubles its interval, and the run says so.
const maxSeriesRows = 1_000_000

// sampler records the time series of observe: at every interval: tx_gbps
// per observed port, queue_bytes and paused per observed port and priority
// in use, buffer_bytes per switch, flow_gbps per observed flow. Its memory
// is series × samples.
type sampler struct {
	n        *Network
	interval sim.Time
	series   *reports.Series
	last     sim.Time

	links  []*fabric.Port
	lastTx []int64
	txKey  []reports.Key

	queues    []queueSeries
	switches  []*swtch.Switch
	bufferKey []reports.Key
	// The observed flows (those there at the start) and their congestion
	// controls, kept here so that a flow's series go on after the flow
	// has ended and let go of its own (bounded by observe.flows, not by
	// time).
	flows      []*FlowRun
	ccs        []congestion.Sender
	flowKeys   []flowKeys
	lastDelivd []int64
}

// flowKeys are a flow's series: its goodput and its congestion control's
// state.
type flowKeys struct{ gbps, rc, rt, alpha, window reports.Key }

type queueSeries struct {
	port       *fabric.Port
	sw         *swtch.Switch // nil for a host's port
	prio       uint8
	queueKey   reports.Key // queue_bytes, for a switch's port
	pausedKey  reports.Key
	lastPaused sim.Time
}

func newSampler(n *Network) *sampler {
	s := n.Scenario
	sm := &sampler{n: n, interval: s.Observe.Interval, series: reports.NewSeries(maxSeriesRows)}
	prios := n.prioritiesInUse()
	for id, ports := range n.Fabric.Ports {
		sw := n.Switches[id]
		for _, p := range ports {
			ref := PortRef{Node: fabric.NodeID(id), Port: p.Index}
			if s.Observe.Links.HasPort(ref) {
				sm.links = append(sm.links, p)
				sm.txKey = append(sm.txKey, sm.series.Key(reports.MetricTxGbps, p.Name))
			}
			if !s.Observe.Queues.HasPort(ref) {
				continue
			}
			for _, prio := range prios {
				where := fmt.Sprintf("%s:%d", p.Name, prio)
				sm.queues = append(sm.queues, queueSeries{port: p, sw: sw, prio: prio,
					queueKey: sm.series.Key(reports.MetricQueueBytes, where), pausedKey: sm.series.Key(reports.MetricPaused, where)})
			}
		}
		if sw != nil {
			sm.switches = append(sm.switches, sw)
			sm.bufferKey = append(sm.bufferKey, sm.series.Key(reports.MetricBufferBytes, sw.Name))
		}
	}
	sm.lastTx = make([]int64, len(sm.links))
	for _, f := range n.Flows {
		if f.Live == nil {
			continue // starts later (flow_gbps covers the flows there at the start)
		}
		if s.Observe.Flows.HasFlow(f.Flow.ID) {
			sm.flows = append(sm.flows, f)
			sm.ccs = append(sm.ccs, f.Live.CC)
			where := fmt.Sprintf("flow:%d", f.Flow.ID)
			key := func(metric string) reports.Key { return sm.series.Key(metric, where) }
			sm.flowKeys = append(sm.flowKeys, flowKeys{gbps: key(reports.MetricFlowGbps), rc: key(reports.MetricRCGbps),
				rt: key(reports.MetricRTGbps), alpha: key(reports.MetricAlpha), window: key(reports.MetricWindowBytes)})
		}
	}
	sm.lastDelivd = make([]int64, len(sm.flows))
	return sm
}

// prioritiesInUse are the priorities any flow or PFC configuration uses,
// ascending.
func (n *Network) prioritiesInUse() []uint8 {
	var used [8]bool
	for _, f := range n.Flows {
		used[f.Flow.Priority] = true
	}
	for _, g := range n.Scenario.Poisson {
		for _, h := range g.Hosts {
			p := n.Scenario.HCAProfile(h).Priority
			if g.PrioritySet {
				p = g.Priority
			}
			used[p] = true
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			for _, p := range sw.Prof.PFC.Priorities {
				used[p] = true
			}
		}
	}
	var out []uint8
	for p, u := range used {
		if u {
			out = append(out, uint8(p))
		}
	}
	return out
}

// HandleEvent takes one sample.
func (sm *sampler) HandleEvent(*sim.Event) {
	now := sm.n.Eng.Now()
	dt := now - sm.last
	if dt <= 0 {
		return
	}
	sec := dt.Seconds()
	ser := sm.series
	ser.Begin(now.Nanoseconds())
	for i, p := range sm.links {
		ser.AddKey(sm.txKey[i], float64(p.Stats.TxBytes-sm.lastTx[i])*8/sec/1e9)
		sm.lastTx[i] = p.Stats.TxBytes
	}
	for i := range sm.queues {
		q := &sm.queues[i]
		if q.sw != nil {
			ser.AddKey(q.queueKey, float64(q.sw.QueueBytes(q.port.Index, q.prio)))
		}
		paused := q.port.PausedTime(q.prio)
		ser.AddKey(q.pausedKey, float64(paused-q.lastPaused)/float64(dt))
		q.lastPaused = paused
	}
	for i, sw := range sm.switches {
		ser.AddKey(sm.bufferKey[i], float64(sw.BufferUsed()))
	}
	for i, f := range sm.flows {
		k := &sm.flowKeys[i]
		d := f.responderDelivered()
		ser.AddKey(k.gbps, float64(d-sm.lastDelivd[i])*8/sec/1e9)
		sm.lastDelivd[i] = d
		cc := sm.ccs[i]
		if cc == nil {
			continue
		}
		st := cc.State(now)
		ser.AddKey(k.rc, st.Rate.Gbps())
		if st.Target > 0 {
			ser.AddKey(k.rt, st.Target.Gbps())
			ser.AddKey(k.alpha, st.Alpha)
		}
		if st.Window > 0 {
			ser.AddKey(k.window, float64(st.Window))
		}
	}
	if ser.End() {
		sm.interval *= 2
	}
	sm.last = now
	// Keep sampling while anything else is scheduled; a sampler alone
	// would keep an idle run going for ever.
	if sm.n.Eng.Pending() > 0 {
		sm.n.Eng.After(sm.interval, sm, 0, 0, nil)
	}
}

// start schedules the first sample.
func (sm *sampler) start() { sm.n.Eng.After(sm.interval, sm, 0, 0, nil) }

// warnings says what the sampler had to give up.
func (sm *sampler) warnings() []string {
	if sm.series.Decimations == 0 {
		return nil
	}
	return []string{fmt.Sprintf("timeseries.csv would have exceeded %d rows: the sampling interval was doubled %d times, to %v (narrow observe.links, observe.queues or observe.flows, or raise observe.interval)",
		maxSeriesRows, sm.series.Decimations, sm.interval)}
}

// pfcLog records every PAUSE and RESUME frame sent, for pfc.csv. It
// grows with the frames sent, so it keeps 16 bytes a frame (the port as
// an index) and makes pfc.csv's rows at the end.
type pfcLog struct {
	eng   *sim.Engine
	ports []*fabric.Port
	// The frames in chunks of pfcChunk: a run can send millions of PFC
	// frames, and one slice grown by append would copy them at every
	// doubling and hold up to twice their size (a k=16 fat-tree's 450,000
	// frames are 7 MB).
	chunks [][]pfcFrame
	n      int
}

// pfcChunk is how many frames one chunk of the PFC log holds (64 KiB).
const pfcChunk = 4096

type pfcFrame struct {
	timeNs int64
	port   int32 // in pfcLog.ports
	prio   uint8
	quanta uint16
}

// watch has port tell the log of the frames it sends.
func (l *pfcLog) watch(p *fabric.Port) {
	i := int32(len(l.ports))
	l.ports = append(l.ports, p)
	p.OnPause = func(_ *fabric.Port, prio uint8, quanta uint16) {
		l.add(pfcFrame{timeNs: l.eng.Now().Nanoseconds(), port: i, prio: prio, quanta: quanta})
	}
}

func (l *pfcLog) add(f pfcFrame) {
	if l.n%pfcChunk == 0 {
		l.chunks = append(l.chunks, make([]pfcFrame, 0, pfcChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, f)
	l.n++
}

func (l *pfcLog) sorted() []reports.PFCRow {
	rows := make([]reports.PFCRow, 0, l.n)
	for _, c := range l.chunks {
		for _, f := range c {
			rows = append(rows, reports.PFCRow{TimeNs: f.timeNs, Port: l.ports[f.port].Name, Priority: f.prio, Quanta: f.quanta})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].TimeNs < rows[j].TimeNs })
	return rows
}
