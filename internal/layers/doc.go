// Package layers holds lfsim's dependency direction as a test: which of
// its packages each package may import (README, "Layout"), and that the
// scenario format uses only the value types of the models (sizes, rates
// and times). It has no code: its test reads the tree's imports.
package layers
