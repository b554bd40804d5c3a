package fabric

// RETHBytes is the RDMA Extended Transport Header: virtual address (8),
// remote key (4) and DMA length (4) (IBTA vol. 1, 9.3.3).
const RETHBytes = 16
