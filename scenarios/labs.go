package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/scenario"
)

// Labs are teaching exercises (SCENARIO.md, "Labs"): a folder under
// labs/ with a README.md (a prediction, what to observe, questions, what to change) and
// scenarios whose expect: sections hold the phenomenon the lab teaches,
// so that the tests check every lab. A lab's scenario runs by the name
// labs/LAB/SCENARIO.
//
//go:embed labs
var labFS embed.FS

// Lab is one built-in lab.
type Lab struct {
	Name      string   // the folder, e.g. "pfc-head-of-line"
	Title     string   // the README's first heading
	Scenarios []string // names to run, e.g. "labs/pfc-head-of-line/pfc", sorted
}

// Labs lists the built-in labs in the course's order (Course), then any
// other by name.
func Labs() []Lab {
	dirs, err := fs.ReadDir(labFS, "labs")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []Lab
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		l := Lab{Name: d.Name()}
		readme, _ := LabREADME(l.Name) // the tests check that every lab has one
		for _, line := range strings.Split(readme, "\n") {
			if t, ok := strings.CutPrefix(line, "# "); ok {
				l.Title = strings.TrimSpace(t)
				break
			}
		}
		files, _ := fs.ReadDir(labFS, "labs/"+l.Name)
		for _, f := range files {
			if name, ok := strings.CutSuffix(f.Name(), ".yaml"); ok && !f.IsDir() {
				l.Scenarios = append(l.Scenarios, "labs/"+l.Name+"/"+name)
			}
		}
		sort.Strings(l.Scenarios)
		out = append(out, l)
	}
	rank := func(name string) int {
		for i, c := range Course {
			if c.Name == name {
				return i
			}
		}
		return len(Course)
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Name) < rank(out[j].Name) })
	return out
}

// LabREADME returns a lab's README.md.
func LabREADME(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", labError(name)
	}
	data, err := labFS.ReadFile("labs/" + name + "/README.md")
	if err != nil {
		return "", labError(name)
	}
	return string(data), nil
}

// LabAnswers returns a lab's teacher's notes (ANSWERS.md: the answers to
// its README's questions, kept apart from the student's text).
func LabAnswers(name string) (string, error) {
	if _, err := LabREADME(name); err != nil {
		return "", err
	}
	data, err := labFS.ReadFile("labs/" + name + "/ANSWERS.md")
	if err != nil {
		return "", fmt.Errorf("lab %s has no teacher's notes", name)
	}
	return string(data), nil
}

func labError(name string) error {
	var names []string
	for _, l := range Labs() {
		names = append(names, l.Name)
	}
	return fmt.Errorf("no lab named %s%s; labs are %s", scenario.Show(name), scenario.DidYouMean(name, names), strings.Join(names, ", "))
}

// labSource returns the file name and YAML text of a lab scenario named
// labs/LAB/SCENARIO (with or without .yaml); ok is false when name is not
// of that form.
func labSource(name string) (file string, data []byte, ok bool, err error) {
	rest, isLab := strings.CutPrefix(name, "labs/")
	if !isLab {
		return "", nil, false, nil
	}
	lab, scen, found := strings.Cut(strings.TrimSuffix(rest, ".yaml"), "/")
	if !found || lab == "" || scen == "" || strings.ContainsAny(scen, `/\`) || lab == ".." || scen == ".." {
		return "", nil, true, fmt.Errorf("%s: a lab's scenario is named labs/LAB/SCENARIO", scenario.Show(name))
	}
	file = path.Join("labs", lab, scen+".yaml")
	data, err = labFS.ReadFile(file)
	if err != nil {
		if _, rerr := LabREADME(lab); rerr != nil {
			return "", nil, true, rerr
		}
		var scens []string
		for _, l := range Labs() {
			if l.Name == lab {
				scens = l.Scenarios
			}
		}
		return "", nil, true, fmt.Errorf("lab %s has no scenario %s%s; its scenarios are %s", lab, scenario.Show(scen), scenario.DidYouMean("labs/"+lab+"/"+scen, scens), strings.Join(scens, ", "))
	}
	return file, data, true, nil
}
