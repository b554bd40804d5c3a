package congestion

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/internal/docstable"
	"github.com/lfsim/lfsim/kind"
)

// docsTable is the table of congestion controls docs/SCENARIO.md holds
// between its markers, written from the registered rows: every control,
// the key that picks it, its link layers, what it needs of the rest and
// its parameters with their defaults.
func docsTable() string {
	var b strings.Builder
	b.WriteString("| name | chosen by | link layers | reacts to | needs | parameters (default) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, row := range kind.CCs() {
		ctl, _ := Lookup(row.Name)
		var by, links, needs, params []string
		if row.RDMA {
			by = append(by, "`hca.cc`")
		}
		if row.TCP {
			by = append(by, "`hca.tcp.cc`")
		}
		if row.Ethernet {
			links = append(links, "Ethernet")
		}
		if row.InfiniBand {
			links = append(links, "InfiniBand")
		}
		if row.ECN {
			n := "ECN marks (switches mark unless `switch.ecn: off`"
			if m := row.Marking; m != nil {
				n += fmt.Sprintf("; without `switch.ecn`, kmin %v, kmax %v, pmax %v", m.Kmin, m.Kmax, m.Pmax)
				if m.AtEnqueue {
					n += ", at enqueue"
				}
			}
			if !row.Ethernet {
				n = "FECN marks (`switch.ib.fecn`"
			}
			needs = append(needs, n+")")
		}
		if row.INT {
			needs = append(needs, "INT on RoCEv2's UDP packets")
		}
		if row.AckEvery {
			needs = append(needs, "an ACK per packet")
		}
		if row.EchoECN {
			needs = append(needs, "marks echoed in ACKs, no CNPs")
		}
		if row.ControlsReads {
			needs = append(needs, "controls READs")
		}
		defaults := ctl.Defaults("")
		for _, p := range row.Params {
			s := "`" + p.Key + "`"
			switch v := p.Value(defaults); {
			case p.Todo != "":
				s += " not modelled"
			case p.Preset:
				s += " " + strings.Join(p.Enum, "/")
			case v != nil && p.Zero != "" && fmt.Sprint(v) == fmt.Sprint(reflect.Zero(reflect.TypeOf(v))):
				s += " " + p.Zero
			case v != nil:
				s += " " + docValue(v)
			}
			params = append(params, s)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", row.Name, strings.Join(by, ", "), strings.Join(links, ", "),
			row.Basis, orNone(strings.Join(needs, "; ")), orNone(strings.Join(params, ", ")))
	}
	return b.String()
}

func docValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// The markers around the table in docs/SCENARIO.md.
const (
	docsBegin = "<!-- congestion controls: written by congestion's TestDocsTable from the registered controls; LFSIM_UPDATE_DOCS=1 go test ./congestion -run TestDocsTable rewrites it -->\n"
	docsEnd   = "<!-- end of congestion controls -->\n"
)

// TestDocsTable: docs/SCENARIO.md lists every registered congestion
// control, with its parameters and their defaults, as docsTable writes
// them (LFSIM_UPDATE_DOCS=1 rewrites the docs' table).
func TestDocsTable(t *testing.T) {
	const path = "../docs/SCENARIO.md"
	doc := docstable.Check(t, path, docsBegin, docsEnd, docsTable(), "table of congestion controls", "LFSIM_UPDATE_DOCS=1 go test ./congestion -run TestDocsTable")
	for _, row := range kind.CCs() {
		if !strings.Contains(doc, "`"+row.Name+"`") {
			t.Errorf("%s does not name %s", path, row.Name)
		}
	}
}
