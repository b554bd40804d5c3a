package scenario

import "regexp"

// The checks here need nothing but the file: a value against another of
// the same file, or a rule no default changes. What needs the topology or
// a model's defaults (xon against the buffer, t_low against t_high's
// default) is checked where the network is assembled, and so are a few
// that need only the file but must keep their place among the builder's
// checks: a file with more than MaxErrors errors lists the first found, so
// moving a check before others would change which are listed (the ranges
// of the congestion controls' values, in resolve's ccConfig).

// validName is what name: may be: it names the output folder.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// check runs the checks of f that need only the file, after decoding.
func (f *File) check(d *Decoder) {
	if f.Name.Set && !validName.MatchString(f.Name.V) {
		d.Errorf(f.Name.Pos, "name", "%s is not a valid name: use letters, digits, '.', '_' and '-', starting with a letter or digit (it names the output folder)", Quote(f.Name.V))
	}
	st := &f.Stop
	seen := map[string]bool{}
	for _, w := range st.When.Items {
		if seen[w.V] {
			d.Errorf(w.Pos, "stop.when", "%s is listed twice", w.V)
		}
		seen[w.V] = true
	}
	if st.At.Set && st.At.V == 0 && len(st.When.Items) == 0 {
		d.Errorf(st.At.Pos, "stop.at", "0 means no time limit, which needs a when: condition; give a time such as 10ms or add when: flows-done")
	}
}
