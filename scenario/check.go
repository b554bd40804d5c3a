package scenario

import "regexp"

// The checks here need nothing but the file: a value against another of
// the same file, or a rule no default changes. What needs the topology or
// a model's defaults (xon against the buffer, t_low against t_high's
// default) is checked where the network is assembled.

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
	f.HCA.checkCC(d)
}

// checkCC checks the ranges of hca.dcqcn's and hca.hpcc's values that
// their units do not bound.
func (h *HCAS) checkCC(d *Decoder) {
	dc := &h.DCQCN
	if g := dc.DceTCPG; g.Set && (g.V > 1024 || g.V != float64(int(g.V))) {
		d.Errorf(g.Pos, "hca.dcqcn.dce_tcp_g", "dce_tcp_g is a whole number of 1/1024ths from 0 to 1024 (alpha's gain g = (1024 - dce_tcp_g)/1024), not %v", g.V)
	}
	if a := dc.InitialAlphaValue; a.Set && a.V > 1024 {
		d.Errorf(a.Pos, "hca.dcqcn.initial_alpha_value", "initial_alpha_value is in 1/1024ths, at most 1024, not %d", a.V)
	}
	if eta := h.HPCC.Eta; eta.Set && eta.V <= 0 {
		d.Errorf(eta.Pos, "hca.hpcc.eta", "eta must be above 0")
	}
}
