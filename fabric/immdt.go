package fabric

// ImmDtBytes is the Immediate Data header (IBTA vol. 1, 9.3.6).
const ImmDtBytes = 4
