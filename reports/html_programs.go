package reports

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// maxProgramText is how much of perftest.txt the report shows: 64 KiB,
// a few hundred programs' results; past it the page says where the rest is.
const maxProgramText = 64 << 10

// loadPrograms reads the start of a run's perftest.txt (the programs'
// output, as the tools print it), and whether there was more.
func loadPrograms(path string) (text string, cut bool, err error) {
	f, ok, err := openRunFile(path)
	if !ok {
		return "", false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProgramText+1))
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxProgramText {
		data = data[:maxProgramText]
		if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
			data = data[:i+1]
		}
		cut = true
	}
	return string(data), cut, nil
}

// clientUsecPerIter is the usec/iter each pingpong's client printed
// (ibv_*_pingpong's last line under "# NAME (client):" in perftest.txt),
// in the order of the programs; none for other programs.
func clientUsecPerIter(text string) []string {
	var out []string
	client := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# ") {
			client = strings.HasSuffix(line, "(client):")
			continue
		}
		if _, rest, ok := strings.Cut(line, " = "); ok && client && strings.HasSuffix(rest, " usec/iter") {
			out = append(out, rest)
		}
	}
	return out
}

// programs writes the programs' output (perftest.txt) of the runs that
// ran programs (perftest, the pingpongs, rping, rdma_server/client,
// mckey), whose results are neither flows nor in their charts.
func (pg *page) programs(runs []*Run) {
	var with []*Run
	for _, r := range runs {
		if r.Programs != "" {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return
	}
	pg.section("Programs (perftest.txt)", "what each program printed, as the tool prints it")
	for _, r := range with {
		if len(runs) > 1 {
			fmt.Fprintf(&pg.b, "<h3>%s</h3>\n", html.EscapeString(r.Label))
		}
		fmt.Fprintf(&pg.b, "<pre>%s</pre>\n", html.EscapeString(r.Programs))
		if r.ProgramsCut {
			fmt.Fprintf(&pg.b, "<p class=\"note\">the first %d KiB; perftest.txt in the run's folder has the rest</p>\n", maxProgramText>>10)
		}
	}
}

// loadProgramsInto reads a run's perftest.txt into r.
func (r *Run) loadProgramsInto(path string) error {
	text, cut, err := loadPrograms(path)
	r.Programs, r.ProgramsCut = text, cut
	return err
}
