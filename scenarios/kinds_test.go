package scenarios

// The congestion controls register themselves in the table (kind.CCs)
// that hca.cc and hca:'s parameter keys are read from; the library's
// files name them.
import _ "github.com/lfsim/lfsim/congestion"
