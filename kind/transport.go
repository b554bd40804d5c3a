package kind

import "github.com/lfsim/lfsim/fabric"

// TransportNames are hca.transport's values: the ways an Ethernet NIC
// frames RDMA, as the fabric defines them (fabric.Transports; fabric is
// below this package, so it lists them itself rather than registering).
func TransportNames() []string {
	var out []string
	for _, t := range fabric.Transports() {
		out = append(out, t.String())
	}
	return out
}
