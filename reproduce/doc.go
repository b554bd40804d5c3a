// Package reproduce holds lfsim's reproductions: published results of
// the field (a paper's figure, table or closed form) as runs that check
// themselves. A reproduction is data and one file: its folder in the
// scenario library (scenarios/reproduce/NAME/: sweep.yaml, the runs;
// published.yaml, the published points with their source, how each was
// read and its tolerance, and why; its own scenarios), and a file here
// with its row (Reproduction: the paper, the figure, the setup, the
// expected run time, and Measure, which reads lfsim's value of each
// published point from the runs' files), listed in register.go.
//
// Run runs a reproduction's sweep with the sweep package's machinery
// (each point a run folder as lfsim run writes it), measures, and judges
// every point against its published value and tolerance; it writes
// points.csv and report.html, whose charts overlay the published points
// on lfsim's. `lfsim reproduce` is the command; docs/REPRODUCE.md lists
// the reproductions and their verdicts.
//
// It imports sweep (which runs the points), reports (the report's page),
// scenarios (the data) and scenario (YAML positions); nothing imports it
// but the command.
package reproduce
