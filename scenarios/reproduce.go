package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/lfsim/lfsim/scenario"
)

// reproduceFS holds the reproductions' files: each reproduction's folder
// reproduce/NAME/ has sweep.yaml (its runs: a sweep whose bases are
// examples or its own scenarios), published.yaml (the published points,
// their sources and tolerances) and its own scenarios.
//
//go:embed reproduce
var reproduceFS embed.FS

// ReproduceFile returns a file of reproduction name's folder
// (reproduce/NAME/FILE), with the name messages give it.
func ReproduceFile(name, file string) (string, []byte, error) {
	if name == "" || file == "" || strings.ContainsAny(name+file, `/\`) || name == ".." || file == ".." {
		return "", nil, fmt.Errorf("%s/%s: a reproduction's file is named reproduce/NAME/FILE", scenario.Show(name), scenario.Show(file))
	}
	p := path.Join("reproduce", name, file)
	data, err := reproduceFS.ReadFile(p)
	if err != nil {
		entries, derr := fs.ReadDir(reproduceFS, path.Join("reproduce", name))
		if derr != nil {
			return "", nil, fmt.Errorf("%s: no reproduction named %s%s; they are %s", p, scenario.Show(name), scenario.DidYouMean(name, ReproduceFolders()), strings.Join(ReproduceFolders(), ", "))
		}
		var files []string
		for _, e := range entries {
			files = append(files, e.Name())
		}
		return "", nil, fmt.Errorf("%s: reproduction %s has no file %s; its files are %s", p, name, scenario.Show(file), strings.Join(files, ", "))
	}
	return p, data, nil
}

// ReproduceFolders lists the folders of reproduce/, sorted (a test holds
// each to a registered reproduction).
func ReproduceFolders() []string {
	entries, err := fs.ReadDir(reproduceFS, "reproduce")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// reproduceSource is a reproduction's scenario named
// reproduce/NAME/SCENARIO (ok says the name has that form).
func reproduceSource(name string) (file string, data []byte, ok bool, err error) {
	rest, is := strings.CutPrefix(name, "reproduce/")
	if !is {
		return "", nil, false, nil
	}
	repro, scen, found := strings.Cut(strings.TrimSuffix(rest, ".yaml"), "/")
	if !found {
		return "", nil, true, fmt.Errorf("%s: a reproduction's scenario is named reproduce/NAME/SCENARIO", scenario.Show(name))
	}
	file, data, err = ReproduceFile(repro, scen+".yaml")
	return file, data, true, err
}
