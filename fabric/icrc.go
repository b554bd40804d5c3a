package fabric

// ICRCBytes is the invariant CRC that ends every RoCEv2 payload
// (IBTA vol. 1, 7.8.1; RoCEv2 annex A17).
const ICRCBytes = 4

// CNPReservedBytes is the reserved field that follows the BTH of a RoCEv2
// CNP (annex A17.9.2).
const CNPReservedBytes = 16
