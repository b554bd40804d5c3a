package assembly

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// TestSnaplen: observe.snaplen sets how much of each frame the pcaps
// keep: whole frames by default, as with full (issue 51: the default was
// 128 bytes, which Wireshark shows as Malformed), or the bytes given;
// each frame's real length is kept beside it.
func TestSnaplen(t *testing.T) {
	// The largest frame: a WRITE First, 4096 bytes and a RETH, header to
	// FCS.
	first := fabric.RoCEv2Wire(fabric.OpWriteFirst, 4096) - fabric.PreambleIFGBytes
	for _, tc := range []struct {
		key  string
		want int // the largest captured length of a 4 KiB packet
	}{{"", first}, {"  snaplen: full\n", first}, {"  snaplen: 128\n", 128}, {"  snaplen: 256\n", 256}} {
		_, r := runSource(t, "s.yaml", "topology: {kind: star, hosts: 2}\nobserve:\n  pcap: [h1]\n"+tc.key+"traffic:\n  - flow: {from: h0, to: h1, size: 64KiB}\n")
		data, err := reports.PcapFile(r.Captures[0], r.SnapLen)
		if err != nil {
			t.Fatal(err)
		}
		var longest, wire int
		pr, err := pcapgo.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for {
			_, ci, err := pr.ReadPacketData()
			if err != nil {
				break
			}
			longest, wire = max(longest, ci.CaptureLength), max(wire, ci.Length)
		}
		if longest != tc.want || wire != first {
			t.Errorf("%q: frames kept up to %d bytes of %d; want %d of %d", tc.key, longest, wire, tc.want, first)
		}
	}
	for _, tc := range []struct{ v, want string }{
		{"all", "t.yaml:2:32: observe.snaplen: expected full or a size such as 128, found \"all\""},
		{"32", "t.yaml:2:32: observe.snaplen: 32 is out of range; expected 64..262144"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\nobserve: {pcap: [h1], snaplen: "+tc.v+"}\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("snaplen %s: %v, want %q", tc.v, err, tc.want)
		}
	}
}

// TestBytesProgress: a run that stops when its flows are done measures
// its progress in bytes delivered of those offered, from 0 to all of
// them; a run that stops on time, or whose traffic is not all known in
// advance, does not.
func TestBytesProgress(t *testing.T) {
	const topo = "topology: {kind: star, hosts: 3}\n"
	n := buildSource(t, "p.yaml", "stop: {at: 10ms, when: flows-done}\n"+topo+"traffic:\n  - incast: {to: h2, from: [h0, h1], size: 1MiB}\n")
	if d, total, ok := n.BytesProgress(); !ok || d != 0 || total != 2<<20 {
		t.Errorf("before the run: %d of %d (%v), want 0 of 2 MiB", d, total, ok)
	}
	n.Run(nil)
	if d, total, ok := n.BytesProgress(); !ok || d != total {
		t.Errorf("after the run: %d of %d (%v), want all", d, total, ok)
	}
	for _, src := range []string{
		"stop: {at: 1ms}\n" + topo + "traffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n",
		"stop: {at: 1ms, when: flows-done}\n" + topo + "traffic:\n  - poisson: {hosts: all, load: 10%, sizes: 4096, until: 100us}\n",
	} {
		if _, _, ok := buildSource(t, "p.yaml", src).BytesProgress(); ok {
			t.Errorf("bytes are the measure of\n%s", src)
		}
	}
}
