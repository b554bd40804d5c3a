package scenarios

import (
	"embed"
	"io/fs"
)

//go:embed bench/*.yaml
var benchFS embed.FS

// Bench is the performance suite's scenarios (bench/*.yaml, at its root:
// NAME.yaml), embedded so that `lfsim bench` runs them from any
// directory. The diagnostic scenarios of bench/diag/ are not embedded:
// they run from the repository (`lfsim bench --dir scenarios/bench/diag`).
var Bench = func() fs.FS {
	sub, err := fs.Sub(benchFS, "bench")
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}()
