package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in a scenario file: 1-based line and column (columns
// count characters, as yaml.v3 reports them). The zero Pos means "no
// place"; a Pos with Line > 0 but Col 0 names a whole line.
type Pos struct {
	File      string
	Line, Col int
}

// String is "file:line:col", "file:line" or "file".
func (p Pos) String() string {
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Diag returns a Diagnostic at p with the formatted message; run-time
// checks (expect:) use it to cite the line that asked for them.
func (p Pos) Diag(format string, args ...any) Diagnostic {
	return Diagnostic{File: p.File, Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// Diagnostic is one error or warning at a place in a file.
type Diagnostic struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
	Msg       string
}

// Pos returns where the diagnostic points.
func (d Diagnostic) Pos() Pos { return Pos{d.File, d.Line, d.Col} }

// Error is "file:line:col: msg" (or "file:line: msg" / "file: msg" where
// the column or line is unknown).
func (d Diagnostic) Error() string { return d.Pos().String() + ": " + d.Msg }

// Errors is several diagnostics found in one pass, sorted by line and
// column. Load and Parse return an Errors when anything is wrong.
type Errors []Diagnostic

// Error joins the diagnostics one per line.
func (e Errors) Error() string {
	var b strings.Builder
	for i, d := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.Error())
	}
	return b.String()
}

// sortDiags sorts by line then column, keeping the order of discovery for
// ties, and drops exact duplicates (an alias can lead to the same mistake
// twice).
func sortDiags(ds []Diagnostic) []Diagnostic {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Col < ds[j].Col
	})
	out := ds[:0]
	seen := map[Diagnostic]bool{}
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Show prints a name from the file as is when it is a plain word, and
// quoted otherwise (empty, spaces, odd characters, very long).
func Show(s string) string {
	if s == "" || utf8.RuneCountInString(s) > 60 {
		return Quote(s)
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-:>/+%", r)) {
			return Quote(s)
		}
	}
	return s
}

// Quote quotes a value from the file for a message, shortening long ones.
func Quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:57]) + "..."
	}
	return strconv.Quote(s)
}

// Suggest returns the candidate nearest to word, if one is near enough to
// be a likely typo: the same word in another case, a prefix of at least
// three letters either way, or within two edits (Levenshtein; one edit
// for words of two or three letters). The nearest wins; ties go to the
// earlier candidate.
func Suggest(word string, candidates []string) (string, bool) {
	if word == "" || len(word) > 64 {
		return "", false
	}
	lw := strings.ToLower(word)
	// Short words allow fewer edits, or every one-letter name would
	// suggest every other.
	maxD := 2
	switch n := utf8.RuneCountInString(word); {
	case n <= 1:
		maxD = 0
	case n <= 3:
		maxD = 1
	}
	best, bestD := "", maxD+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if differentNumber(word, c) {
			continue
		}
		lc := strings.ToLower(c)
		d := maxD + 1
		switch {
		case lc == lw:
			d = 0
		case len(c) <= 64 && abs(len(c)-len(word)) <= maxD:
			d = levenshtein(lw, lc)
		}
		if d > maxD && len(lw) >= 3 && len(lc) >= 3 && (strings.HasPrefix(lc, lw) || strings.HasPrefix(lw, lc)) {
			d = maxD
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= maxD
}

// differentNumber reports whether a and b are numbered names that are not
// a typo of each other: h7 and h0 are two different hosts, and so are h1
// and s1, while h88 may well be h8 typed twice.
func differentNumber(a, b string) bool {
	pa, na, oka := splitDigits(a)
	pb, nb, okb := splitDigits(b)
	switch {
	case !oka || !okb:
		return false
	case na != nb:
		return !strings.HasPrefix(na, nb) && !strings.HasPrefix(nb, na) &&
			!strings.HasSuffix(na, nb) && !strings.HasSuffix(nb, na)
	}
	// h1 and s1: a host and a switch, not a typo of each other.
	return pa != pb && len(pa) == 1 && len(pb) == 1
}

// splitDigits splits "h12" into "h" and "12".
func splitDigits(s string) (string, string, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[:i], s[i:], i < len(s)
}

// FirstAt says where something given twice was first: "line 3", or
// "column 9" when that is on the same line.
func FirstAt(first, here Pos) string {
	if first.Line == here.Line {
		return fmt.Sprintf("column %d", first.Col)
	}
	return fmt.Sprintf("line %d", first.Line)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein is the edit distance between a and b, in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// DidYouMean is " (did you mean X?)" when a near candidate exists.
func DidYouMean(word string, candidates []string) string {
	if s, ok := Suggest(word, candidates); ok {
		return " (did you mean " + Show(s) + "?)"
	}
	return ""
}

// ListNames summarises names for a message: runs of a prefix with
// consecutive numbers collapse into "h0..h8", and long lists end with
// "and N more".
func ListNames(names []string) string {
	const maxItems = 12
	var items []string
	for i := 0; i < len(names); {
		p, n, ok := splitNumbered(names[i])
		j := i + 1
		if ok {
			for j < len(names) {
				p2, n2, ok2 := splitNumbered(names[j])
				if !ok2 || p2 != p || n2 != n+(j-i) {
					break
				}
				j++
			}
		}
		if j-i >= 3 {
			items = append(items, Show(names[i])+".."+Show(names[j-1]))
		} else {
			for k := i; k < j; k++ {
				items = append(items, Show(names[k]))
			}
		}
		i = j
	}
	if len(items) > maxItems {
		more := len(items) - maxItems
		items = append(items[:maxItems], fmt.Sprintf("and %d more", more))
	}
	if len(items) == 0 {
		return "(none)"
	}
	return strings.Join(items, ", ")
}

// splitNumbered splits "h12" into ("h", 12); the number has no leading
// zero.
func splitNumbered(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || i == 0 || len(s)-i > 9 || (s[i] == '0' && len(s)-i > 1) {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	return s[:i], n, err == nil
}
