package reports

import (
	"strconv"
	"strings"
)

// UplinkRow is one row of uplinks.csv: an uplink (a switch's port toward
// a switch nearer the roots of the up*/down* order, summary.json's
// uplinks), its peer port, and the bytes it sent over the run.
type UplinkRow struct {
	Port  string // node:pN
	Peer  string // node:pN
	Bytes int64
}

// uplinksHeader is uplinks.csv's header.
var uplinksHeader = []string{"port", "peer", "bytes"}

// UplinksCSV renders uplinks.csv, rows in the order given (the
// topology's: node, then port).
func UplinksCSV(rows []UplinkRow) []byte {
	var b strings.Builder
	b.WriteString(strings.Join(uplinksHeader, ",") + "\n")
	for _, r := range rows {
		b.WriteString(r.Port)
		b.WriteByte(',')
		b.WriteString(r.Peer)
		b.WriteByte(',')
		b.WriteString(strconv.FormatInt(r.Bytes, 10))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// loadUplinks reads uplinks.csv (absent: none).
func (r *Run) loadUplinks(path string) error {
	return eachCSV(path, [][]string{uplinksHeader}, func(_, rec []string) error {
		var p fieldParser
		n := p.count(rec, 2, uplinksHeader, false)
		if p.err != nil {
			return p.err
		}
		r.Uplinks = append(r.Uplinks, UplinkRow{Port: strings.Clone(rec[0]), Peer: strings.Clone(rec[1]), Bytes: n})
		return nil
	})
}
