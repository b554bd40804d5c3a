package collective

import "testing"

// TestDirectChannels: a direct send takes the channels NCCL gives a
// point-to-point send of its bytes (src/enqueue.cc, NVIDIA/nccl
// 5067397c): nChannelsMin = p2pnChannelsPerPeer halved while
// nChannelsMin·nRanks > p2pnChannels (:1143-1146), nChannels =
// min(nChannelsMin, divUp(bytes, 64 KiB)) (:921), doubled while the part
// is above maxPartSize (128 KiB between servers, 16 MiB within one) and
// nChannels <= nChannelsMax/2 (:922-926), with channels standing for
// both p2pnChannels and p2pnChannelsPerPeer. Worked by hand from those
// lines, over 8 ranks:
//   - 2 channels: nChannelsMin is 1 (2·8 > 2), so one channel up to 128
//     KiB a peer, two from 128 KiB + 4 (one part of 128 KiB + 4 is above
//     maxPartSize); within one server 1 MiB still goes on one (16 MiB).
//   - 16 channels: nChannelsMin is 2 (16·8 > 16, 8·8, 4·8 too, 2·8 not),
//     so 256 KiB goes on two (128 KiB parts), 1 MiB on eight.
//
// It had been min(channels, divUp(bytes, 64 KiB)) (review C, finding 7):
// two channels for 64 KiB + 4, four for 256 KiB on 16; and before that
// every send on every channel (review B, defect 6).
func TestDirectChannels(t *testing.T) {
	const n = 8
	apart := hosts(n)
	oneServer := make([]Place, n)
	for i := range oneServer {
		oneServer[i] = Place{Server: 0, GPU: i}
	}
	for _, c := range []struct {
		perPeer        int64
		channels, used int
		places         []Place
	}{
		{24 << 10, 2, 1, apart},
		{64 << 10, 2, 1, apart},
		{64<<10 + 4, 2, 1, apart},
		{128 << 10, 2, 1, apart},
		{128<<10 + 4, 2, 2, apart},
		{1 << 20, 2, 2, apart},
		{256 << 10, 16, 2, apart},
		{1 << 20, 16, 8, apart},
		{1 << 20, 2, 1, oneServer},
	} {
		cm, err := NewComm(c.places, Options{Algorithm: Direct, Channels: c.channels})
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
			t.Errorf("%d bytes a peer, %d channels, %d servers: steps on channels %v (plan %d), want the first %d", c.perPeer, c.channels, cm.Nodes(), used, p.Channels, c.used)
		}
	}
}
