package congestion

import "github.com/lfsim/lfsim/fabric"

// nsccSackRing is how many PSNs past the cumulative acknowledgement
// nsccAcked remembers as counted: 4,096 packets, 16 MiB of 4 KiB
// packets, far more than NSCC's window (1.5 BDP: 1,831 packets of
// 4 KiB at 400 Gb/s and 100 us). A SACK further ahead is counted
// without being remembered.
const nsccSackRing = 4096

// nsccAcked counts the packets the receiver reports received, each
// once, as uet-htsim's sender reads them from the ACK's recvd_bytes
// (uec.cpp processAck: newly_recvd_bytes, what the window's update and
// quick adapt count): an ACK acknowledges every PSN before its
// cumulative one, a selective-repeat NAK (a packet that arrived past a
// gap) the PSN it names. An ACK that the responder coalesced counts
// every packet it covers; a cumulative ACK that passes PSNs already
// SACKed does not count them again; a duplicate counts nothing.
type nsccAcked struct {
	started bool
	una     uint32                     // the cumulative PSN: every PSN before it is counted
	sacked  *[nsccSackRing / 64]uint64 // PSNs at or past una counted by a SACK, by PSN % nsccSackRing
	pending int                        // bits set in sacked
}

// sent starts the count at the first packet's PSN.
func (a *nsccAcked) sent(psn uint32) {
	if !a.started {
		a.una, a.started = psn&psnMask, true
	}
}

// newly is how many packets ack reports received for the first time.
func (a *nsccAcked) newly(ack *fabric.Packet) int64 {
	if !a.started {
		return 0
	}
	cum := (ack.PSN + 1) & psnMask // an ACK acknowledges PSN and before
	nak := ack.Syndrome == fabric.SyndromeNAKSeqErr
	if nak {
		cum = ack.PSN & psnMask // a NAK's PSN is the one it expects
	}
	var n int64
	if psnAfter(cum, a.una) {
		d := (cum - a.una) & psnMask
		n = int64(d)
		if a.pending > 0 {
			for psn, end := a.una, cum; psn != end; psn = (psn + 1) & psnMask {
				if a.take(psn) {
					n--
				}
			}
		}
		a.una = cum
	}
	if nak && ack.Ext != nil {
		sp := ack.Ext.SackPSN & psnMask
		if d := (sp - a.una) & psnMask; d < 1<<23 {
			switch {
			case d >= nsccSackRing:
				n++
			case a.mark(sp):
				n++
			}
		}
	}
	return n
}

// mark remembers psn as counted; it reports whether it was not already.
func (a *nsccAcked) mark(psn uint32) bool {
	if a.sacked == nil {
		a.sacked = new([nsccSackRing / 64]uint64)
	}
	i := psn % nsccSackRing
	w, b := &a.sacked[i/64], uint64(1)<<(i%64)
	if *w&b != 0 {
		return false
	}
	*w |= b
	a.pending++
	return true
}

// take forgets psn, which the cumulative acknowledgement passed; it
// reports whether a SACK had counted it.
func (a *nsccAcked) take(psn uint32) bool {
	i := psn % nsccSackRing
	w, b := &a.sacked[i/64], uint64(1)<<(i%64)
	if *w&b == 0 {
		return false
	}
	*w &^= b
	a.pending--
	return true
}
