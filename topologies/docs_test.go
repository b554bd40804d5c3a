package topologies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/internal/docstable"
	"github.com/lfsim/lfsim/kind"
)

// docsTable is the table of topology generators docs/SCENARIO.md holds
// between its markers, written from the registered rows: each kind with
// the keys that size it, its keys with their bounds and defaults, the
// switches it names and how their ports are numbered.
func docsTable() string {
	var b strings.Builder
	b.WriteString("| kind | keys (default) | switches | ports |\n| --- | --- | --- | --- |\n")
	for _, row := range kind.Topologies() {
		name := "`" + row.Name + "`"
		if row.Sized != "" {
			name += " (" + row.Sized + ")"
		}
		defaults := row.Defaults()
		var keys []string
		for _, p := range row.Params {
			k := "`" + p.Key + "`"
			if p.Min != "" {
				k += " ≥ " + p.Min
			}
			if p.Max != "" {
				k += " ≤ " + p.Max
			}
			switch {
			case p.Required:
				k += " (required)"
			case p.Type == kind.TypeLink && p.Base != "":
				k += " (`" + p.Base + "`'s)"
			case p.Type == kind.TypeLink:
				l := kind.DefaultLink
				if own, _ := p.Value(defaults).(fabric.LinkSpec); own != (fabric.LinkSpec{}) {
					l = own
				}
				k += fmt.Sprintf(" (%v, %v)", l.Rate, l.Delay)
			default:
				k += fmt.Sprintf(" (%v)", p.Value(defaults))
			}
			keys = append(keys, k)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, strings.Join(keys, ", "), row.Switches, row.Ports)
	}
	return b.String()
}

// The markers around the table in docs/SCENARIO.md.
const (
	docsBegin = "<!-- topology generators: written by topologies' TestDocsTable from the registered generators; LFSIM_UPDATE_DOCS=1 go test ./topologies -run TestDocsTable rewrites it -->\n"
	docsEnd   = "<!-- end of topology generators -->\n"
)

// TestDocsTable: docs/SCENARIO.md lists every registered topology
// generator, with its keys and their defaults and the names it gives,
// as docsTable writes them (LFSIM_UPDATE_DOCS=1 rewrites the docs'
// table).
func TestDocsTable(t *testing.T) {
	docstable.Check(t, "../docs/SCENARIO.md", docsBegin, docsEnd, docsTable(), "table of topology generators", "LFSIM_UPDATE_DOCS=1 go test ./topologies -run TestDocsTable")
}
