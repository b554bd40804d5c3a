// Package layers holds lfsim's dependency direction as a test: which of
// its packages each package may import (README, "Layout"), and that the
// scenario format uses only the value types of the models (sizes, rates
// and times). It has no code: its test reads the tree's imports.
//
// Test files are not held to the direction: an external test may use a
// package above the one it tests (observe's detector test builds a
// network with assembly), which no code of the package itself can.
package layers
