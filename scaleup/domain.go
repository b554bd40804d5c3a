package scaleup

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Domain is one server's scale-up domain (see the package comment).
type Domain struct {
	// Rate is each GPU's port rate into the domain, per direction.
	Rate fabric.Rate
	// Delay is the latency from a transfer's last byte leaving the
	// switch to its landing in the destination GPU's memory.
	Delay sim.Time
	// egress and ingress are when each GPU's port is next free in
	// each direction, by GPU index.
	egress, ingress []sim.Time
	// Bytes counts the bytes the domain has carried; Transfers the
	// transfers.
	Bytes, Transfers int64
}

// New makes the domain of gpus GPUs.
func New(gpus int, rate fabric.Rate, delay sim.Time) *Domain {
	return &Domain{Rate: rate, Delay: delay, egress: make([]sim.Time, gpus), ingress: make([]sim.Time, gpus)}
}

// Transfer moves n bytes from GPU src to GPU dst, asked for at now, and
// returns when its last byte lands at dst. It reserves both ports.
func (d *Domain) Transfer(src, dst int, n int64, now sim.Time) sim.Time {
	ser := fabric.SerializationTime(n, d.Rate)
	s := max(now, d.egress[src])
	d.egress[src] = s + ser
	r := max(s, d.ingress[dst])
	d.ingress[dst] = r + ser
	d.Bytes += n
	d.Transfers++
	return r + ser + d.Delay
}
