package fabric

// DETHBytes is the Datagram Extended Transport Header of UD: Q_Key (4) and
// source QP (4) (IBTA vol. 1, 9.3.2).
const DETHBytes = 8
