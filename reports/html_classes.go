package reports

import (
	"fmt"
	"html"
	"sort"
)

// classes is the table of per-class counters (Summary.Classes), one per
// run that has them, its columns the counters' ethtool -S names: what a
// network engineer reads off a ConnectX (ethtool -S) and a switch port.
func (pg *page) classes(runs []*Run) {
	for _, r := range runs {
		cs := r.Summary.Classes
		if len(cs) == 0 {
			continue
		}
		title := "Per-class counters (ethtool -S names)"
		if len(runs) > 1 {
			title += ": " + r.Label
		}
		pg.section(title, "per host as ethtool -S names them on a ConnectX: rx_prioN_bytes (what its switch port sent it in priority N), rx_prioN_pause (PFC frames that paused N), np_cnp_sent (CNPs sent as notification point), rp_cnp_handled (CNPs taken as reaction point); per switch port: tx_prioN_bytes and tx_prioN_pause (egress bytes and PAUSE frames sent, by priority)")
		seen := map[string]bool{}
		var cols []string
		for _, c := range cs {
			for k := range c.Counters {
				if !seen[k] {
					seen[k] = true
					cols = append(cols, k)
				}
			}
		}
		sort.Strings(cols)
		pg.b.WriteString("<div style=\"overflow-x:auto;max-width:100%\">\n<table>\n<tr><th>node</th><th>port</th>")
		for _, k := range cols {
			fmt.Fprintf(&pg.b, "<th>%s</th>", html.EscapeString(k))
		}
		pg.b.WriteString("</tr>\n")
		for _, c := range cs {
			fmt.Fprintf(&pg.b, "<tr><td>%s</td><td>%s</td>", html.EscapeString(c.Node), html.EscapeString(c.Port))
			for _, k := range cols {
				if v, ok := c.Counters[k]; ok {
					fmt.Fprintf(&pg.b, "<td>%d</td>", v)
				} else {
					pg.b.WriteString("<td></td>")
				}
			}
			pg.b.WriteString("</tr>\n")
		}
		pg.b.WriteString("</table>\n</div>\n")
	}
}
