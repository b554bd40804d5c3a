package resolve

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestSharedPoolAndMarkedQueues: buffer: {shared} and ecn.priorities in
// a scenario's own keys; a per-switch buffer in bytes takes the shared
// pool's place; a static xoff is checked against the shared pool and
// reserved.
func TestSharedPoolAndMarkedQueues(t *testing.T) {
	s := mustParse(t, `topology:
  kind: explicit
  hosts: [a, b]
  switches: [s1, {name: s2, switch: {buffer: 4MiB}}]
  links: [[a, s1], [s1, s2], [s2, b]]
switch:
  buffer: {shared: 1MiB}
  ecn: {kmin: 10KB, kmax: 100KB, pmax: 1%, priorities: [3, 5]}
traffic:
  - flow: {from: a, to: b, size: 1MiB}
`)
	s1, _ := s.Topology.Lookup("s1")
	s2, _ := s.Topology.Lookup("s2")
	if p := s.SwitchProfile(s1); p.SharedPool != fabric.MiB || p.ECN.Unmarked != ^uint8(1<<3|1<<5) {
		t.Errorf("s1: shared pool %d, unmarked %08b; want 1 MiB and all but 3 and 5", p.SharedPool, p.ECN.Unmarked)
	}
	if p := s.SwitchProfile(s2); p.SharedPool != 0 || p.Buffer != 4*fabric.MiB {
		t.Errorf("s2: shared pool %d, buffer %d; want none and 4 MiB", p.SharedPool, p.Buffer)
	}
	_, err := Parse("t.yaml", []byte(`topology: {kind: star, hosts: 2}
switch:
  buffer: {shared: 64KiB}
  pfc: {xoff: 96KiB}
  ecn: {priorities: [8]}
`))
	want := `t.yaml:4:15: switch.pfc.xoff: xoff (96KiB) must not exceed the shared pool and reserved (64KiB)
t.yaml:5:22: switch.ecn.priorities[0]: 8 is out of range; expected 0..7`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}
