package kind

import (
	"reflect"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestTransportRows: each transport's row says what the rest of lfsim
// reads of it, as its standard has it: RoCEv2 is routed over IP and UDP
// (ECN in its IP header, INT in its UDP one), RoCEv1 is bridged on layer 2 with neither (IBTA annex
// A16: EtherType 0x8915, a GRH), iWARP runs over TCP with hca.tcp, no
// atomics (RFC 5040) and ibv_devinfo's IBV_TRANSPORT_IWARP; a RoCE
// device reports IBV_TRANSPORT_IB. The wire size of a 4096-byte WRITE
// Middle is RoCEv2's 4178 bytes or RoCEv1's 16 more (fabric.RoCEv1Wire);
// UET's 40 more than RoCEv2's (fabric.UETWire: PDS 12 and SES 44 bytes
// in place of BTH 12 and ICRC 4).
func TestTransportRows(t *testing.T) {
	for _, c := range []struct {
		name  string
		want  Transport
		wire  int
		first bool
	}{
		{"rocev2", Transport{Title: "RoCEv2", Framing: fabric.RoCEv2, Ethernet: true, Routed: true, IP: true, INT: true, Atomics: true, Capture: true,
			VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB", GIDType: "RoCE v2"}, 4178, true},
		{"rocev1", Transport{Title: "RoCEv1", Framing: fabric.RoCEv1, Ethernet: true, EtherType: 0x8915, Header: "a GRH", Atomics: true, Capture: true,
			VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB", GIDType: "RoCE v1"}, 4194, false},
		{"iwarp", Transport{Title: "iWARP", Framing: fabric.IWARP, Ethernet: true, Routed: true, IP: true, TCP: true, Block: "tcp", RDMAP: true, Capture: true,
			VerbsTransport: "iWARP (1)", PerftestTransport: "IW"}, 4178, false},
		{"uet", Transport{Title: "UET", Framing: fabric.UET, Ethernet: true, Routed: true, IP: true, Block: "uet",
			VerbsTransport: "InfiniBand (0)", PerftestTransport: "IB"}, 4218, false},
	} {
		r, ok := LookupTransport(c.name)
		if !ok {
			t.Fatalf("no row %s", c.name)
		}
		if r.Wire == nil || r.Doc == "" || r.Does == "" {
			t.Errorf("%s: no Wire, Doc or Does", c.name)
		}
		if got := r.Wire(fabric.OpWriteMiddle, 4096); got != c.wire {
			t.Errorf("%s: a 4096-byte WRITE Middle is %d bytes on the wire, want %d", c.name, got, c.wire)
		}
		got := r
		got.Name, got.Doc, got.Does, got.Wire = "", "", "", nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: row\n%+v, want\n%+v", c.name, got, c.want)
		}
		if TransportOf(c.want.Framing).Name != c.name || (Transports()[0].Name == c.name) != c.first {
			t.Errorf("%s: TransportOf(%d) is %s; first row %s", c.name, c.want.Framing, TransportOf(c.want.Framing).Name, Transports()[0].Name)
		}
	}
	if n := TransportNames(); len(n) != 4 || n[0] != "rocev2" || n[1] != "rocev1" || n[2] != "iwarp" || n[3] != "uet" {
		t.Errorf("names %v, want rocev2, rocev1, iwarp, uet (hca.transport's enumeration, the default first)", n)
	}
}

// TestRegisterTransport: a row is in the table, in order, until
// unregistered; a second row of the same name or the same framing, or
// one without a name, panics; an HCA framing no row names reads as the
// default's.
func TestRegisterTransport(t *testing.T) {
	before, g := len(Transports()), Generation()
	undo := RegisterTransport(Transport{Name: "kind-test", Framing: 200})
	if rows := Transports(); len(rows) != before+1 || rows[before].Name != "kind-test" || Generation() == g || TransportOf(200).Name != "kind-test" {
		t.Fatalf("table %v after a registration", rows)
	}
	for _, bad := range []Transport{{Name: "kind-test", Framing: 201}, {Name: "kind-test-2", Framing: fabric.IWARP}, {Framing: 202}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %+v did not panic", bad)
				}
			}()
			RegisterTransport(bad)
		}()
	}
	undo()
	if _, ok := LookupTransport("kind-test"); ok || len(Transports()) != before || TransportOf(200).Name != "rocev2" {
		t.Errorf("table %v after unregistering", Transports())
	}
}
