package observe

import (
	"fmt"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// maxSeriesRows bounds timeseries.csv (about 35 MB): past it the sampler
// keeps every other sample and doubles its interval, and the run says so.
const maxSeriesRows = 1_000_000

// Sampler records the time series of observe: at every interval: tx_gbps
// per observed port, queue_bytes and paused per observed port and priority
// in use (and tx_gbps per priority where a switch configures QoS),
// buffer_bytes per switch, flow_gbps per observed flow. Its memory is
// series × samples.
type Sampler struct {
	eng      *sim.Engine
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
	flows      []Flow
	ccs        []congestion.Sender
	flowKeys   []flowKeys
	lastDelivd []int64

	// parts are the partitions' shares of the series (samplerparts.go),
	// each taken by its own worker (each, when spread: more than one
	// part has series); runs are their runs of series in the order a
	// sample records them, and cursor a part's next run at the merge.
	each   func(func(part int))
	takeFn func(part int) // sm.takePart, made once (a closure a sample would allocate)
	now    sim.Time       // the sample being taken, and its time since the last
	dt     sim.Time
	spread bool
	parts  []samplerPart
	runs   []sampleRun
	cursor []int
}

// flowKeys are a flow's series: its goodput and its congestion control's
// state.
type flowKeys struct{ gbps, rc, rt, alpha, window, ccti, rtt reports.Key }

// Flow is a flow the sampler follows (flow_gbps, and its congestion
// control's rate, target, alpha and window).
type Flow struct {
	ID int
	// Receiver tells how much of the flow's data has been delivered so
	// far (accepted in order by the responder; for a READ, its
	// responses placed at the requester), also after the flow has ended.
	Receiver interface{ DeliveredBytes() int64 }
	// CC is the flow's congestion control, nil with cc: none.
	CC congestion.Sender
	// RTT gives the sender's smoothed round-trip time (iWARP's TCP), nil
	// when it keeps none; rtt_us is sampled once it has a sample.
	RTT interface{ SRTT() sim.Time }
	// Node is the host whose partition samples the flow (its
	// requester's), in a run cut into partitions.
	Node fabric.NodeID
}

type queueSeries struct {
	where      string // node:port:priority
	port       *fabric.Port
	sw         *swtch.Switch // nil for a host's port
	prio       uint8
	queueKey   reports.Key // queue_bytes, for a switch's port
	pausedKey  reports.Key
	lastPaused sim.Time
	// txKey is tx_gbps of the priority, for a switch whose profile
	// configures QoS (swtch.Profile.QoS), lastTx its bytes sent so far.
	txKey  reports.Key
	perTx  bool
	lastTx int64
}

// NewSampler makes the sampler of c: the ports and queues it selects (the
// queues of each priority in prios), every switch's buffer, and those of
// flows that c.Flows selects (the flows there at the start: flow_gbps
// covers those). Start schedules its first sample.
func NewSampler(v *View, c *Config, prios []uint8, flows []Flow) *Sampler {
	sm := &Sampler{eng: v.Eng, interval: c.Interval, series: reports.NewSeries(maxSeriesRows), each: v.Each}
	var rb runBuilder
	for id, ports := range v.Ports {
		part := v.partition(fabric.NodeID(id))
		sw := v.Switches[id]
		for _, p := range ports {
			ref := PortRef{Node: fabric.NodeID(id), Port: p.Index}
			if c.Links.HasPort(ref) {
				rb.add(runLinks, part, len(sm.links))
				sm.links = append(sm.links, p)
				sm.txKey = append(sm.txKey, sm.series.Key(reports.MetricTxGbps, p.Name))
			}
			if !c.Queues.HasPort(ref) {
				continue
			}
			// On InfiniBand a port waits for credit where Ethernet's is
			// paused (fabric.Port's paused mask carries either).
			paused := reports.MetricPaused
			if p.Credits() {
				paused = reports.MetricCreditWait
			}
			for _, prio := range prios {
				where := fmt.Sprintf("%s:%d", p.Name, prio)
				q := queueSeries{where: where, port: p, sw: sw, prio: prio,
					queueKey: sm.series.Key(reports.MetricQueueBytes, where), pausedKey: sm.series.Key(paused, where)}
				if sw != nil && sw.Prof.QoS() {
					q.txKey, q.perTx = sm.series.Key(reports.MetricTxGbps, where), true
				}
				rb.add(runQueues, part, len(sm.queues))
				sm.queues = append(sm.queues, q)
			}
		}
		if sw != nil {
			rb.add(runSwitches, part, len(sm.switches))
			sm.switches = append(sm.switches, sw)
			sm.bufferKey = append(sm.bufferKey, sm.series.Key(reports.MetricBufferBytes, sw.Name))
		}
	}
	sm.lastTx = make([]int64, len(sm.links))
	for _, f := range flows {
		if c.Flows.HasFlow(f.ID) {
			rb.add(runFlows, v.partition(f.Node), len(sm.flows))
			sm.flows = append(sm.flows, f)
			sm.ccs = append(sm.ccs, f.CC)
			where := fmt.Sprintf("flow:%d", f.ID)
			key := func(metric string) reports.Key { return sm.series.Key(metric, where) }
			sm.flowKeys = append(sm.flowKeys, flowKeys{gbps: key(reports.MetricFlowGbps), rc: key(reports.MetricRCGbps),
				rt: key(reports.MetricRTGbps), alpha: key(reports.MetricAlpha), window: key(reports.MetricWindowBytes), ccti: key(reports.MetricCCTI), rtt: key(reports.MetricRTTUs)})
		}
	}
	sm.lastDelivd = make([]int64, len(sm.flows))
	sm.runs = rb.runs()
	sm.parts = make([]samplerPart, v.partitions())
	busy := 0
	for _, r := range sm.runs {
		p := &sm.parts[r.part]
		if len(p.runs) == 0 {
			busy++
		}
		p.runs = append(p.runs, r)
	}
	sm.spread = busy > 1
	sm.takeFn = sm.takePart
	sm.cursor = make([]int, len(sm.parts))
	return sm
}

// Peak is the largest switch egress queue the samples saw (nil when no
// switch queue is sampled, or none ever held a byte).
func (sm *Sampler) Peak() *reports.QueuePeak {
	var best *samplerPart
	for i := range sm.parts {
		if p := &sm.parts[i]; best == nil || p.peakBefore(best) {
			best = p
		}
	}
	if best == nil || best.peak.PeakBytes == 0 {
		return nil
	}
	p := best.peak
	return &p
}

// HandleEvent takes one sample, as the engine's timer (a run that cannot
// be cut: Sample).
func (sm *Sampler) HandleEvent(*sim.Event) {
	sm.Sample(sm.eng.Now())
	// Keep sampling while anything else is scheduled; a sampler alone
	// would keep an idle run going for ever.
	if sm.eng.Pending() > 0 {
		sm.eng.After(sm.interval, sm, 0, 0, nil)
	}
}

// Interval is the time from one sample to the next (it doubles when the
// series reaches its bound).
func (sm *Sampler) Interval() sim.Time { return sm.interval }

// Sample takes the sample of now: a run that can be cut takes it where
// every event before now has fired and none at now (issue 31), at each
// Interval, while the run has events to come. Each partition takes its
// share on its worker (View.Each), and the shares are merged in the
// order of one worker's sample (samplerparts.go).
func (sm *Sampler) Sample(now sim.Time) {
	dt := now - sm.last
	if dt <= 0 {
		return
	}
	sm.now, sm.dt = now, dt
	if sm.each != nil && sm.spread {
		sm.each(sm.takeFn)
	} else {
		for i := range sm.parts {
			sm.takePart(i)
		}
	}
	if sm.merge(now) {
		sm.interval *= 2
	}
	sm.last = now
}

// Start schedules the first sample.
func (sm *Sampler) Start() { sm.eng.After(sm.interval, sm, 0, 0, nil) }

// Series is what the sampler recorded.
func (sm *Sampler) Series() *reports.Series { return sm.series }

// Warnings says what the sampler had to give up.
func (sm *Sampler) Warnings() []string {
	if sm.series.Decimations == 0 {
		return nil
	}
	return []string{fmt.Sprintf("timeseries.csv would have exceeded %d rows: the sampling interval was doubled %d times, to %v (narrow observe.links, observe.queues or observe.flows, or raise observe.interval)",
		maxSeriesRows, sm.series.Decimations, sm.interval)}
}
