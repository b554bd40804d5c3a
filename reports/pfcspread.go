package reports

import "sort"

// pfcSpread is what the PFC spread chart draws of pfc.csv (page.spread):
// the ports that sent a PAUSE, in order of their first, the first
// maxSpreadPorts of them shown, and every step-th PAUSE of the shown
// ports, at most about maxSpreadDots. LoadRun makes it while it reads
// pfc.csv, in two passes over the file, so a report holds the chart's
// points and a few numbers a port, not every frame of the run (32 bytes
// a frame: a 50 ms run of hpcc-320 sends about 100,000).
type pfcSpread struct {
	order []string // the shown ports, by first PAUSE
	first []int64  // each shown port's first PAUSE, ns
	ports int      // the ports that sent a PAUSE
	total int      // the PAUSE frames of the shown ports
	step  int      // one dot every step of those
	dots  []pfcDot
}

// pfcDot is one PAUSE drawn: when, and its port's row (in order).
type pfcDot struct {
	timeNs int64
	row    int
}

// maxSpreadDots is how many PAUSE frames the spread draws at most, about.
const maxSpreadDots = 4000

// spreadOf makes a pfcSpread from pfc.csv's rows, which each gives in
// the file's order, once a pass (it is called twice); nil when no port
// sent a PAUSE. An error of each ends it.
func spreadOf(each func(yield func(PFCRow) bool) error) (*pfcSpread, error) {
	first := map[string]int64{}
	count := map[string]int{}
	var order []string
	err := each(func(p PFCRow) bool {
		if p.Quanta == 0 {
			return true
		}
		if _, ok := first[p.Port]; !ok {
			first[p.Port] = p.TimeNs
			order = append(order, p.Port)
		}
		count[p.Port]++
		return true
	})
	if err != nil || len(order) == 0 {
		return nil, err
	}
	sort.SliceStable(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	s := &pfcSpread{ports: len(order)}
	s.order = order[:min(len(order), maxSpreadPorts)]
	row := make(map[string]int, len(s.order))
	for i, p := range s.order {
		row[p] = i
		s.first = append(s.first, first[p])
		s.total += count[p]
	}
	s.step = max(1, s.total/maxSpreadDots)
	k := 0
	err = each(func(p PFCRow) bool {
		i, ok := row[p.Port]
		if !ok || p.Quanta == 0 {
			return true
		}
		if k%s.step == 0 {
			s.dots = append(s.dots, pfcDot{p.TimeNs, i})
		}
		k++
		return true
	})
	return s, err
}

// rowsOf gives rows to spreadOf.
func rowsOf(rows []PFCRow) func(yield func(PFCRow) bool) error {
	return func(yield func(PFCRow) bool) error {
		for _, p := range rows {
			if !yield(p) {
				break
			}
		}
		return nil
	}
}
