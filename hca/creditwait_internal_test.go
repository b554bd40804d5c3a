package hca

// Every test of the package checks each RCCC request's count of the QPs
// waiting to send, kept as they change, against the scan of the
// transmit rings (creditActive).
func init() { creditCheck = true }
