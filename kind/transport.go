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

// EncapNames are hca.overlay.encap's values: the encapsulations an
// overlay may use, as the fabric defines them (fabric.Encaps).
func EncapNames() []string {
	var out []string
	for _, e := range fabric.Encaps() {
		out = append(out, e.String())
	}
	return out
}
