package assembly

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestRCCCIncast: the uet-trim-incast example (16 senders, 1 MiB each,
// into one host at 100 Gb/s through a 4 MiB buffer, trimming, no PFC)
// with hca.uet.receiver_credits: true, alone and beside NSCC. The
// receiver grants credit at 0.99 of its line rate (congestion/rccc.go),
// so its link stays busy and the last flow ends near the bound, 16 MiB
// of 4218-byte frames (fabric.UETWire) at 100 Gb/s: 1.3821 ms; measured
// 1.3894 ms alone and beside NSCC (2026-12-05), asserted within
// 1.5% of the bound. The senders' speculative credit (1.5 BDP each,
// 1.52 MB in all) fits the switch's share of the buffer, and credit
// comes no faster than the link drains: no trim (asserted: under 1% of
// the example's own, no control, 37,602 on this revision's
// RELIABILITY.md). Byte-identical at 1 and 2 workers. Beside NSCC no
// packet is marked (the receiver's link marks nothing under RCCC).
func TestRCCCIncast(t *testing.T) {
	src := exampleText(t, "uet-trim-incast")
	bound := float64(16*256*fabric.UETWire(fabric.OpWriteMiddle, 4096)*8) / 100e9 * 1e9 // ns
	base, _, _ := mustRun(t, mustParse(t, src))
	var noCC int64
	for _, sw := range base.Switches {
		if sw != nil {
			noCC += sw.Stats.Trimmed
		}
	}
	if noCC < 10000 {
		t.Fatalf("without control: %d trims; want the example's tens of thousands", noCC)
	}
	for _, c := range []struct{ name, cc string }{
		{"rccc", "cc: none\n  uet: {receiver_credits: true}"},
		{"rccc+nscc", "cc: nscc\n  uet: {receiver_credits: true}"},
	} {
		s := patch(t, src, "cc: none", c.cc)
		if c.name == "rccc+nscc" {
			s = patch(t, s, "\n  ecn: off", "") // NSCC with its own marking
		}
		files, n := runFiles(t, s, 1)
		files2, _ := runFiles(t, s, 2)
		for name, b := range files {
			if !bytes.Equal(b, files2[name]) {
				t.Errorf("%s: %s differs at 1 and 2 workers", c.name, name)
			}
		}
		var trims, pulls int64
		for _, sw := range n.Switches {
			if sw != nil {
				trims += sw.Stats.Trimmed
			}
		}
		for _, h := range n.HCAs {
			if h != nil {
				pulls += h.CreditPackets()
			}
		}
		var last int64
		done := 0
		rows, err := csv.NewReader(bytes.NewReader(files["flows.csv"])).ReadAll()
		if err != nil || len(rows) != 17 {
			t.Fatalf("%s: flows.csv: %v, %d rows", c.name, err, len(rows))
		}
		for _, r := range rows[1:] { // end_ns column 8, status 12
			end, _ := strconv.ParseInt(r[8], 10, 64)
			last = max(last, end)
			if r[12] == "success" {
				done++
			}
		}
		if done != 16 || float64(last) < bound || float64(last) > 1.015*bound {
			t.Errorf("%s: %d of 16 flows, the last at %d ns; want 16 within 1.5%% of the bound, %.0f ns", c.name, done, last, bound)
		}
		if trims*100 > noCC {
			t.Errorf("%s: %d trims; want under 1%% of the %d without control", c.name, trims, noCC)
		}
		// Beside NSCC (which asks the switches to mark) the switch marks
		// nothing on the receiver's link, as uet-htsim's ToR downlinks
		// with receivers that drive (main_uec.cpp, set_ecn_parameters);
		// its queue, 1.4 MB, is far past NSCC's marking's 120 KB.
		var marked int64
		for _, sw := range n.Switches {
			if sw != nil {
				marked += sw.Stats.Marked
			}
		}
		if marked != 0 {
			t.Errorf("%s: %d packets marked; want none on the receiver's link", c.name, marked)
		}
		// 16 MiB in pulls of 16 KiB: at least 1,024 credit packets.
		if pulls < 1024 {
			t.Errorf("%s: %d credit packets; want at least 1,024", c.name, pulls)
		}
	}
}

// TestRCCCPermutation: the uet-permutation-k8 example (a permutation of
// 2 MiB on a k=8 fat tree, oblivious spraying, trimming, no control)
// with receiver_credits: each receiver has one sender, so credit should
// cost the flows little: the last ends within 3% of the same run
// without it (measured 256.7 us against 255.5 us, 2026-12-05; uet-htsim
// 251.3 against 250.7, RELIABILITY.md). The credit packets go in the
// CNP class, ahead of data, as uet-htsim's pulls go at its high
// priority; at the data's priority they waited behind other flows' data
// on the reverse paths and the last flow ended at 296 us (tried).
func TestRCCCPermutation(t *testing.T) {
	src := exampleText(t, "uet-permutation-k8")
	last := func(s string) int64 {
		_, sum, rows := mustRun(t, mustParse(t, s))
		if sum.Flows.Completed != 128 {
			t.Fatalf("%d of 128 flows completed", sum.Flows.Completed)
		}
		var l int64
		for _, r := range rows {
			l = max(l, r.FCTNs)
		}
		return l
	}
	base := last(src)
	with := last(patch(t, src, "    spray: oblivious", "    spray: oblivious\n    receiver_credits: true"))
	if float64(with) > 1.03*float64(base) {
		t.Errorf("last flow at %d ns with receiver credits, %d ns without; want within 3%%", with, base)
	}
}

// TestRCCCLostRTS: a QP held without credit with nothing unacknowledged
// asks with an RTS (hca/rccc.go); when that RTS, or the credit it
// brings, is lost, it asks again at each ACK timeout. The case of
// metamorphic's collectives-41000149 (a 2-host all_gather under UET with
// receiver_credits, whose small messages go on speculative credit) with
// one in five frames lost on the receiver's link: without the repeat
// 1 of 44 calls was done by 100 ms at seeds 1 and 3 (the RTS lost,
// nothing asked again; tried), all 44 without receiver_credits. Now all
// 44 complete at each seed.
func TestRCCCLostRTS(t *testing.T) {
	const src = `name: rccc-lost-rts
seed: %d
stop: {at: 100ms, when: [flows-done, deadlock]}
topology:
  kind: explicit
  switches: [s0]
  hosts: [h0, h1]
  link: {rate: 100Gb/s, delay: 1us}
  links:
    - [s0, h0]
    - [s0, h1]
hca:
  transport: uet
  uet: {cc: dctcp, spray: ecmp, receiver_credits: true}
faults:
  - {at: 0, link: [s0, h1], action: loss, rate: 0.2}
traffic:
  - nccl_tests: {hosts: [h1, h0], op: all_gather, minbytes: 1738, maxbytes: 3476}
`
	for _, seed := range []int{1, 2, 3} {
		_, sum, _ := mustRun(t, mustParse(t, fmt.Sprintf(src, seed)))
		if c := sum.Collectives; c == nil || c.Completed != c.Total || c.Total != 44 {
			t.Errorf("seed %d: collectives %+v; want all 44 calls done", seed, c)
		}
	}
}
