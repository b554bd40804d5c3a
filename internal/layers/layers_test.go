package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/lfsim/lfsim/"

// models are the simulation models: each may import the ones below it in
// this list's order only through sim and fabric (a model that needs to
// know about another takes an interface).
var models = []string{"sim", "fabric", "switch", "hca", "congestion", "multipath", "reports"}

// allowed says which of lfsim's packages each may import (non-test
// files). A folder not listed here must be added, with its place in the
// direction: cmd -> reproduce -> {sweep, bench/ceiling, metamorphic} -> assembly
// -> resolve -> {scenarios -> scenario, observe, programs} -> the models
// -> fabric -> sim, with programs -> cm -> hca (the connection manager
// above the HCA, which knows it only as QP1's owner, hca.GSIAgent).
var allowed = map[string][]string{
	"sim":        {},
	"fabric":     {"sim"},
	"switch":     {"sim", "fabric", "kind"},
	"hca":        {"sim", "fabric"},
	"congestion": {"sim", "fabric", "kind"},
	// UET's sprayers (entropy per packet), which the HCA knows through
	// hca.EntropySource.
	"multipath": {"sim", "fabric", "kind"},
	"reports":   {"sim", "fabric", "kind", "internal/userfile"},
	// The tables of kinds (congestion controls, load balancing, topology
	// generators, transports): what a model registers and the format reads, so that
	// neither imports the other. Value types (sim's times, fabric's rates
	// and sizes), and the fabric's Topology, which a generator builds.
	"kind": {"sim", "fabric"},
	// The topology generators' rows (their keys, sizes and build
	// functions, over fabric's generators), registered in kind's table
	// for the format to decode and resolve to call.
	"topologies":         {"sim", "fabric", "kind"},
	"internal/cacheline": {},
	"internal/layers":    {},
	// The checks on files a user names or a run's outputs read back: the
	// standard library only.
	"internal/userfile": {},
	// The docs' tables that tests write from the registered kinds
	// (congestion's and topologies' tests): the standard library only.
	"internal/docstable": {},
	// The JSON Schema tests' helpers (scenario's and sweep's tests).
	"internal/schematest": {},
	// The small network of HCAs around one switch that the models'
	// tests and lab 1's test run on.
	"internal/testnet": {"sim", "fabric", "switch", "hca"},
	// The format knows no model: only the value types below (valueTypes),
	// and the reader of a SONiC switch's configuration (switch.sonic).
	"scenario": {"sim", "fabric", "kind", "internal/userfile", "sonic"},
	// A SONiC config_db.json read into switch keys: a format reader,
	// the standard library and YAML only.
	"sonic": {},
	// MLCommons Chakra execution traces: a format reader over the
	// standard library and protobuf (and its schema's generated code),
	// which converts a trace into a job graph.
	"chakra":       {"chakra/etdef", "job", "collective", "sim"},
	"chakra/etdef": {},
	// The library of scenario files (examples, labs, the performance
	// suite) finds and lists them; of lfsim it knows the format only.
	"scenarios": {"scenario"},
	// Lab 1's skeleton: a student's verbs program uses the verbs (hca)
	// and time (sim) only.
	"scenarios/labs/first-verbs-program/pingpong": {"sim", "hca"},
	// The labs' checks of a student's program (lab 1's pingpong against
	// ibv_rc_pingpong on testnet's network), with the teacher's solutions
	// in its tests, out of the skeleton's folder.
	"internal/labcheck": {"sim", "fabric", "switch", "hca", "programs", "internal/testnet", "scenarios/labs/first-verbs-program/pingpong"},
	// The connection manager (rdma_cm, its MADs, the SA's path records,
	// SIDR) runs on the HCA through its exported verbs, as librdmacm and
	// the kernel's CM run on the verbs: nothing above the HCA, no other
	// model. The HCA must not import it.
	"cm": {"sim", "fabric", "hca"},
	// The rdma-core programs run on the HCA through its exported verbs
	// and rdma_cm, as the tools run on libibverbs and librdmacm: nothing
	// above them, no other model; of the tables, the transports' (what
	// perftest prints for one).
	"programs": {"sim", "fabric", "kind", "hca", "cm"},
	// The collectives' model (NCCL's rings, trees and protocols, a
	// rank's state machine) and a GPU server's scale-up domain: pure
	// models over the engine, which know no HCA (assembly carries their
	// steps) and no scenario file.
	"collective": {"sim", "fabric"},
	"scaleup":    {"sim", "fabric"},
	// A training job as a graph of compute, collectives and sends per
	// rank: pure data and its checks, over the collectives' operations;
	// the job generator, the trace readers and the runner make or run
	// one.
	"job": {"sim", "fabric", "collective"},
	// The observers read the models; they know no scenario file.
	"observe": append(slices.Clone(models), "internal/cacheline"),
	// Resolution: a decoded file (scenario; the library's by name,
	// scenarios) to the settings the models and observers take, with
	// their defaults; it builds nothing.
	"resolve": append(slices.Clone(models), "kind", "topologies", "scenario", "scenarios", "observe", "cm", "programs", "collective", "job", "chakra"),
	// Building and running: from a resolved Scenario, never from the
	// file's format.
	"assembly": append(slices.Clone(models), "kind", "resolve", "observe", "cm", "programs", "collective", "scaleup", "job", "internal/cacheline"),
	"sweep":    {"reports", "scenario", "scenarios", "resolve", "assembly"},
	// The reproductions of published results: their data (scenarios),
	// their runs (a sweep each), their measures over the runs' files and
	// their report (reports); fabric for the frames' sizes.
	"reproduce": {"fabric", "reports", "scenario", "scenarios", "sweep"},
	// The converter of lfsim's flows and fat trees into uet-htsim's
	// inputs (docs/RELIABILITY.md): files in, files out, the standard library
	// only.
	"scripts/uethtsim": {},
	// The random-scenario test: scenarios through the resolve and
	// assembly APIs, drawing the congestion controls from their table
	// (kind).
	"metamorphic":   {"kind", "resolve", "assembly", "reports", "collective"},
	"bench/ceiling": append(slices.Clone(models), "scenario", "observe", "resolve", "assembly", "internal/cacheline"),
	"cmd/lfsim":     append(slices.Clone(models), "scenario", "scenarios", "sonic", "observe", "cm", "programs", "resolve", "assembly", "sweep", "reproduce", "bench/ceiling"),
}

// valueTypes are the files whose declarations the format (scenario) may
// use from the packages it imports: units and times.
var valueTypes = map[string]string{"fabric": "fabric/units.go", "sim": "sim/time.go"}

// root is the module's folder.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", dir)
	}
	return dir
}

// imports returns, per package folder, the lfsim packages its non-test
// files import, with where each import is.
func imports(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if out[pkg] == nil {
			out[pkg] = map[string]string{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if ours, ok := strings.CutPrefix(p, module); ok {
				out[pkg][ours] = fset.Position(im.Pos()).String()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportDirection fails when a package imports one of lfsim's that
// its place in the direction does not allow, or when a package has no
// place yet.
func TestImportDirection(t *testing.T) {
	dir := root(t)
	for _, v := range violations(dir, imports(t, dir)) {
		t.Error(v)
	}
}

// violations says, for each package of all (its imports with where each
// is) that has no place in allowed or imports what its place does not
// allow, what is wrong, in package order.
func violations(dir string, all map[string]map[string]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(all)) {
		ims := all[pkg]
		ok, listed := allowed[pkg]
		if !listed {
			out = append(out, fmt.Sprintf("%s: a package with no place in the dependency direction; add it to allowed in internal/layers/layers_test.go (and to the README's layout)", pkg))
			continue
		}
		for _, im := range slices.Sorted(maps.Keys(ims)) {
			if at := ims[im]; !slices.Contains(ok, im) {
				rel, _ := filepath.Rel(dir, at)
				out = append(out, fmt.Sprintf("%s: %s imports %s, which it must not (it may import %s)", rel, pkg, im, strings.Join(ok, ", ")))
			}
		}
	}
	return out
}

// TestViolations: the check refuses an import against the direction (a
// model importing the programs above it, the HCA importing the
// connection manager above it, the connection manager importing what is
// above it or a model other than the HCA, a program importing what is
// above it or another model, the format importing a model, resolution
// importing the building above it, building reading the format) and a
// package with no place, and lets the allowed ones through.
func TestViolations(t *testing.T) {
	for _, c := range []struct {
		pkg, imports string
		refused      bool
	}{
		{"hca", "programs", true},
		{"hca", "cm", true},
		{"fabric", "cm", true},
		{"cm", "programs", true},
		{"cm", "assembly", true},
		{"cm", "switch", true},
		{"cm", "congestion", true},
		{"scenario", "cm", true},
		{"fabric", "programs", true},
		{"programs", "assembly", true},
		{"programs", "scenario", true},
		{"programs", "switch", true},
		{"scenario", "hca", true},
		{"scenario", "scenarios", true},
		{"scenarios", "assembly", true},
		{"scenarios", "hca", true},
		{"scenario", "congestion", true},
		{"kind", "congestion", true},
		{"kind", "scenario", true},
		{"scenario", "kind", false},
		{"congestion", "kind", false},
		{"nowhere", "sim", true},
		{"resolve", "assembly", true},
		{"resolve", "sweep", true},
		{"assembly", "scenario", true},
		{"observe", "resolve", true},
		{"programs", "hca", false},
		{"programs", "fabric", false},
		{"programs", "cm", false},
		{"cm", "hca", false},
		{"assembly", "cm", false},
		{"assembly", "programs", false},
		{"assembly", "resolve", false},
		{"resolve", "scenario", false},
		{"resolve", "observe", false},
		{"cmd/lfsim", "programs", false},
		{"scenarios", "scenario", false},
		{"resolve", "scenarios", false},
		{"assembly", "scenarios", true},
	} {
		at := "/m/" + c.pkg + "/x.go:3:2"
		got := violations("/m", map[string]map[string]string{c.pkg: {c.imports: at}})
		if refused := len(got) > 0; refused != c.refused {
			t.Errorf("%s importing %s: refused %v (%q), want %v", c.pkg, c.imports, refused, got, c.refused)
		}
	}
}

// TestFormatUsesValueTypesOnly: the scenario format may import fabric and
// sim for their value types (sizes, rates, times) and nothing else of
// them: no topology, port or packet.
func TestFormatUsesValueTypesOnly(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	declared := map[string]map[string]bool{}
	for pkg, file := range valueTypes {
		f, err := parser.ParseFile(fset, filepath.Join(dir, file), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		declared[pkg] = map[string]bool{}
		for name, obj := range f.Scope.Objects {
			if ast.IsExported(name) && obj.Kind != ast.Bad {
				declared[pkg][name] = true
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "scenario", "*.go"))
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		// The names this file gives fabric and sim (an alias, or the
		// package's own name).
		local := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			pkg, ours := strings.CutPrefix(p, module)
			if _, valueTypes := declared[pkg]; !ours || !valueTypes {
				continue
			}
			name := pkg
			if im.Name != nil {
				name = im.Name.Name
			}
			switch name {
			case ".":
				t.Errorf("%s: a dot import of %s; the format names what it uses of it, as in %s", rel, pkg, map[string]string{"fabric": "fabric.Size", "sim": "sim.Time"}[pkg])
			case "_":
			default:
				local[name] = pkg
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || x.Obj != nil { // a local name, not a package
				return true
			}
			if pkg, ours := local[x.Name]; ours && !declared[pkg][sel.Sel.Name] {
				at, _ := filepath.Rel(dir, fset.Position(sel.Pos()).String())
				t.Errorf("%s: the scenario format uses %s.%s; it may use only the value types of %s", at, pkg, sel.Sel.Name, valueTypes[pkg])
			}
			return true
		})
	}
}
