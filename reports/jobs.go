package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Jobs (issue 49): summary.json's jobs, and trace.json, each job's
// phases per rank as a Chrome trace (the Trace Event Format's JSON
// object form: "traceEvents" of complete events, ph "X", with ts and
// dur in microseconds, and metadata events naming each process and
// thread), which ui.perfetto.dev and chrome://tracing open.

// JobSummary is one job's entry in summary.json's jobs.
type JobSummary struct {
	Name string `json:"name"`
	// Traffic is the job's index in the scenario's traffic:.
	Traffic    int `json:"traffic"`
	Ranks      int `json:"ranks"`
	Iterations int `json:"iterations"`
	// Completed is how many iterations every rank finished.
	Completed int `json:"completed_iterations"`
	// IterationNs is each completed iteration's time: from the end of
	// the previous iteration at its last rank (the job's start for the
	// first) to its end at its last rank; IterationNsMean their mean.
	IterationNs     []int64 `json:"iteration_ns"`
	IterationNsMean int64   `json:"iteration_ns_mean"`
	// ComputeNsMean is the time a rank computes in an iteration (the
	// union of its compute phases' intervals), averaged over ranks and
	// completed iterations.
	ComputeNsMean int64 `json:"compute_ns_mean"`
	// ExposedCommNsMean and ExposedCommNsMax are exposed communication:
	// a rank's iteration (from its previous iteration's end, or the
	// job's start, to its last phase's end) less the time it computes
	// in it, the time it waits on the network; the mean and the largest
	// over ranks and completed iterations. ExposedCommFraction is the
	// exposed time over the ranks' iteration time, summed over both.
	ExposedCommNsMean   int64   `json:"exposed_comm_ns_mean"`
	ExposedCommNsMax    int64   `json:"exposed_comm_ns_max"`
	ExposedCommFraction float64 `json:"exposed_comm_fraction"`
	// AloneIterationNsMean is IterationNsMean when the job runs alone on
	// the fabric (the same scenario with no other traffic), and Slowdown
	// IterationNsMean over it; given when the scenario runs several
	// jobs.
	AloneIterationNsMean int64   `json:"alone_iteration_ns_mean,omitempty"`
	Slowdown             float64 `json:"slowdown,omitempty"`
}

// Timeline is what trace.json holds: the jobs' names and ranks, and
// their phases' spans.
type Timeline struct {
	Jobs   []TimelineJob
	Events []Span
}

// TimelineJob is a job's name and its ranks' hosts; Lanes[r] is how
// many lanes rank r's spans take (spans that overlap go on lanes of
// their own, so that each lane's complete events never overlap).
type TimelineJob struct {
	Name  string
	Hosts []string
	Lanes []int
	// Cut: the report kept only the job's share of the spans it draws
	// (loadTimeline); not written.
	Cut bool
}

// Span is one phase of one rank in one iteration: Name, Cat (its kind:
// compute, collective, send, recv), from StartPs for DurPs
// (picoseconds), on lane Lane of rank Rank of job Job (indices);
// Iteration and Node name it; Bytes are a collective's, send's or
// receive's.
type Span struct {
	Job, Rank, Lane int
	Name, Cat       string
	StartPs, DurPs  int64
	Iteration       int
	Node            uint64
	Bytes           int64
}

// TraceTid is the thread id of rank r's lane l in a job of ranks ranks:
// the rank itself for its first lane.
func TraceTid(ranks, r, l int) int { return l*ranks + r }

// WriteTraceJSON writes t as trace.json: per job (pid job+1) a
// process_name, and per rank and lane (tid TraceTid) a thread_name and
// thread_sort_index, then every span as a complete event, ts and dur in
// µs of whole nanoseconds (at most three decimals): its start and end
// each rounded to the nearest ns, as Perfetto would read them.
func WriteTraceJSON(w io.Writer, t *Timeline) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"lfsim\"},\"traceEvents\":[\n")
	first := true
	sep := func() {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for j, job := range t.Jobs {
		sep()
		fmt.Fprintf(bw, `{"ph":"M","pid":%d,"tid":0,"name":"process_name","args":{"name":%s}}`, j+1, str("job "+job.Name))
		sep()
		fmt.Fprintf(bw, `{"ph":"M","pid":%d,"tid":0,"name":"process_sort_index","args":{"sort_index":%d}}`, j+1, j)
		lanes := 1
		for _, l := range job.Lanes {
			lanes = max(lanes, l)
		}
		for r, h := range job.Hosts {
			for l := range max(1, job.Lanes[r]) {
				name := fmt.Sprintf("rank %d (%s)", r, h)
				if l > 0 {
					name = fmt.Sprintf("rank %d (%s), overlap %d", r, h, l)
				}
				sep()
				fmt.Fprintf(bw, `{"ph":"M","pid":%d,"tid":%d,"name":"thread_name","args":{"name":%s}}`, j+1, TraceTid(len(job.Hosts), r, l), str(name))
				sep()
				fmt.Fprintf(bw, `{"ph":"M","pid":%d,"tid":%d,"name":"thread_sort_index","args":{"sort_index":%d}}`, j+1, TraceTid(len(job.Hosts), r, l), r*lanes+l)
			}
		}
	}
	for _, s := range t.Events {
		// Whole ns, the start and the end each rounded: Perfetto's
		// importer rounds ts and dur each to whole ns (llround), so
		// that a span's ps-exact ts and dur could end 1 ns after the
		// next span on its lane begins, misnested. Rounding the ends
		// alike keeps what touches touching and what nests nested.
		from, to := roundNs(s.StartPs), roundNs(s.StartPs+s.DurPs)
		sep()
		fmt.Fprintf(bw, `{"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s,"name":%s,"cat":%s,"args":{"iteration":%d,"node":%d`,
			s.Job+1, TraceTid(len(t.Jobs[s.Job].Hosts), s.Rank, s.Lane), micros(from*1000), micros((to-from)*1000), str(s.Name), str(s.Cat), s.Iteration, s.Node)
		if s.Bytes > 0 {
			fmt.Fprintf(bw, `,"bytes":%d`, s.Bytes)
		}
		bw.WriteString("}}")
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// roundNs is ps picoseconds in whole nanoseconds, half away from zero
// (as llround; ps >= 0).
func roundNs(ps int64) int64 { return (ps + 500) / 1000 }

// micros writes ps picoseconds as microseconds, with up to six decimals.
func micros(ps int64) string {
	s := strconv.FormatInt(ps/1e6, 10) + "." + fmt.Sprintf("%06d", ps%1e6)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}
