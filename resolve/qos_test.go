package resolve

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/congestion"
)

// TestQoSBadInput: the QoS keys' bad input, each at its line and column
// naming what is allowed; a dscp2prio under trust: pcp is a warning
// (a sweep may toggle trust over one map), not an error.
func TestQoSBadInput(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"ranges, sums and overlaps", `topology: {kind: star, hosts: 2}
switch:
  dscp2prio: {64: 3, 26: 9}
  prio2tc: {2: 5}
  scheduler: {ets: {3: 70, 1: 20}, strict: [3]}
hca: {dscp: 70}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB, dscp: -1}
`, `t.yaml:3:15: switch.dscp2prio: 64 is out of range; expected 0..63
t.yaml:3:26: switch.dscp2prio.26: 9 is out of range; expected 0..7
t.yaml:4:16: switch.prio2tc: priority 2 goes to traffic class 5, which switch.scheduler does not name; its classes are ets 1, 3; strict 3
t.yaml:5:15: switch.scheduler.ets: the ETS shares sum to 90%, not 100% (IEEE 802.1Qaz: each ETS traffic class's share of what the strict classes leave, in percent)
t.yaml:5:45: switch.scheduler.strict: traffic class 3 is both strict and weighted (1, 3); a class is one or the other
t.yaml:6:13: hca.dscp: 70 is out of range; expected 0..63
t.yaml:8:48: traffic[0].flow.dscp: -1 is out of range; expected 0..63`},
		{"no DSCP to trust", `topology: {kind: star, hosts: 2}
switch:
  link_layer: infiniband
  trust: dscp
  prio2tc: {3: 3}
  scheduler: {ets: {3: 100}}
hca: {dscp: 26}
`, `t.yaml:4:10: switch.trust: trust: dscp classifies by the IP header's DSCP, and InfiniBand's packets have none: their SL picks the VL (switch.ib.sl2vl)
t.yaml:5:12: switch.prio2tc: prio2tc and ETS are Ethernet's (IEEE 802.1Qaz); InfiniBand maps SLs to VLs (switch.ib.sl2vl) and arbitrates VLs by switch.ib.vlarb
t.yaml:6:15: switch.scheduler.ets: ETS is Ethernet's (IEEE 802.1Qaz); InfiniBand arbitrates VLs by switch.ib.vlarb
t.yaml:7:13: hca.dscp: dscp is the IP header's, and InfiniBand's packets have none: a QP's SL and VL class them (a flow's sl)`},
		{"no DSCP on InfiniBand's flows", `topology: {kind: star, hosts: 2}
switch: {link_layer: infiniband}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB, dscp: 26}
`, `t.yaml:4:48: traffic[0].flow.dscp: dscp is the IP header's, and InfiniBand's packets have none: a QP's SL and VL class them (give sl)`},
		{"no DSCP in RoCEv1's frames", `topology: {kind: star, hosts: 2}
hca: {transport: rocev1, dscp: 26}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB, count: 4, dscp: 10}
`, `t.yaml:2:32: hca.dscp: dscp is the IP header's, and a RoCEv1 frame has none (EtherType 0x8915): its VLAN tag's PCP classes it (hca.priority)
t.yaml:4:58: traffic[0].flow.dscp: dscp is the IP header's, and a RoCEv1 frame has none (EtherType 0x8915): its VLAN tag's PCP classes it (give priority)`},
		{"RoCEv1 has no IP header", `topology: {kind: star, hosts: 2}
switch: {trust: dscp}
hca: {transport: rocev1}
`, `t.yaml:2:17: switch.trust: trust: dscp classifies by the IP header's DSCP, and RoCEv1's frames have no IP header (EtherType 0x8915): use trust: pcp`},
		{"two schedulers", `topology: {kind: star, hosts: 2}
switch:
  scheduler: {dwrr: {3: 1}, ets: {3: 100}}
`, `t.yaml:3:29: switch.scheduler.ets: dwrr and ets are two schedulers; give one`},
	} {
		_, err := Parse("t.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got\n%v\nwant\n%s", c.name, err, c.want)
		}
	}
	s := mustParse(t, `topology: {kind: star, hosts: 2}
switch: {dscp2prio: {26: 3}}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB}
`)
	if len(s.Warnings) != 1 || s.Warnings[0].Error() != "t.yaml:2:21: switch.dscp2prio: dscp2prio applies with trust: dscp, and this switch trusts pcp: the map has no effect" {
		t.Errorf("warnings %v", s.Warnings)
	}
}

// TestQoSResolve: ETS shares become DWRR weights over their gcd; a flow's
// dscp under trust: dscp takes its priority from dscp2prio (the listed
// 10 to 1; an unlisted 40 to 40 >> 3 = 5), hca.dscp the HCA's, and an
// explicit priority stays.
func TestQoSResolve(t *testing.T) {
	s := mustParse(t, `topology: {kind: star, hosts: 2}
switch:
  trust: dscp
  dscp2prio: {10: 1}
  scheduler: {ets: {3: 70, 1: 30}, strict: [6]}
hca: {dscp: 26}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB, dscp: 10}
  - flow: {from: h0, to: h1, size: 1MiB, dscp: 40}
  - flow: {from: h0, to: h1, size: 1MiB, dscp: 10, priority: 3}
  - flow: {from: h0, to: h1, size: 1MiB}
`)
	if w := s.Switch.DWRR; len(w) != 2 || w[3] != 7 || w[1] != 3 || !s.Switch.ETS || !s.Switch.TrustDSCP {
		t.Errorf("switch DWRR %v, ETS %v, trust dscp %v; want {3: 7, 1: 3}, true, true", w, s.Switch.ETS, s.Switch.TrustDSCP)
	}
	if s.HCA.Priority != 3 || !s.HCA.DSCPSet || s.HCA.DSCP != 26 {
		t.Errorf("hca priority %d, dscp %d (set %v); want 3 (26 >> 3), 26", s.HCA.Priority, s.HCA.DSCP, s.HCA.DSCPSet)
	}
	var got []string
	for _, f := range s.Flows {
		got = append(got, strings.Join([]string{string(rune('0' + f.Priority)), string(rune('0' + f.DSCP/10)), string(rune('0' + f.DSCP%10))}, ""))
	}
	// Two flows land on lossy priorities by their DSCP, which the lossless
	// check before the DSCP did not see: each is warned at its dscp.
	var warns []string
	for _, w := range s.Warnings {
		warns = append(warns, w.Error())
	}
	if want := "t.yaml:8:48: traffic[0].flow.dscp: dscp 10 is priority 1 under trust: dscp, which is not lossless on every switch (switch.pfc.priorities); its packets can be dropped\n" +
		"t.yaml:9:48: traffic[1].flow.dscp: dscp 40 is priority 5 under trust: dscp, which is not lossless on every switch (switch.pfc.priorities); its packets can be dropped"; strings.Join(warns, "\n") != want {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(warns, "\n"), want)
	}
	// The last flow gives no dscp: its QPs take the HCA's (26) when made.
	if want := "110 540 310 300"; strings.Join(got, " ") != want || s.Flows[3].DSCPSet {
		t.Errorf("flows' priority and DSCP %q, want %q", strings.Join(got, " "), want)
	}
}

// TestDCQCNClassKeys: hca.dcqcn's rpg_gd, cnp_dscp and cnp_802p_prio
// reach the reaction point's parameters and the NIC's CNPs (the defaults
// 11, 48 and 6 otherwise): the rate test on rpg_gd is congestion's
// TestDCQCNRpgGd, the CNPs' class assembly's TestCNPsInTheirOwnClass.
func TestDCQCNClassKeys(t *testing.T) {
	for _, c := range []struct {
		dcqcn           string
		gd, dscp, prio  int
		cnpDSCP, cnpPri uint8
	}{
		{"{variant: nvidia}", 11, 48, 6, 48, 6},
		{"{rpg_gd: 10, cnp_dscp: 40, cnp_802p_prio: 5}", 10, 40, 5, 40, 5},
	} {
		s := mustParse(t, "topology: {kind: star, hosts: 2}\nhca: {cc: dcqcn, dcqcn: "+c.dcqcn+"}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n")
		p := s.CC["dcqcn"].(*congestion.DCQCNParams)
		if p.GD != c.gd || p.CNPDSCP != c.dscp || p.CNP802pPrio != c.prio {
			t.Errorf("%s: rpg_gd %d, cnp_dscp %d, cnp_802p_prio %d; want %d, %d, %d", c.dcqcn, p.GD, p.CNPDSCP, p.CNP802pPrio, c.gd, c.dscp, c.prio)
		}
		hp := s.HCA
		ApplyCCToProfile(&hp, s.CC)
		if hp.CNPDSCP != c.cnpDSCP || hp.CNPPriority != c.cnpPri {
			t.Errorf("%s: the NIC's CNPs carry DSCP %d on priority %d; want %d on %d", c.dcqcn, hp.CNPDSCP, hp.CNPPriority, c.cnpDSCP, c.cnpPri)
		}
	}
}
