package hca

// Automatic path migration (IBTA vol. 1, 17.2.8). An RC QP created on an
// HCA whose profile arms APM has an alternate path: the peer's other LID
// of its pair (the path index with its lowest bit flipped: offsets 0
// and 1, 2 and 3, ...; InfiniBand with LMC ≥ 1 gives each host 2^LMC
// LIDs, each routed on its own path where there are several). When its retries run out on the
// primary path (retry_cnt local ACK timeouts in a row), the QP migrates
// to the alternate instead of failing, as an HCA whose path migration
// state is ARMED does: its requests from then on carry the other LID, and
// their ACKs and READ responses, which follow the request's path index
// on InfiniBand, come back on the alternate too; the retry count starts
// again, and IBV_EVENT_PATH_MIG is raised. A QP migrates once (lfsim does
// not re-arm the old path).
//
// A QP's path index is the low bits of its flow key's source port (the
// switches' LFT lookup uses them to pick the destination LID:
// fabric.Routes.LFTPort); migrating flips the lowest.

// migrate moves qp to its alternate path.
func (h *HCA) migrate(qp *QP) {
	qp.Migrated = true
	qp.flow.SrcPort ^= 1
	h.switchPorts(qp) // a dual-port HCA's, or peer's, other port (dualport.go)
	qp.retries = 0
	h.asyncEvent(AsyncEvent{Type: EventPathMig, QP: qp})
}
