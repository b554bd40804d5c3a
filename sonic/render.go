package sonic

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Text is what `lfsim sonic FILE` prints: the switch keys Read gave as a
// scenario's switch: block, headed by comments that say where they come
// from and the warnings (a scenario that pastes it in runs as one with
// switch: {sonic: FILE}). It is empty when res has errors.
func Text(res *Result) string {
	if res.Switch == nil {
		return ""
	}
	var b strings.Builder
	file, port := printable(res.File), printable(res.Port) // comments: one line each
	fmt.Fprintf(&b, "# lfsim sonic: the QoS and buffer settings of %s as lfsim's switch keys\n", file)
	switch {
	case res.Port != "":
		fmt.Fprintf(&b, "# (port %s's), the same as switch: {sonic: {file: %s, port: %s}}\n", port, file, port)
	case len(res.Ports) > 0:
		fmt.Fprintf(&b, "# (what its %d port%s agree on: %s), the same as switch: {sonic: %s}\n", len(res.Ports), plural(len(res.Ports)), printable(portsText(res.Ports)), file)
	default:
		fmt.Fprintf(&b, "# the same as switch: {sonic: %s}\n", file)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", printable(w.Format(res.File)))
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("switch"), res.Switch}}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return "# " + err.Error() + "\n" // nodes this package made: does not happen
	}
	enc.Close()
	b.Write(out.Bytes())
	return b.String()
}

// portsText names ports: all of a few, or the first and last of many.
func portsText(ps []string) string {
	if len(ps) <= 4 {
		return strings.Join(ps, ", ")
	}
	return ps[0] + ", " + ps[1] + " ... " + ps[len(ps)-1]
}
