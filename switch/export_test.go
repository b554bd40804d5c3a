package swtch

// AddSlots gives the priorities of mask slots now (slots.go), for tests
// that lay a running switch's state out again.
func (s *Switch) AddSlots(mask uint8) { s.addSlots(mask) }

// SlotMask is the priorities with a slot.
func (s *Switch) SlotMask() uint8 { return s.slotMask }
