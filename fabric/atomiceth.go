package fabric

// AtomicETHBytes is the Atomic Extended Transport Header: virtual address
// (8), remote key (4), swap or add data (8), compare data (8)
// (IBTA vol. 1, 9.3.4).
const AtomicETHBytes = 28

// AtomicAckETHBytes is the Atomic ACK Extended Transport Header: the
// original remote data (8) (IBTA vol. 1, 9.3.7).
const AtomicAckETHBytes = 8
