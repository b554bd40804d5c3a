package resolve

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
)

// LoadExample loads a built-in example by name (with or without .yaml),
// or a lab's scenario by labs/LAB/SCENARIO. Messages name it
// "examples/NAME.yaml" or "labs/LAB/SCENARIO.yaml".
func LoadExample(name string) (*Scenario, error) {
	file, data, err := scenarios.ExampleFile(name)
	if err != nil {
		return nil, err
	}
	return ParseLibrary(file, data)
}

// ParseLibrary is Parse for a scenario of the embedded library (a
// built-in example, a lab's scenario, by the text ExampleFile gives): a
// file it names that is not on disk is read from the library
// (scenario.DecodeLibrary).
func ParseLibrary(file string, data []byte) (*Scenario, error) {
	root, err := scenario.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	return parseNode(file, root, DefaultLimits, true)
}

// LoadNamed loads arg as a file path if such a file exists, and otherwise
// as the name of a built-in example. If neither exists, the error lists
// the examples, with a did-you-mean.
func LoadNamed(arg string) (*Scenario, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return Load(arg)
	} else if err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a folder; expected a scenario file or the name of an example", arg)
	}
	if _, err := scenarios.ExampleSource(arg); err != nil {
		return nil, err
	}
	return LoadExample(arg)
}

// Load reads and validates a scenario file (a regular file of at most
// scenario.MaxScenarioBytes).
func Load(path string) (*Scenario, error) {
	data, err := scenario.ReadFile(path, "scenario file", scenario.MaxScenarioBytes)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads and validates a scenario from data; file names the source
// in messages. On any error it returns nil and an Errors holding every
// problem it could find, sorted by position.
func Parse(file string, data []byte) (*Scenario, error) {
	return ParseLimits(file, data, DefaultLimits)
}

// ParseLimits is Parse under the limits lim (a fuzzer keeps its
// fabrics small with its own).
func ParseLimits(file string, data []byte, lim Limits) (*Scenario, error) {
	if file == "" {
		file = "<input>"
	}
	root, err := scenario.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	return parseNode(file, root, lim, false)
}

// ParseNode validates a scenario given as its YAML tree (root, as
// scenario.ParseYAML returns it; nil: an empty file), under the limits
// of Parse. A sweep edits the tree of its base and loads each point here;
// library says the tree is a scenario of the embedded library's
// (ParseLibrary).
func ParseNode(file string, root *yaml.Node, library bool) (*Scenario, error) {
	return parseNode(file, root, DefaultLimits, library)
}

// parseNode is ParseNode under the limits lim.
func parseNode(file string, root *yaml.Node, lim Limits, library bool) (*Scenario, error) {
	decode := scenario.Decode
	if library {
		decode = scenario.DecodeLibrary
	}
	f, d := decode(file, root, lim.Nodes)
	s := build(d, f, lim)
	if err := d.Err(); err != nil {
		return nil, err
	}
	s.Warnings = d.Warnings()
	s.Inputs = d.Inputs()
	return s, nil
}
