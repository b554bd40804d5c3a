package metamorphic

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
)

// The relabelling relation: the same scenario with its traffic, faults
// and observers moved to other hosts gives outputs that map onto each
// other, name for name.
//
// Moving a scenario to other hosts changes more than names: a host's
// node number gives its addresses (MAC, IP, LID), and so the ECMP hash
// of its flows; its ports' numbers order the frames that arrive at one
// time (SCENARIO.md, "When observers look": by the sending port's
// number); and some random streams are named by hosts (a poisson
// source's, traffic/poisson/<i>/<host>; a lossy link's,
// fault/loss/<a>-<b>). What does not change: QP numbers (each HCA counts
// its own, in the order of the traffic), the switches and their streams
// (named by switch), and the topology. So the relation is exact where
//
//   - the hosts move within a star, or within each side of a dumbbell:
//     one path between any two hosts, so no hash chooses a path (and on
//     InfiniBand every routing engine has the one tree), and every
//     switch keeps its node number; a star of VPI hosts (DualStar) too,
//     every host linked to s0 and then, in the same order, to s1 on the
//     other link layer, so that s1's port pI faces hI/2 and a host's
//     port 2 (its own node, numbered in link order) keeps its order
//     among the used hosts' under an increasing map;
//   - the map is increasing on the hosts the scenario uses: then the
//     frames that arrive at a switch at one time come in the same order
//     (idle hosts send nothing; the switches' ports toward hosts are
//     numbered in host order);
//   - the scenario has no poisson generator and no lossy link (streams
//     named by hosts);
//   - no switch floods (a missing-entry fault with flood_lossless on,
//     or a link cut that leaves a switch without a route; the second is
//     found in the run, by summary.json's packets.flooded):
//     a flood copies a packet to every port, those toward idle hosts too,
//     whose order among the used hosts' the map does not keep. Seed 65785
//     showed it: a dumbbell's ring all-reduce on h0..h5 with s0's entry
//     for h1 gone, moved to h1..h6 or to h4..h9, gives the same files but
//     one event more in the second (438 and 439); without the flood, 352
//     both.
//
// relabel restricts itself to those scenarios (the others are counted,
// not relabelled). To have room to move hosts, it may first give the
// topology up to four more hosts, after the others (idle, and with the
// highest port numbers): A is the scenario so widened (the scenario
// itself when not), B is A moved. What A's outputs say of host h, B's
// say of π(h), and of the port facing h, the port facing π(h):
// flows.csv, summary.json, perftest.txt, pfc.csv, timeseries.csv and
// the rest are equal once A's names are mapped, the rows of a CSV sorted
// (rows of the same time may come in another order) and the places in
// the file that warnings name left out (the names in the file change
// length); topology.json
// and lfts.txt are equal as they are (the topology does not move); a
// capture's frames carry the hosts' addresses, so a pcap is compared by
// its records' times and lengths.

// flooded says whether a run's summary counts flooded packets. Seed
// 7004498 found the case relabelReason cannot see: a dumbbell's middle
// link cut, so that s0 floods what was bound for the other side.
func flooded(files map[string][]byte) bool {
	var sum struct {
		Packets struct {
			Flooded int64 `json:"flooded"`
		} `json:"packets"`
	}
	return json.Unmarshal(files["summary.json"], &sum) == nil && sum.Packets.Flooded > 0
}

// relabelReason says why s is not relabelled, or "" when it is.
func relabelReason(s *Spec) string {
	switch {
	case s.Topo.Kind != "star" && s.Topo.Kind != "dumbbell":
		return "topology " + s.Topo.Kind
	case s.has("poisson"):
		return "poisson (streams named by hosts)"
	case s.uetSpray() == "oblivious" || s.uetSpray() == "reps":
		// Each QP's entropy values, and so which of its packets the
		// receiver acknowledges apart, are drawn from a stream named by
		// its host (assembly's attachCC).
		return "uet's spray (streams named by hosts)"
	}
	for _, f := range s.Faults {
		switch {
		case f.Action == "loss":
			return "a lossy link (streams named by hosts)"
		case f.Action == "missing-entry" && get(s.Switch, "flood_lossless") != "false":
			return "a flood (to idle hosts too)"
		}
	}
	return ""
}

// Relabelled is what the relation ran: A, B, and the map from A's hosts
// to B's.
type Relabelled struct {
	A, B *Spec
	Map  []int // Map[h] is h's host in B
}

// Relabel makes the relation's pair for s, drawing the widening and the
// map from r.
func Relabel(s *Spec, r *rand.Rand) *Relabelled {
	t := s.Topo
	// Widen: more hosts after each side's (a star has one side).
	sides := [][2]int{{0, t.NumHosts()}} // [first, count] of each side
	if t.Kind == "dumbbell" {
		sides = [][2]int{{0, t.Left}, {t.Left, t.Right}}
	}
	widen := make([]int, len(sides))
	for i := range widen {
		if r.IntN(2) == 0 {
			widen[i] = 1 + r.IntN(4)
		}
	}
	a := s.Clone()
	// old host -> A's host
	toA := make([]int, t.NumHosts())
	shift := 0
	for i, sd := range sides {
		for h := sd[0]; h < sd[0]+sd[1]; h++ {
			toA[h] = h + shift
		}
		shift += widen[i]
	}
	if t.Kind == "star" {
		a.Topo.Hosts += widen[0]
	} else {
		a.Topo.Left += widen[0]
		a.Topo.Right += widen[1]
	}
	a.moveHosts(toA, t, true)
	// The map: on each side, the hosts used go in increasing order to as
	// many drawn from the side's; the others, in order, to the rest.
	used := a.usedHosts()
	m := make([]int, a.Topo.NumHosts())
	first := 0
	for i, sd := range sides {
		n := sd[1] + widen[i]
		var in, out []int
		for h := first; h < first+n; h++ {
			if used[h] {
				in = append(in, h)
			} else {
				out = append(out, h)
			}
		}
		pool := seq(n)
		r.Shuffle(n, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		to := pool[:len(in)]
		rest := pool[len(in):]
		slices.Sort(to)
		slices.Sort(rest)
		for k, h := range in {
			m[h] = first + to[k]
		}
		for k, h := range out {
			m[h] = first + rest[k]
		}
		first += n
	}
	b := a.Clone()
	b.moveHosts(m, a.Topo, false)
	return &Relabelled{A: a, B: b, Map: m}
}

// usedHosts are the hosts the scenario names anywhere.
func (s *Spec) usedHosts() []bool {
	used := make([]bool, s.Topo.NumHosts())
	mark := func(h int) {
		if h >= 0 {
			used[h] = true
		}
	}
	for _, it := range s.Traffic {
		mark(it.From)
		mark(it.To)
		for _, h := range it.Hosts {
			mark(h)
		}
	}
	for _, f := range s.Faults {
		mark(f.Host)
		for _, n := range f.Link {
			if n.Switch == "" {
				mark(n.Host)
			}
		}
	}
	for _, h := range s.PcapHosts {
		mark(h)
	}
	for _, h := range s.PcapPort2 {
		mark(h)
	}
	if s.IB {
		mark(s.smHost())
	}
	return used
}

// smHost is the host the subnet manager runs on (InfiniBand): its SA
// answers rdma_cm's path queries.
func (s *Spec) smHost() int {
	if v, ok := Get(s.SM, "host"); ok {
		return hostIndex(v)
	}
	return 0 // the first host
}

func hostIndex(name string) int {
	var h int
	if _, err := fmt.Sscanf(name, "h%d", &h); err != nil {
		panic("metamorphic: not a host: " + name)
	}
	return h
}

// portRe is a port as the generator writes it in observe: (s0:pN).
var portRe = regexp.MustCompile(`s(\d+):p(\d+)`)

// moveHosts moves everything that names a host h to m[h]: the traffic,
// faults, observers and the subnet manager's host; old is the topology
// before (when A widens it). With expand, an item's all becomes the list
// of old's hosts it meant (all in the widened topology would name the new
// hosts too).
func (s *Spec) moveHosts(m []int, old Topo, expand bool) {
	mv := func(h *int) {
		if *h >= 0 {
			*h = m[*h]
		}
	}
	if s.IB {
		s.SM = Set(s.SM, "host", Host(m[s.smHost()]))
	}
	for i := range s.Traffic {
		it := &s.Traffic[i]
		if it.All && expand {
			it.All, it.Hosts = false, nil
			for h := range old.NumHosts() {
				if h != it.To || collectiveKind(it.Kind) { // incast's and poisson's to: is not among the others; a collective's root is
					it.Hosts = append(it.Hosts, h)
				}
			}
		}
		mv(&it.From)
		mv(&it.To)
		for k := range it.Hosts {
			mv(&it.Hosts[k])
		}
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		mv(&f.Host)
		for k := range f.Link {
			if f.Link[k].Switch == "" {
				mv(&f.Link[k].Host)
			}
		}
	}
	for k := range s.PcapHosts {
		mv(&s.PcapHosts[k])
	}
	for k := range s.PcapPort2 {
		mv(&s.PcapPort2[k])
	}
	// A port toward a host moves with it; a dumbbell's bottleneck port
	// comes after its side's hosts.
	port := func(v string) string {
		return portRe.ReplaceAllStringFunc(v, func(p string) string {
			var sw, n int
			fmt.Sscanf(p, "s%d:p%d", &sw, &n)
			first, count, newCount := 0, old.NumHosts(), s.Topo.NumHosts()
			if old.Kind == "dumbbell" {
				first, count, newCount = 0, old.Left, s.Topo.Left
				if sw == 1 {
					first, count, newCount = old.Left, old.Right, s.Topo.Right
				}
			}
			if n >= count {
				return fmt.Sprintf("s%d:p%d", sw, n-count+newCount)
			}
			newFirst := 0
			if sw == 1 {
				newFirst = s.Topo.Left
			}
			return fmt.Sprintf("s%d:p%d", sw, m[first+n]-newFirst)
		})
	}
	for k := range s.Observe {
		s.Observe[k].V = port(s.Observe[k].V)
	}
	for k := range s.PcapPorts {
		s.PcapPorts[k] = port(s.PcapPorts[k])
	}
}

// relabelRand is the stream a scenario's relabelling draws from.
func relabelRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x72656c)) }

// relabel runs the relation on s; base is s's run on one worker.
func (c *Checker) relabel(s *Spec, base Outcome) *Failure {
	if relabelReason(s) != "" {
		return nil
	}
	rel := Relabel(s, relabelRand(s.Seed))
	name := fmt.Sprintf("meta-%d", s.Seed)
	srcA, srcB := rel.A.Render(name), rel.B.Render(name)
	a := base
	if srcA != s.Render(name) {
		a = c.Runner.Run(srcA, 1)
	}
	b := c.Runner.Run(srcB, 1)
	for _, o := range []struct {
		out Outcome
		src string
	}{{a, srcA}, {b, srcB}} {
		switch {
		case o.out.Panic != "":
			return &Failure{Check: CheckPanic, Detail: "relabelled: " + o.out.Panic, A: o.src}
		case o.out.Refused != nil:
			return &Failure{Check: CheckValid, Detail: "relabelled: " + o.out.Refused.Error(), A: o.src}
		}
	}
	if flooded(a.Files) || flooded(b.Files) {
		// A switch without a route floods (a link cut from the rest of
		// the fabric, as missing entries do): not exact, as above.
		c.FloodedNotRelabelled++
		return nil
	}
	c.Relabelled++
	names := rel.names()
	want := mapFiles(a.Files, names)
	got := mapFiles(b.Files, nil)
	if d := diffFiles(got, want, nil); d != "" {
		return &Failure{Check: CheckRelabel, Detail: d, A: srcA, B: srcB, Names: names,
			Relation: "b is a with its hosts moved: " + rel.describe() + "; a's outputs with the names mapped are b's"}
	}
	return nil
}

// names maps A's host and port names to B's.
func (r *Relabelled) names() map[string]string {
	out := map[string]string{}
	t := &r.A.Topo
	for h, to := range r.Map {
		out[Host(h)] = Host(to)
		sw, port, tsw, tport := 0, h, 0, to
		if t.Kind == "dumbbell" && h >= t.Left {
			sw, port = 1, h-t.Left
			tsw, tport = 1, to-t.Left
		}
		out[fmt.Sprintf("%s:p%d", Switch(sw), port)] = fmt.Sprintf("%s:p%d", Switch(tsw), tport)
		if t.DualStar {
			// s1's port pI faces hI/2 (its links in host order).
			out[fmt.Sprintf("s1:p%d", h)] = fmt.Sprintf("s1:p%d", to)
		}
	}
	return out
}

func (r *Relabelled) describe() string {
	var parts []string
	for h, to := range r.Map {
		if h != to {
			parts = append(parts, fmt.Sprintf("%s→%s", Host(h), Host(to)))
		}
	}
	return strings.Join(parts, " ")
}

// nameRe is a host or a switch's port in an output (s0:p3, or s0,p3 in
// a CSV's node and port columns); fileAt a place in
// the scenario file, as warnings give it (the names in the file move, and
// the columns after them with their lengths).
var (
	nameRe = regexp.MustCompile(`\b(h\d+|s\d+[:,]p\d+)\b`)
	fileAt = regexp.MustCompile(`metamorphic\.yaml:\d+:\d+`)
	spaces = regexp.MustCompile(` +`)
)

// mapFiles is the files with names mapped by names (none when nil), put
// in the form the relation compares: a CSV's rows sorted, a capture's
// records without their frames, topology.json and lfts.txt as they are.
func mapFiles(files map[string][]byte, names map[string]string) map[string][]byte {
	rename := func(b []byte) []byte {
		b = fileAt.ReplaceAll(b, []byte("metamorphic.yaml"))
		if names == nil {
			return b
		}
		return nameRe.ReplaceAllFunc(b, func(n []byte) []byte {
			// A CSV gives a port as node,port (pfc.csv).
			csv := bytes.IndexByte(n, ',') >= 0
			key := strings.Replace(string(n), ",", ":", 1)
			to, ok := names[key]
			switch {
			case !ok:
				return n
			case csv:
				return []byte(strings.Replace(to, ":", ",", 1))
			}
			return []byte(to)
		})
	}
	out := map[string][]byte{}
	for name, b := range files {
		switch {
		case name == "topology.json" || name == "lfts.txt":
			out[name] = b
		case strings.HasSuffix(name, ".pcap"):
			// s0_p1.pcap is port s0:p1's capture, h0_2.pcap host h0's
			// port 2's (h0/2).
			n := strings.TrimSuffix(name, ".pcap")
			n = strings.Replace(n, "_p", ":p", 1)
			n = strings.Replace(n, "_2", "/2", 1)
			n = string(rename([]byte(n)))
			n = strings.Replace(n, "/2", "_2", 1)
			out[strings.Replace(n, ":p", "_p", 1)+".pcap"] = pcapRecords(b)
		case name == "nccl_tests.txt":
			// nccl-tests pads each rank's host name to a width, so a
			// name of another length moves the columns: compared with
			// runs of spaces as one.
			out[name] = spaces.ReplaceAll(rename(b), []byte(" "))
		case strings.HasSuffix(name, ".csv"):
			lines := bytes.Split(bytes.TrimSuffix(rename(b), []byte("\n")), []byte("\n"))
			if len(lines) > 1 {
				slices.SortFunc(lines[1:], bytes.Compare)
			}
			out[name] = append(bytes.Join(lines, []byte("\n")), '\n')
		default:
			out[name] = rename(b)
		}
	}
	return out
}

// pcapRecords is a capture's records' times and lengths, one a line: its
// frames carry the hosts' addresses, which move with them.
func pcapRecords(b []byte) []byte {
	if len(b) < 24 {
		return b
	}
	var out bytes.Buffer
	order := binary.ByteOrder(binary.LittleEndian)
	if binary.BigEndian.Uint32(b) == 0xa1b2c3d4 || binary.BigEndian.Uint32(b) == 0xa1b23c4d {
		order = binary.BigEndian
	}
	fmt.Fprintf(&out, "header % x\n", b[:24])
	for p := 24; p+16 <= len(b); {
		sec, frac, incl, orig := order.Uint32(b[p:]), order.Uint32(b[p+4:]), order.Uint32(b[p+8:]), order.Uint32(b[p+12:])
		fmt.Fprintf(&out, "%d.%09d %d %d\n", sec, frac, incl, orig)
		p += 16 + int(incl)
	}
	return out.Bytes()
}
