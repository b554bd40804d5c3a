package assembly

import (
	"fmt"
	"os"

	"github.com/lfsim/lfsim/scenario"
)

// LoadExample loads a built-in example by name (with or without .yaml),
// or a lab's scenario by labs/LAB/SCENARIO. Messages name it
// "examples/NAME.yaml" or "labs/LAB/SCENARIO.yaml".
func LoadExample(name string) (*Scenario, error) {
	file, data, err := scenario.ExampleFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
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
	if _, err := scenario.ExampleSource(arg); err != nil {
		return nil, err
	}
	return LoadExample(arg)
}
