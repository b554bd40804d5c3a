package fabric

// PairLanes is the lane (the VL, and the SL that SL2VL maps to it) the
// subnet manager gives each source-destination host pair under lash
// (AssignLASHLanes) or dfsssp (AssignVLs): a byte per pair of rows, a
// row being a host's switch under lash (the hosts of a switch share its
// lanes) or the host itself under dfsssp. A map from every host pair
// took some 30 bytes a pair: 425 MB allocated for a k=24 fat tree's
// 3,456 hosts under lash, where this takes 720 × 720 bytes.
type PairLanes struct {
	row  []int32 // by NodeID: the node's row, -1 where it has none (a switch)
	rows int
	lane []uint8 // lane[row(src)*rows+row(dst)]
}

// newPairLanes makes the table for t with rows rows, every lane 0 and no
// node in a row yet.
func newPairLanes(t *Topology, rows int) *PairLanes {
	p := &PairLanes{row: make([]int32, len(t.Nodes)), rows: rows, lane: make([]uint8, rows*rows)}
	for i := range p.row {
		p.row[i] = -1
	}
	return p
}

// Lane returns the lane of the pair src -> dst; ok is false where the
// pair has none (src and dst are not two hosts of the topology). A nil
// table has none.
func (p *PairLanes) Lane(src, dst NodeID) (lane uint8, ok bool) {
	if p == nil || src == dst || uint(src) >= uint(len(p.row)) || uint(dst) >= uint(len(p.row)) {
		return 0, false
	}
	rs, rd := p.row[src], p.row[dst]
	if rs < 0 || rd < 0 {
		return 0, false
	}
	return p.lane[int(rs)*p.rows+int(rd)], true
}

// Bytes is what the table takes (0 for a nil one).
func (p *PairLanes) Bytes() int {
	if p == nil {
		return 0
	}
	return 4*len(p.row) + len(p.lane)
}
