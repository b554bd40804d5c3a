package fabric

// AETHBytes is the ACK Extended Transport Header: syndrome (1) and MSN (3)
// (IBTA vol. 1, 9.3.5).
const AETHBytes = 4

// AETH syndromes (IBTA vol. 1, table 43): the top bits say ACK, RNR NAK or
// NAK; for a NAK the low bits give its code.
const (
	SyndromeACK          uint8 = 0x00 // ACK (low 5 bits: credit count)
	SyndromeRNRNAK       uint8 = 0x20 // RNR NAK (low 5 bits: timer)
	SyndromeNAKSeqErr    uint8 = 0x60 // NAK: PSN sequence error
	SyndromeNAKInvReq    uint8 = 0x61 // NAK: invalid request
	SyndromeNAKRemAccErr uint8 = 0x62 // NAK: remote access error
	SyndromeNAKRemOpErr  uint8 = 0x63 // NAK: remote operational error

	// SyndromeTerminate is not an AETH syndrome: it marks an iWARP
	// Terminate message (RFC 5040 §7), which lfsim carries as an
	// ACK-family packet (IWARPTerminateWire bytes on the wire).
	SyndromeTerminate uint8 = 0xFF
)
