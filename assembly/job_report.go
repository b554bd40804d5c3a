package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/reports"
)

// jobBytes adds the jobs' sends to the byte terms, as collectiveBytes
// adds the collectives' steps (the jobs' collectives are among those):
// a send's payload is offered when it is posted, delivered as the
// receiver's QP accepts it, and in flight until then. It returns what
// does not add up.
func (n *Network) jobBytes(sum *reports.Summary) (errs []string) {
	for _, jr := range n.jobs {
		for _, l := range jr.links {
			delivered := l.rq.Delivered
			sum.Bytes.Offered += l.posted
			sum.Bytes.Delivered += delivered
			sum.Bytes.InFlight += l.posted - delivered
			if delivered < l.finished || delivered > l.posted {
				errs = append(errs, fmt.Sprintf("job traffic[%d]: sends %s -> %s: %d bytes posted, %d completed, %d delivered",
					jr.spec.Generator, l.from.h.Name, l.to.h.Name, l.posted, l.finished, delivered))
			}
		}
		if jr.failure != "" {
			sum.Warnings = append(sum.Warnings, jr.failure)
		}
	}
	return errs
}
