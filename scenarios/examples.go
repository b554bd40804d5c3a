package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/scenario"
	"gopkg.in/yaml.v3"
)

//go:embed examples/*.yaml examples/*/sweep.yaml examples/*/config_db.json examples/*/*.csv examples/chakra-microbenchmarks/*/*/*.et examples/chakra-dp-overlap/*.et
var exampleFS embed.FS

func init() { scenario.LibraryFile = libraryFile }

// libraryFile is a file of the library that a built-in scenario names
// (switch.sonic's config_db.json), by the name the scenario's folder and
// the file's make ("examples/sonic-dell-s6100/config_db.json").
func libraryFile(name string) ([]byte, bool) {
	clean := path.Clean(name)
	if clean != name || strings.HasPrefix(clean, "../") {
		return nil, false
	}
	for _, fsys := range []embed.FS{exampleFS, labFS} {
		if data, err := fsys.ReadFile(clean); err == nil {
			return data, true
		}
	}
	return nil, false
}

// DefaultExample is the example `lfsim run` uses when given no scenario.
const DefaultExample = "incast-8to1"

// Example is one built-in scenario.
type Example struct {
	Name        string // the file name without .yaml, e.g. "incast-8to1"
	Description string // its description: line
	File        string // its file name, e.g. "incast-8to1.yaml"
}

// Examples lists the built-in scenarios, sorted by name.
func Examples() []Example {
	entries, err := fs.ReadDir(exampleFS, "examples")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []Example
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, _ := exampleFS.ReadFile("examples/" + e.Name())
		var head struct {
			Description string `yaml:"description"`
		}
		_ = yaml.Unmarshal(data, &head) // the tests check that every example loads
		out = append(out, Example{Name: strings.TrimSuffix(e.Name(), ".yaml"), Description: head.Description, File: e.Name()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ExampleSource returns the YAML text of a built-in example, of a lab's
// scenario named labs/LAB/SCENARIO, or of a reproduction's named
// reproduce/NAME/SCENARIO.
func ExampleSource(name string) ([]byte, error) {
	if _, data, ok, err := labSource(name); ok {
		return data, err
	}
	if _, data, ok, err := reproduceSource(name); ok {
		return data, err
	}
	base := strings.TrimSuffix(name, ".yaml")
	if base == "" || strings.ContainsAny(base, `/\`) {
		return nil, &unknownExampleError{name}
	}
	data, err := exampleFS.ReadFile("examples/" + base + ".yaml")
	if err != nil {
		return nil, &unknownExampleError{name}
	}
	return data, nil
}

// ExampleFile returns a built-in example's text by name (with or without
// .yaml), a lab scenario's by labs/LAB/SCENARIO, or a reproduction's by
// reproduce/NAME/SCENARIO, with the name that messages give it:
// "examples/NAME.yaml", "labs/LAB/SCENARIO.yaml" or
// "reproduce/NAME/SCENARIO.yaml".
func ExampleFile(name string) (file string, data []byte, err error) {
	if file, data, ok, err := labSource(name); ok {
		return file, data, err
	}
	if file, data, ok, err := reproduceSource(name); ok {
		return file, data, err
	}
	data, err = ExampleSource(name)
	if err != nil {
		return "", nil, err
	}
	return path.Join("examples", strings.TrimSuffix(name, ".yaml")+".yaml"), data, nil
}

// SweepExample returns a built-in sweep's text by name (with or without
// .yaml; examples/NAME/sweep.yaml), with the name messages give it, and
// whether there is one.
func SweepExample(name string) (file string, data []byte, ok bool) {
	base := strings.TrimSuffix(name, ".yaml")
	if base == "" || strings.ContainsAny(base, `/\`) {
		return "", nil, false
	}
	file = path.Join("examples", base, "sweep.yaml")
	data, err := exampleFS.ReadFile(file)
	return file, data, err == nil
}

// SweepExamples lists the built-in sweeps' names, sorted.
func SweepExamples() []string {
	entries, _ := fs.ReadDir(exampleFS, "examples")
	var out []string
	for _, e := range entries {
		if _, err := fs.Stat(exampleFS, "examples/"+e.Name()+"/sweep.yaml"); e.IsDir() && err == nil {
			out = append(out, e.Name()) // a folder of an example's files is not a sweep
		}
	}
	return out
}

func exampleNames() []string {
	var names []string
	for _, e := range Examples() {
		names = append(names, e.Name)
	}
	return names
}

type unknownExampleError struct{ name string }

// Error names what the name may have meant: a lab (whose scenarios
// run as labs/LAB/NAME), the example nearest to it (scenario.Suggest),
// or else the examples that have a word near one of its words
// (deadlok: the deadlock-* examples); then every example.
func (e *unknownExampleError) Error() string {
	names := exampleNames()
	base := strings.TrimSuffix(path.Base(e.name), ".yaml")
	for _, l := range Labs() {
		if l.Name == base {
			return fmt.Sprintf("no file or example named %s; %s is a lab (lfsim lab %s); its scenarios run as labs/%s/NAME: %s",
				scenario.Show(e.name), l.Name, l.Name, l.Name, strings.Join(l.Scenarios, ", "))
		}
	}
	hint := scenario.DidYouMean(base, names)
	if hint == "" {
		if near := byWord(base, names); len(near) > 0 {
			hint = " (did you mean one of " + strings.Join(near, ", ") + "?)"
		}
	}
	return fmt.Sprintf("no file or example named %s%s; examples are %s", scenario.Show(e.name), hint, strings.Join(names, ", "))
}

// byWord lists the names with a word (between hyphens) that
// scenario.Suggest finds near a word of name of four letters or more.
func byWord(name string, names []string) []string {
	var out []string
	for _, n := range names {
		words := strings.Split(n, "-")
		for _, w := range strings.Split(name, "-") {
			if len([]rune(w)) < 4 {
				continue
			}
			if _, ok := scenario.Suggest(w, words); ok {
				out = append(out, n)
				break
			}
		}
	}
	return out
}
