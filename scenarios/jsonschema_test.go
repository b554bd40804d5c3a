package scenarios

import (
	"os"
	"path"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/internal/schematest"
	"github.com/lfsim/lfsim/scenario"
)

// TestJSONSchemaAcceptsEveryExample: every built-in example and every
// lab's scenario validates against the schema, and starts with the
// yaml-language-server comment that points an editor at it, a path
// that reaches the committed schema from the file's folder.
func TestJSONSchemaAcceptsEveryExample(t *testing.T) {
	s := schematest.Compile(t, scenario.SchemaID, scenario.JSONSchema())
	var names []string
	for _, e := range Examples() {
		names = append(names, e.Name)
	}
	for _, l := range Labs() {
		names = append(names, l.Scenarios...)
	}
	if len(names) < 40 {
		t.Fatalf("only %d examples and lab scenarios", len(names))
	}
	for _, name := range names {
		file, src, err := ExampleFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(schematest.YAML(t, src)); err != nil {
			t.Errorf("%s does not validate: %v", name, err)
		}
		want := "# yaml-language-server: $schema=" + schemaRef(name) + "\n"
		if !strings.HasPrefix(string(src), want) {
			t.Errorf("%s does not start with %q", name, strings.TrimSpace(want))
		}
		if _, err := os.Stat(path.Join(path.Dir(file), schemaRef(name))); err != nil {
			t.Errorf("%s: its schema is not where its first line says: %v", file, err)
		}
	}
}

// schemaRef is where an example or lab scenario finds the schema file,
// relative to itself: scenarios/scenario.schema.json.
func schemaRef(name string) string {
	if strings.HasPrefix(name, "labs/") {
		return "../../scenario.schema.json"
	}
	return "../scenario.schema.json"
}
