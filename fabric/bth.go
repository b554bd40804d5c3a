package fabric

import "fmt"

// BTHBytes is the InfiniBand Base Transport Header (IBTA spec vol. 1, 9.2).
const BTHBytes = 12

// Opcode is the BTH opcode: the top three bits give the transport (RC, UC,
// RD, UD, CNP), the low five the operation (IBTA vol. 1, table 38).
type Opcode uint8

// Transport prefixes of the opcode.
const (
	TransportRC  Opcode = 0x00
	TransportUC  Opcode = 0x20
	TransportUD  Opcode = 0x60
	TransportCNP Opcode = 0x80
)

// RC opcodes; UC uses the same low bits under TransportUC, UD only SEND_ONLY.
const (
	OpSendFirst          Opcode = 0x00
	OpSendMiddle         Opcode = 0x01
	OpSendLast           Opcode = 0x02
	OpSendLastImm        Opcode = 0x03
	OpSendOnly           Opcode = 0x04
	OpSendOnlyImm        Opcode = 0x05
	OpWriteFirst         Opcode = 0x06
	OpWriteMiddle        Opcode = 0x07
	OpWriteLast          Opcode = 0x08
	OpWriteLastImm       Opcode = 0x09
	OpWriteOnly          Opcode = 0x0A
	OpWriteOnlyImm       Opcode = 0x0B
	OpReadRequest        Opcode = 0x0C
	OpReadResponseFirst  Opcode = 0x0D
	OpReadResponseMiddle Opcode = 0x0E
	OpReadResponseLast   Opcode = 0x0F
	OpReadResponseOnly   Opcode = 0x10
	OpAcknowledge        Opcode = 0x11
	OpAtomicAcknowledge  Opcode = 0x12
	OpCompareSwap        Opcode = 0x13
	OpFetchAdd           Opcode = 0x14
	// OpCNP is the RoCEv2 congestion notification packet (RoCEv2 annex A17).
	OpCNP Opcode = 0x81
)

var opNames = map[Opcode]string{
	OpSendFirst: "SEND First", OpSendMiddle: "SEND Middle", OpSendLast: "SEND Last",
	OpSendLastImm: "SEND Last with Immediate", OpSendOnly: "SEND Only",
	OpSendOnlyImm: "SEND Only with Immediate", OpWriteFirst: "RDMA WRITE First",
	OpWriteMiddle: "RDMA WRITE Middle", OpWriteLast: "RDMA WRITE Last",
	OpWriteLastImm: "RDMA WRITE Last with Immediate", OpWriteOnly: "RDMA WRITE Only",
	OpWriteOnlyImm: "RDMA WRITE Only with Immediate", OpReadRequest: "RDMA READ Request",
	OpReadResponseFirst: "RDMA READ Response First", OpReadResponseMiddle: "RDMA READ Response Middle",
	OpReadResponseLast: "RDMA READ Response Last", OpReadResponseOnly: "RDMA READ Response Only",
	OpAcknowledge: "Acknowledge", OpAtomicAcknowledge: "Atomic Acknowledge",
	OpCompareSwap: "CmpSwap", OpFetchAdd: "FetchAdd",
}

// String names the opcode as Wireshark's RoCE dissector does, with the
// transport in front: "RC RDMA WRITE First".
func (o Opcode) String() string {
	if o == OpCNP {
		return "CNP"
	}
	tr := map[Opcode]string{TransportRC: "RC", TransportUC: "UC", TransportUD: "UD"}[o&0xE0]
	if name, ok := opNames[o&0x1F]; ok && tr != "" {
		return tr + " " + name
	}
	return fmt.Sprintf("opcode 0x%02x", uint8(o))
}

// Operation returns the opcode without its transport bits.
func (o Opcode) Operation() Opcode { return o & 0x1F }

// ExtHeaderBytes returns the extended transport headers that follow the
// BTH for this opcode (IBTA vol. 1, 9.3 and table 38): RETH on the first
// WRITE packet and READ requests, ImmDt with immediate data, AETH on ACKs
// and READ responses that carry one, AtomicETH on atomics, AtomicAckETH
// after the AETH of an atomic ACK, DETH on every UD packet.
func (o Opcode) ExtHeaderBytes() int {
	n := 0
	if o&0xE0 == TransportUD {
		n += DETHBytes
	}
	switch o.Operation() {
	case OpSendLastImm, OpSendOnlyImm, OpWriteLastImm:
		n += ImmDtBytes
	case OpWriteFirst, OpWriteOnly, OpReadRequest:
		n += RETHBytes
	case OpWriteOnlyImm:
		n += RETHBytes + ImmDtBytes
	case OpReadResponseFirst, OpReadResponseLast, OpReadResponseOnly, OpAcknowledge:
		n += AETHBytes
	case OpAtomicAcknowledge:
		n += AETHBytes + AtomicAckETHBytes
	case OpCompareSwap, OpFetchAdd:
		n += AtomicETHBytes
	}
	if o == OpCNP {
		n = CNPReservedBytes
	}
	return n
}
