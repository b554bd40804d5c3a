package observe

import (
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// The sampler in a run cut into partitions (issue 50). A sample reads
// every observed port, queue, switch and flow: on one goroutine at the
// point, while every worker waited, it was the serial part of a cut run
// with the default observe (every queue, link and flow each 10 µs). Now
// each partition takes its share of a sample, the series of its own
// nodes and flows, into its own buffer, on its worker (View.Each), and
// the point merges the buffers into the series in the order one worker
// records a sample in: the links, then the queues, the switches and the
// flows, each by node and port (or flow) as NewSampler lists them. That
// order is cut into runs, a run being consecutive series of one kind and
// one partition; a part takes its runs in order, noting where each ends
// in its buffer, and the merge copies the runs in the sample's order
// (reports.Series.AddKeys). So timeseries.csv is the same bytes at any
// number of workers. What a part changes is its own buffer and the last
// values (bytes sent, paused time, bytes delivered) of its own series,
// whose models its partition owns; what it reads of a flow's other end
// no worker changes at a point.

// Kinds of a sampler's runs, in the order a sample records them.
const (
	runLinks uint8 = iota
	runQueues
	runSwitches
	runFlows
	runKinds
)

// sampleRun is consecutive series of one kind whose models one
// partition owns: the sampler's links, queues, switches or flows from
// index from to to, excluded.
type sampleRun struct {
	part     int32
	kind     uint8
	from, to int32
}

// samplerPart is one partition's share of the sampler: its runs, the
// keys and values it took at the last sample, where each run's end in
// them, and the largest switch egress queue it sampled.
type samplerPart struct {
	runs []sampleRun
	keys []reports.Key
	vals []float64
	ends []int
	// peak is the largest switch egress queue this part sampled, the
	// first of the largest in the sample's order; peakQueue is its index
	// in the sampler's queues, which orders parts' peaks of the same
	// time.
	peak      reports.QueuePeak
	peakQueue int
	// Samples counts the samples this part took (the tests).
	samples int
}

// peakBefore reports whether p's peak is the one a single sampler would
// have kept over q's: a larger one, or one as large taken earlier, or
// in the same sample earlier in the order.
func (p *samplerPart) peakBefore(q *samplerPart) bool {
	a, b := &p.peak, &q.peak
	if a.PeakBytes != b.PeakBytes {
		return a.PeakBytes > b.PeakBytes
	}
	if a.PeakAtNs != b.PeakAtNs {
		return a.PeakAtNs < b.PeakAtNs
	}
	return p.peakQueue < q.peakQueue
}

// runBuilder cuts each kind's series into runs as NewSampler lists them.
type runBuilder struct{ byKind [runKinds][]sampleRun }

// add notes that series i of kind belongs to partition part; series come
// in order of index within each kind.
func (b *runBuilder) add(kind uint8, part, i int) {
	rs := b.byKind[kind]
	if n := len(rs); n > 0 && rs[n-1].part == int32(part) && rs[n-1].to == int32(i) {
		rs[n-1].to++
		return
	}
	b.byKind[kind] = append(rs, sampleRun{part: int32(part), kind: kind, from: int32(i), to: int32(i) + 1})
}

// runs are every run, in the order a sample records them.
func (b *runBuilder) runs() []sampleRun {
	var all []sampleRun
	for _, rs := range b.byKind {
		all = append(all, rs...)
	}
	return all
}

// takePart is partition i's share of the sample being taken (Sample).
func (sm *Sampler) takePart(i int) { sm.take(&sm.parts[i], sm.now, sm.dt) }

// take is part p's share of the sample of now, dt after the last, into
// its buffer: the values of its runs, in order.
func (sm *Sampler) take(p *samplerPart, now, dt sim.Time) {
	p.keys, p.vals, p.ends = p.keys[:0], p.vals[:0], p.ends[:0]
	for _, r := range p.runs {
		switch r.kind {
		case runLinks:
			sm.takeLinks(p, r, dt)
		case runQueues:
			sm.takeQueues(p, r, now, dt)
		case runSwitches:
			for i := r.from; i < r.to; i++ {
				p.add(sm.bufferKey[i], float64(sm.switches[i].BufferUsed()))
			}
		case runFlows:
			sm.takeFlows(p, r, now, dt)
		}
		p.ends = append(p.ends, len(p.vals))
	}
	p.samples++
}

func (p *samplerPart) add(k reports.Key, v float64) {
	p.keys = append(p.keys, k)
	p.vals = append(p.vals, v)
}

// takeLinks takes tx_gbps of r's ports.
func (sm *Sampler) takeLinks(p *samplerPart, r sampleRun, dt sim.Time) {
	sec := dt.Seconds()
	for i := r.from; i < r.to; i++ {
		tx := sm.links[i].Stats.TxBytes
		p.add(sm.txKey[i], float64(tx-sm.lastTx[i])*8/sec/1e9)
		sm.lastTx[i] = tx
	}
}

// takeQueues takes queue_bytes (a switch's), paused (or credit_wait) and
// a QoS switch's tx_gbps per priority of r's queues.
func (sm *Sampler) takeQueues(p *samplerPart, r sampleRun, now, dt sim.Time) {
	sec := dt.Seconds()
	for i := r.from; i < r.to; i++ {
		q := &sm.queues[i]
		if q.sw != nil {
			b := q.sw.QueueBytes(q.port.Index, q.prio)
			p.add(q.queueKey, float64(b))
			if b > p.peak.PeakBytes {
				p.peak = reports.QueuePeak{PeakBytes: b, PeakQueue: q.where, PeakAtNs: now.Nanoseconds()}
				p.peakQueue = int(i)
			}
		}
		paused := q.port.PausedTime(q.prio)
		p.add(q.pausedKey, float64(paused-q.lastPaused)/float64(dt))
		q.lastPaused = paused
		if q.perTx {
			tx := q.sw.PortPrio(q.port.Index, q.prio).TxBytes
			p.add(q.txKey, float64(tx-q.lastTx)*8/sec/1e9)
			q.lastTx = tx
		}
	}
}

// takeFlows takes flow_gbps, rtt_us and the congestion control's state
// of r's flows.
func (sm *Sampler) takeFlows(p *samplerPart, r sampleRun, now, dt sim.Time) {
	sec := dt.Seconds()
	for i := r.from; i < r.to; i++ {
		f := &sm.flows[i]
		k := &sm.flowKeys[i]
		d := f.Receiver.DeliveredBytes()
		p.add(k.gbps, float64(d-sm.lastDelivd[i])*8/sec/1e9)
		sm.lastDelivd[i] = d
		if f.RTT != nil {
			if r := f.RTT.SRTT(); r > 0 {
				p.add(k.rtt, r.Seconds()*1e6)
			}
		}
		cc := sm.ccs[i]
		if cc == nil {
			continue
		}
		st := cc.State(now)
		if st.Rate > 0 {
			p.add(k.rc, st.Rate.Gbps())
		}
		if st.Target > 0 {
			p.add(k.rt, st.Target.Gbps())
		}
		if st.HasAlpha {
			p.add(k.alpha, st.Alpha)
		}
		if st.Window > 0 {
			p.add(k.window, float64(st.Window))
		}
		if st.HasCCTI {
			p.add(k.ccti, float64(st.CCTI))
		}
		if st.RTT > 0 && f.RTT == nil {
			p.add(k.rtt, st.RTT.Seconds()*1e6)
		}
	}
}

// merge records the parts' shares as the sample of now, run by run in
// the sample's order, and reports whether the series decimated.
func (sm *Sampler) merge(now sim.Time) bool {
	ser := sm.series
	ser.Begin(now.Nanoseconds())
	clear(sm.cursor)
	for _, r := range sm.runs {
		p := &sm.parts[r.part]
		j := sm.cursor[r.part]
		sm.cursor[r.part]++
		from := 0
		if j > 0 {
			from = p.ends[j-1]
		}
		to := p.ends[j]
		ser.AddKeys(p.keys[from:to], p.vals[from:to])
	}
	return ser.End()
}
