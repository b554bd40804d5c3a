package kind

// Spray is one way an Ultra Ethernet (UET) sender chooses the entropy
// value of each packet it sends (hca.uet.spray), which the switches' ECMP
// hashes with the rest of the flow's key, so that the sender, not the
// switch, picks the path: its row of the table, which the model that
// implements it registers (RegisterSpray).
type Spray struct {
	// Name is hca.uet.spray's value.
	Name string
	// Doc is one line for the docs: what it does and its source.
	Doc string
}

var sprays = table[Spray]{name: func(s Spray) string { return s.Name }}

// RegisterSpray adds s to the table, after those registered before it
// (the order of hca.uet.spray's enumeration; the first is the default).
// A second row with the same name panics.
func RegisterSpray(s Spray) (unregister func()) {
	return sprays.register("spray", s, func(n string) bool { return n != "" })
}

// Sprays is the table, in registration order.
func Sprays() []Spray { return sprays.all() }

// SprayNames are the rows' names, in table order.
func SprayNames() []string {
	var out []string
	for _, s := range Sprays() {
		out = append(out, s.Name)
	}
	return out
}

// LookupSpray is the row named name.
func LookupSpray(name string) (Spray, bool) { return sprays.lookup(name) }
