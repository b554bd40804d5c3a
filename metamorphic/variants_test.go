package metamorphic

import "testing"

// TestUDStreamWithoutSizes: the shrinker may take a UD poisson
// generator's sizes key away; the steady variant then keeps the item as
// it is (it panicked reading an empty size while shrinking a campaign's
// failure at seed 31008729, and the campaign's process died).
func TestUDStreamWithoutSizes(t *testing.T) {
	s, _ := Generate(1)
	it := Item{Kind: "poisson", Opts: []KV{{"hosts", "all"}, {"load", "10%"}, {"qp", "ud"}}}
	got := udStream(it, s)
	if v, _ := Get(got.Opts, "load"); v != "10%" {
		t.Errorf("load %q; want the item's 10%%", v)
	}
	it.Opts = append(it.Opts, KV{"sizes", "4KiB"})
	if v, _ := Get(udStream(it, s).Opts, "load"); v == "" {
		t.Errorf("with sizes, no load")
	}
}
