package bench

import "embed"

// Files is the performance suite's scenarios (*.yaml), embedded so that
// `lfsim bench` runs them from any directory.
//
//go:embed *.yaml
var Files embed.FS
