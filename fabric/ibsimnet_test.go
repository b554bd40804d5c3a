package fabric

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteIBSimNet: a star of two hosts as ibsim reads it, with
// lfsim's switch GUID and port numbers from 1 (the switch's port 1 is
// lfsim's p0, h0's), and the guid2lid file that gives OpenSM lfsim's
// LIDs (s0 1, h0 2, h1 3) for the port GUIDs ibsim makes: a CA's port 1
// is its node GUID + 1 (ibsim's init_ports).
func TestWriteIBSimNet(t *testing.T) {
	tp, err := Star(2, testLink)
	if err != nil {
		t.Fatal(err)
	}
	lids := AssignLIDs(tp)
	var net, g2l bytes.Buffer
	if err := WriteIBSimNet(&net, tp, lids); err != nil {
		t.Fatal(err)
	}
	body := net.String()[strings.Index(net.String(), "\n\n"):]
	if want := "\n\nswitchguid=0x0002c90300000001\nSwitch\t2 \"s0\"\n[1]\t\"h0\"[1]\n[2]\t\"h1\"[1]\n" +
		"\ncaguid=0x0002c90400000001\nHca\t1 \"h0\"\n[1]\t\"s0\"[1]\n" +
		"\ncaguid=0x0002c90400000002\nHca\t1 \"h1\"\n[1]\t\"s0\"[2]\n"; body != want {
		t.Errorf("net file:\n%s\nwant\n%s", body, want)
	}
	if err := WriteGUID2LID(&g2l, tp, lids); err != nil {
		t.Fatal(err)
	}
	if want := "0x0002c90300000001 0x0001 0x0001\n\n0x0002c90400000002 0x0002 0x0002\n\n0x0002c90400000003 0x0003 0x0003\n\n"; g2l.String() != want {
		t.Errorf("guid2lid:\n%s\nwant\n%s", g2l.String(), want)
	}
}

// TestWriteIBSimNetRefuses: what ibsim cannot be given is an error that
// names the node, never a file ibsim misreads.
func TestWriteIBSimNetRefuses(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(*Topology)
	}{
		{"quote", `node "h\"0": ibsim reads a node's name between double quotes`, func(tp *Topology) { tp.Nodes[1].Name = `h"0` }},
		{"extender", "s0 is a range extender", func(tp *Topology) { tp.Nodes[0].RangeExtender = true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp, err := Star(2, testLink)
			if err != nil {
				t.Fatal(err)
			}
			lids := AssignLIDs(tp)
			c.edit(tp)
			var b bytes.Buffer
			if err := WriteIBSimNet(&b, tp, lids); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
