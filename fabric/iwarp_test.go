package fabric

import "testing"

// TestIWARPWire: iWARP's segment and ACK sizes, header by header (RFC
// 5040 §4, RFC 5041 §5, RFC 5044 §4; TCP 20 B, IPv4 20 B, Ethernet 14 B
// and FCS 4 B, preamble and gap 20 B).
func TestIWARPWire(t *testing.T) {
	crc := MPA{CRC: true}
	for _, tc := range []struct {
		name string
		got  int
		want int
	}{
		// 20 + 14 + 20 + 20 + (2 + 14 + 4096 → 4112) + 4 + 4
		{"WRITE 4096, CRC", IWARPWire(OpWriteMiddle, 4096, crc, false), 4194},
		{"WRITE 4096, no CRC", IWARPWire(OpWriteMiddle, 4096, MPA{}, false), 4190},
		{"WRITE 4096, CRC, timestamps", IWARPWire(OpWriteMiddle, 4096, crc, true), 4206},
		// untagged: 2 + 18 + 4096 = 4116, CRC 4
		{"SEND 4096, CRC", IWARPWire(OpSendMiddle, 4096, crc, false), 4198},
		// 2 + 18 + 1 = 21, padded to 24, CRC 4: 28; frame 14 + 20 + 20 + 28 + 4 = 86
		{"SEND 1, CRC", IWARPWire(OpSendOnly, 1, crc, false), 106},
		// READ request: 2 + 18 + 28 = 48, CRC 4: 52; frame 110
		{"READ request", IWARPWire(OpReadRequest, 0, crc, false), 130},
		// markers: 4112 + 4 = 4116 bytes of FPDU meet 8 markers (one per 508)
		{"WRITE 4096, CRC, markers", IWARPWire(OpWriteMiddle, 4096, MPA{CRC: true, Markers: true}, false), 4194 + 32},
		{"ACK", TCPAckWire(false, false), 84},
		{"ACK with SACK", TCPAckWire(false, true), 90},
		{"ACK with timestamps and SACK", TCPAckWire(true, true), 102},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d bytes on the wire, want %d", tc.name, tc.got, tc.want)
		}
	}
	if RoCEv2Wire(OpWriteMiddle, 4096)+16 != IWARPWire(OpWriteMiddle, 4096, crc, false) {
		t.Error("an iWARP WRITE segment of 4096 bytes is 16 bytes longer than RoCEv2's WRITE Middle")
	}
}
