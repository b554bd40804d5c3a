package fabric

// MPA (Marker PDU Aligned framing, RFC 5044) frames each DDP segment as
// one FPDU in the TCP byte stream: a 2-byte ULPDU length, the DDP segment,
// padding to a 4-byte boundary, and a CRC32c when the connection
// negotiated CRCs; with markers negotiated, a 4-byte marker sits at every
// 512th byte of the stream.
const (
	MPAHeaderBytes = 2
	MPACRCBytes    = 4
	MPAMarkerBytes = 4
	// MPAMarkerInterval is the stream distance between markers (RFC 5044
	// §5): 508 bytes of FPDU and 4 of marker.
	MPAMarkerInterval = 512
)

// MPA is what an iWARP connection negotiated in its MPA request and
// reply (RFC 5044 §7.1: the M and C bits).
type MPA struct {
	// CRC adds a CRC32c to every FPDU. Linux's iw_cxgb4 asks for it
	// (crc_enabled, default 1).
	CRC bool
	// Markers puts a marker every 512 bytes of the stream. iw_cxgb4 does
	// not ask for them (markers_enabled, default 0), nor does MPA v2's
	// enhanced mode need them.
	Markers bool
}

// FPDUBytes returns the bytes an FPDU occupies in the TCP stream for a
// DDP segment of ulpdu bytes: header, segment, padding, CRC, and the
// markers that fall in it (on average one per 508 bytes of FPDU: an FPDU
// aligned to its segment meets a marker wherever the stream puts one,
// and lfsim counts them without tracking the stream's offset).
func (m MPA) FPDUBytes(ulpdu int) int {
	n := (MPAHeaderBytes + ulpdu + 3) &^ 3
	if m.CRC {
		n += MPACRCBytes
	}
	if m.Markers {
		n += n / (MPAMarkerInterval - MPAMarkerBytes) * MPAMarkerBytes
	}
	return n
}
