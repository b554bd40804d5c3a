package collective

import "testing"

// TestDirectChannels: a direct send takes the channels NCCL gives a
// point-to-point send of its bytes, min(channels, divUp(bytes, 64 KiB))
// (src/enqueue.cc, addP2pToPlan), as its protocol choice does
// (TestP2PProtocol): over 8 ranks with 2 channels, 24 KiB per peer goes
// on channel 0 alone, 64 KiB too, 64 KiB + 4 bytes on both, as 1 MiB
// does; with 16 channels 256 KiB a peer takes 4. It had split every
// send over every channel (review B, defect 6's second half): 12 KiB on
// each of two channels for 24 KiB.
func TestDirectChannels(t *testing.T) {
	const n = 8
	for _, c := range []struct {
		perPeer        int64
		channels, used int
	}{
		{24 << 10, 2, 1},
		{64 << 10, 2, 1},
		{64<<10 + 4, 2, 2},
		{1 << 20, 2, 2},
		{256 << 10, 16, 4},
	} {
		cm, err := NewComm(hosts(n), Options{Algorithm: Direct, Channels: c.channels})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(cm, Spec{Op: AllToAll, Size: n * c.perPeer, Proto: Simple})
		if err != nil {
			t.Fatal(err)
		}
		used := map[int]bool{}
		for r := range n {
			for i, k := range p.OutSteps(r) {
				if k > 0 {
					used[cm.Links[cm.Out[r][i]].Channel] = true
				}
			}
		}
		if len(used) != c.used || p.Channels != c.used {
			t.Errorf("%d bytes a peer, %d channels: steps on channels %v (plan %d), want the first %d", c.perPeer, c.channels, used, p.Channels, c.used)
		}
	}
}
