package reproduce

// pfcDeadlock: PFC's deadlock (Hu et al., HotNets 2016) and PAUSE storm
// (Guo et al., SIGCOMM 2016), the library's examples and their variants,
// as TestFaultExamples, TestCyclicDependencyIsNotDeadlock and
// TestWatchdogKeepsStormAtEdge run them.
var pfcDeadlock = Reproduction{
	Name:    "pfc-deadlock",
	Paper:   "Hu et al., HotNets 2016; Guo et al., SIGCOMM 2016",
	Figure:  "Hu et al.'s example (bounced routes in a 2-tier Clos deadlock at high load only; up*/down* never); Guo et al. section 4.3 (a NIC's PAUSE storm spreads; the watchdog confines it)",
	Setup:   "deadlock-clos-bounce at 4 MiB and 64 KiB flows and routed up*/down*; pfc-storm without and with the switches' PFC watchdog",
	RunTime: "under 1 s",
	Measure: measurePFC,
}

// measurePFC: 1 where the detector found a deadlock, else 0; a port's
// paused fraction of the run.
func measurePFC(runs Runs) (map[string]float64, error) {
	out := map[string]float64{}
	for _, p := range [][2]string{{"bounce high load", "deadlock-clos-bounce"}, {"bounce low load", "bounce-low"}, {"bounce up-down routing", "bounce-updown"}} {
		id, base := p[0], p[1]
		r, err := runs.Base(base)
		if err != nil {
			return nil, err
		}
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		out[id] = 0
		if s.Deadlock.Detected {
			out[id] = 1
		}
	}
	for _, c := range []struct{ id, base, port string }{
		{"storm spine port paused", "pfc-storm", "s2:p0"},
		{"storm victim NIC paused", "pfc-storm", "h5:p0"},
		{"watchdog spine port paused", "storm-watchdog", "s2:p0"},
	} {
		r, err := runs.Base(c.base)
		if err != nil {
			return nil, err
		}
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		out[c.id] = 0 // a port never paused is not in the spread
		for _, p := range s.PFC.Spread {
			if p.Port == c.port {
				out[c.id] = p.PausedFraction
			}
		}
	}
	return out, nil
}
