package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportSpeaksTheFabric: report.html's rows, captions and charts
// follow the fabric (issue 51: an InfiniBand report showed "PFC pause /
// resume frames 0/0", "ECN marked / CNPs", a credit-wait heat map
// captioned "paused by PFC", a shared-buffer chart, a grey topology
// though links waited for credit, "0ns / 0ns" and "fairness 0.000" with
// no flow completed, and an uplink chart of one dot). The InfiniBand
// example ib-cc-victim (IB congestion control; no flow completes in its
// 3 ms) against the Ethernet incast-8to1 and RoCEv1's; the same page
// when `lfsim report DIR` rebuilds it, from the run's scenario.yaml or,
// without it, from the run's files.
func TestReportSpeaksTheFabric(t *testing.T) {
	heat := regexp.MustCompile(`"lineStyle":\{"color":"#[0-9a-f]{4}20"`) // heatColor's
	for _, c := range []struct {
		example  string
		edit     func(string) string
		want     []string
		not      []string
		coloured bool
	}{
		{"ib-cc-victim", nil, []string{
			"<tr><td>credit flow-control packets</td><td>10949</td></tr>",
			"<tr><td>waited for credit in total</td><td>1.04ms</td></tr>",
			"<tr><td>FECN marked / BECNs</td><td>3416 / 862</td></tr>",
			"<tr><td>CCT index, highest</td>",
			"<tr><td>FCT p50 / p99</td><td>n/a (no flow completed)</td></tr>",
			"<tr><td>fairness (Jain)</td><td>n/a (no flow completed)</td></tr>",
			"<h2>Credit wait heat map</h2>", "waited for credit: its peer&#39;s input buffer",
			"<tr><td>uplink imbalance (busiest / mean)</td><td>1.00 (1 uplink)</td></tr>",
		}, []string{"PFC pause / resume", "paused by PFC", "<td>ECN marked", "<h2>Shared buffer use</h2>", "<h2>PFC pause heat map</h2>",
			"<h2>Uplink load</h2>", "0ns / 0ns", "0.000</td>"}, true},
		{"incast-8to1", nil, []string{
			"<tr><td>PFC pause / resume frames</td><td>400 / 400</td></tr>",
			"<tr><td>paused by PFC in total</td><td>18.84ms</td></tr>",
			"<tr><td>ECN marked / CNPs</td><td>0 / 0</td></tr>",
			"<tr><td>fairness (Jain)</td><td>1.000</td></tr>",
			"<h2>Shared buffer use</h2>", "<h2>PFC pause heat map</h2>", "paused by PFC from its peer",
		}, []string{"credit", "FECN", "n/a ("}, true},
		{"incast-8to1", func(s string) string { return strings.Replace(s, "hca:\n", "hca:\n  transport: rocev1\n", 1) },
			// RoCEv1 has no IP header to mark: told by the transport's
			// row (kind.Transport.IP), which the files alone do not say.
			[]string{"<tr><td>PFC pause / resume frames</td>"}, []string{"<td>ECN marked", "credit"}, true},
	} {
		dir := t.TempDir()
		arg := c.example
		if c.edit != nil {
			src := readFile(t, filepath.Join("..", "..", "scenarios", "examples", c.example+".yaml"))
			arg = filepath.Join(dir, "edited.yaml")
			if err := writeFile(arg, c.edit(src)); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "out")
		if code, stdout, stderr := lfsim(t, "run", arg, "-q", "-o", out); code != exitOK && code != exitFailed {
			t.Fatalf("%s: exit %d\n%s%s", arg, code, stdout, stderr)
		}
		check := func(how string) {
			page := readFile(t, filepath.Join(out, "report.html"))
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("%s, %s: report.html lacks %q", arg, how, w)
				}
			}
			for _, n := range c.not {
				if how == "rebuilt from the files alone" && c.edit != nil && n == "<td>ECN marked" {
					continue
				}
				if strings.Contains(page, n) {
					t.Errorf("%s, %s: report.html has %q", arg, how, n)
				}
			}
			if c.coloured && !heat.MatchString(page) {
				t.Errorf("%s, %s: no link of the topology coloured by its waits", arg, how)
			}
		}
		check("as run")
		if code, _, stderr := lfsim(t, "report", out); code != exitOK {
			t.Fatalf("lfsim report: exit %d: %s", code, stderr)
		}
		check("rebuilt by lfsim report")
		if err := os.Remove(filepath.Join(out, "scenario.yaml")); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := lfsim(t, "report", out); code != exitOK {
			t.Fatalf("lfsim report: exit %d: %s", code, stderr)
		}
		check("rebuilt from the files alone")
	}
}
