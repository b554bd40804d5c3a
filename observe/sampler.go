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

	// peak is the largest switch egress queue sampled, and where and when.
	peak reports.QueuePeak
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
	sm := &Sampler{eng: v.Eng, interval: c.Interval, series: reports.NewSeries(maxSeriesRows)}
	for id, ports := range v.Ports {
		sw := v.Switches[id]
		for _, p := range ports {
			ref := PortRef{Node: fabric.NodeID(id), Port: p.Index}
			if c.Links.HasPort(ref) {
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
				sm.queues = append(sm.queues, q)
			}
		}
		if sw != nil {
			sm.switches = append(sm.switches, sw)
			sm.bufferKey = append(sm.bufferKey, sm.series.Key(reports.MetricBufferBytes, sw.Name))
		}
	}
	sm.lastTx = make([]int64, len(sm.links))
	for _, f := range flows {
		if c.Flows.HasFlow(f.ID) {
			sm.flows = append(sm.flows, f)
			sm.ccs = append(sm.ccs, f.CC)
			where := fmt.Sprintf("flow:%d", f.ID)
			key := func(metric string) reports.Key { return sm.series.Key(metric, where) }
			sm.flowKeys = append(sm.flowKeys, flowKeys{gbps: key(reports.MetricFlowGbps), rc: key(reports.MetricRCGbps),
				rt: key(reports.MetricRTGbps), alpha: key(reports.MetricAlpha), window: key(reports.MetricWindowBytes), ccti: key(reports.MetricCCTI), rtt: key(reports.MetricRTTUs)})
		}
	}
	sm.lastDelivd = make([]int64, len(sm.flows))
	return sm
}

// Peak is the largest switch egress queue the samples saw (nil when no
// switch queue is sampled, or none ever held a byte).
func (sm *Sampler) Peak() *reports.QueuePeak {
	if sm.peak.PeakBytes == 0 {
		return nil
	}
	p := sm.peak
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
// Interval, while the run has events to come.
func (sm *Sampler) Sample(now sim.Time) {
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
			b := q.sw.QueueBytes(q.port.Index, q.prio)
			ser.AddKey(q.queueKey, float64(b))
			if b > sm.peak.PeakBytes {
				sm.peak = reports.QueuePeak{PeakBytes: b, PeakQueue: q.where, PeakAtNs: now.Nanoseconds()}
			}
		}
		paused := q.port.PausedTime(q.prio)
		ser.AddKey(q.pausedKey, float64(paused-q.lastPaused)/float64(dt))
		q.lastPaused = paused
		if q.perTx {
			tx := q.sw.PortPrio(q.port.Index, q.prio).TxBytes
			ser.AddKey(q.txKey, float64(tx-q.lastTx)*8/sec/1e9)
			q.lastTx = tx
		}
	}
	for i, sw := range sm.switches {
		ser.AddKey(sm.bufferKey[i], float64(sw.BufferUsed()))
	}
	for i, f := range sm.flows {
		k := &sm.flowKeys[i]
		d := f.Receiver.DeliveredBytes()
		ser.AddKey(k.gbps, float64(d-sm.lastDelivd[i])*8/sec/1e9)
		sm.lastDelivd[i] = d
		if f.RTT != nil {
			if r := f.RTT.SRTT(); r > 0 {
				ser.AddKey(k.rtt, r.Seconds()*1e6)
			}
		}
		cc := sm.ccs[i]
		if cc == nil {
			continue
		}
		st := cc.State(now)
		if st.Rate > 0 {
			ser.AddKey(k.rc, st.Rate.Gbps())
		}
		if st.Target > 0 {
			ser.AddKey(k.rt, st.Target.Gbps())
		}
		if st.HasAlpha {
			ser.AddKey(k.alpha, st.Alpha)
		}
		if st.Window > 0 {
			ser.AddKey(k.window, float64(st.Window))
		}
		if st.HasCCTI {
			ser.AddKey(k.ccti, float64(st.CCTI))
		}
		if st.RTT > 0 && f.RTT == nil {
			ser.AddKey(k.rtt, st.RTT.Seconds()*1e6)
		}
	}
	if ser.End() {
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
