package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// hostile is what issue 45's audit and its like put in the flags of
// lfsim sweep --emit: each tries to end a line (a command in the Slurm
// script, a key in the Job), run a command in the shell, or end the
// argument sbatch or YAML reads. A path takes those that are a file
// name's characters (pathOK); a resource, an image, a claim takes none.
var hostile = []struct {
	name   string
	v      string
	pathOK bool
}{
	{"newline", "x\necho INJECTED > pwned #", false},
	{"carriage return", "x\recho INJECTED > pwned #", false},
	{"NUL", "x\x00echo INJECTED > pwned", false},
	{"YAML line separator", "x\u2028injected: 1", false},
	{"NEL", "x\u0085injected: 1", false},
	{"tab", "x\tinjected", false},
	{"5000 bytes", strings.Repeat("a", 5000), false},
	{"semicolon", "x; echo INJECTED > pwned", true},
	{"$()", "$(echo INJECTED > pwned)", true},
	{"backticks", "`echo INJECTED > pwned`", true},
	{"single quotes", "x'; echo INJECTED > pwned; '", true},
	{"double quotes", `x"; echo INJECTED > pwned; "`, true},
	{"hash", "x # echo INJECTED > pwned", true},
	{"YAML key", "x: injected", true},
	{"YAML item", "- injected", true},
	{"YAML flow map", "{injected: 1}", true},
	{"backslash", `a\b\"c`, true},
	{"percent", "x%A%%y", true},
	{"Kubernetes $(VAR)", "x$(JOB_COMPLETION_INDEX)", true},
	{"Kubernetes $$", "x$$(HOME)$$y$", true},
}

// emitSetup writes a 3-point sweep (s.yaml on b.yaml) in a fresh
// folder and goes there; fake is a folder for fake binaries.
func emitSetup(t *testing.T) (dir, fake string) {
	dir = t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("b.yaml", []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("s.yaml", []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake = filepath.Join(dir, "bin")
	if err := os.Mkdir(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, fake
}

// sweepNamed copies s.yaml and b.yaml into folder sub as NAME.yaml, the
// sweep named NAME; false when the file system takes no such name.
func sweepNamed(t *testing.T, sub, name string) (string, bool) {
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.yaml", "s.yaml"} {
		data, _ := os.ReadFile(f)
		to := filepath.Join(sub, f)
		if f == "s.yaml" {
			to = filepath.Join(sub, name+".yaml")
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return filepath.Join(sub, name+".yaml"), false
		}
	}
	return filepath.Join(sub, name+".yaml"), true
}

// fakeLfsim writes an executable at p that writes its arguments,
// NUL-terminated, to $RECORD; false when p cannot be a file.
func fakeLfsim(p string) bool {
	return os.WriteFile(p, []byte("#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$RECORD\"\n"), 0o755) == nil
}

// sbatchArgs reads a script's options as sbatch does (Slurm's
// src/sbatch/opt.c, _opt_batch_script and get_argument): the lines that
// start with #SBATCH, up to the first line that is neither blank nor a
// comment, each split at unquoted blanks into arguments, where ' and "
// quote, a backslash makes the next character literal and an unquoted
// # ends the line; an unmatched quote is an error.
func sbatchArgs(t *testing.T, script string) []string {
	t.Helper()
	var args []string
	for _, line := range strings.Split(script, "\n") {
		rest, ok := strings.CutPrefix(line, "#SBATCH")
		if !ok {
			if s := strings.TrimLeft(line, " \t\v\f\r"); s != "" && s[0] != '#' {
				break
			}
			continue
		}
		var arg []byte
		have, esc, quoted := false, false, byte(0)
	scan:
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			switch {
			case esc:
				arg, have, esc = append(arg, c), true, false
			case c == '\\':
				esc = true
			case quoted != 0:
				if c == quoted {
					quoted = 0
				} else {
					arg, have = append(arg, c), true
				}
			case c == '"' || c == '\'':
				quoted = c
			case c == '#':
				break scan
			case strings.IndexByte(" \t\v\f\r", c) >= 0:
				if have {
					args = append(args, string(arg))
				}
				arg, have = arg[:0], false
			default:
				arg, have = append(arg, c), true
			}
		}
		if quoted != 0 {
			t.Errorf("sbatch: unmatched %c in %q", quoted, line)
		}
		if have {
			args = append(args, string(arg))
		}
	}
	return args
}

// pwned lists the files named pwned under root: a payload that ran.
func pwned(root string) []string {
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "pwned" {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// TestEmitSlurmHostile: every flag that goes into the Slurm script
// (--lfsim, --time, --mem, --partition, --account, -o and the sweep
// file, whose name names the job) given each hostile value. Each is
// refused, exit 2 with the flag named, or written so that bash -n
// reads the script, it has exactly the #SBATCH lines expected and
// sbatch reads from them exactly the arguments expected, and running
// the script (PATH a folder with only a fake lfsim) runs the fake with
// exactly the arguments expected and nothing else: no file named pwned
// appears. Issue 45: a newline in --partition ran a command.
func TestEmitSlurmHostile(t *testing.T) {
	bash := needTool(t, "bash")
	dir, fake := emitSetup(t)
	type row struct {
		name    string
		flag    string // as the error names it
		v       string
		args    []string // the command's arguments but --emit slurm
		ok      bool     // accepted
		exe     string   // the lfsim the script runs (accepted rows)
		file    string   // the sweep file, as given
		out     string   // -o, as given
		jobName string
		sbatch  string // the resource's #SBATCH argument, if any
	}
	var rows []row
	for i, h := range hostile {
		sub := fmt.Sprintf("c%02d", i)
		base := row{file: "s.yaml", exe: "lfsim", jobName: "lfsim-s", v: h.v}
		for _, f := range []string{"time", "mem", "partition", "account"} {
			r := base
			r.name, r.flag, r.out = "--"+f+" "+h.name, "--"+f, filepath.Join(sub, f)
			r.args = []string{r.file, "--output=" + r.out, "--" + f + "=" + h.v}
			rows = append(rows, r)
		}
		r := base
		r.name, r.flag, r.out, r.exe, r.ok = "--lfsim "+h.name, "--lfsim", filepath.Join(sub, "lfsim"), filepath.Join(fake, h.v), h.pathOK
		r.args = []string{r.file, "--output=" + r.out, "--lfsim=" + r.exe}
		rows = append(rows, r)
		r = base
		r.name, r.flag, r.out, r.ok = "-o "+h.name, "-o", filepath.Join(sub, "o", h.v), h.pathOK && !strings.Contains(h.v, `\`)
		r.args = []string{r.file, "--output=" + r.out}
		rows = append(rows, r)
		r = base
		r.name, r.flag, r.out, r.ok, r.jobName = "sweep file "+h.name, "the sweep file", filepath.Join(sub, "f-out"), h.pathOK, "lfsim-"+h.v
		r.file, _ = sweepNamed(t, filepath.Join(sub, "f"), h.v)
		r.args = []string{r.file, "--output=" + r.out}
		rows = append(rows, r)
	}
	// What sbatch takes, at the edges.
	for i, g := range []struct{ flag, v string }{
		{"time", "90"}, {"time", "30:00"}, {"time", "1:30:00"}, {"time", "2-12"}, {"time", "2-12:30"}, {"time", "2-12:30:00"},
		{"mem", "4096"}, {"mem", "512M"}, {"mem", "4G"}, {"mem", "1T"}, {"mem", "64k"},
		{"partition", "gpu"}, {"partition", "gpu,debug.2,long_q-1"}, {"partition", strings.Repeat("p", 255)}, {"account", "net-lab.2_x"},
	} {
		rows = append(rows, row{name: "--" + g.flag + " " + g.v, flag: "--" + g.flag, v: g.v, ok: true, exe: "lfsim", file: "s.yaml", jobName: "lfsim-s",
			out: fmt.Sprintf("good%02d", i), args: []string{"s.yaml", fmt.Sprintf("--output=good%02d", i), "--" + g.flag + "=" + g.v}, sbatch: "--" + g.flag + "=" + g.v})
	}
	for _, bad := range []struct{ flag, v string }{
		{"time", "1:2:3:4"}, {"time", "1-2-3"}, {"time", "1h"}, {"time", "-1"}, {"time", "UNLIMITED "}, {"time", "1234567890"},
		{"mem", "4GB"}, {"mem", "4Gi"}, {"mem", "-4G"}, {"mem", "4 G"}, {"mem", "1.5G"},
		{"partition", strings.Repeat("p", 256)}, {"partition", "a,,b"}, {"partition", "a b"}, {"partition", "a=b"}, {"account", "a,b"},
	} {
		rows = append(rows, row{name: "--" + bad.flag + " " + bad.v, flag: "--" + bad.flag, v: bad.v, out: "bad", args: []string{"s.yaml", "--output=bad", "--" + bad.flag + "=" + bad.v}})
	}

	// runTask runs the script as a task would, with only a fake lfsim
	// to find; it returns the fake's arguments and the files named
	// pwned.
	runTask := func(t *testing.T, script, exe string) (args []string, found []string) {
		run := t.TempDir()
		record := filepath.Join(run, "record")
		if exe == "lfsim" {
			exe = filepath.Join(fake, "lfsim")
		}
		if !fakeLfsim(exe) {
			t.Logf("cannot write the fake lfsim %q", exe)
		}
		cmd := exec.Command(bash, script)
		cmd.Dir = run
		cmd.Env = []string{"PATH=" + fake, "SLURM_ARRAY_TASK_ID=1", "RECORD=" + record}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Logf("running the script: %v\n%s", err, b)
		}
		data, _ := os.ReadFile(record)
		if len(data) > 0 {
			args = strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		}
		return args, append(pwned(dir), pwned(run)...)
	}

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var o, e bytes.Buffer
			code := Main(append([]string{"sweep", "--emit", "slurm"}, r.args...), &o, &e)
			out, _ := filepath.Abs(r.out)
			file := filepath.Join(out, "sweep.sbatch")
			script, readErr := os.ReadFile(file)
			if !r.ok {
				if code != exitUsage || !strings.Contains(e.String(), r.flag+" ") || !strings.Contains(e.String(), "want ") || readErr == nil {
					t.Errorf("want a refusal naming %s: exit %d, stderr %q, sweep.sbatch written: %v", r.flag, code, e.String(), readErr == nil)
				}
				if strings.ContainsAny(e.String(), "\r\x00") || strings.Count(e.String(), "\n") != 1 {
					t.Errorf("the refusal is not one line: %q", e.String())
				}
				if readErr == nil {
					if _, found := runTask(t, file, r.exe); len(found) > 0 {
						t.Errorf("running the script it wrote ran the payload: %q\n%s", found, script)
					}
				}
				return
			}
			if code != exitOK || readErr != nil {
				t.Fatalf("want it accepted: exit %d, %s, %v", code, e.String(), readErr)
			}
			if err := exec.Command(bash, "-n", file).Run(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, script)
			}
			lines := strings.Split(strings.TrimSuffix(string(script), "\n"), "\n")
			nSbatch, nCmd := 0, 0
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "#SBATCH "):
					nSbatch++
				case !strings.HasPrefix(l, "#"):
					nCmd++
				}
			}
			wantSbatch := 5
			if r.sbatch != "" {
				wantSbatch++
			}
			if nSbatch != wantSbatch || nCmd != 2 || len(lines) != 4+wantSbatch+2 {
				t.Errorf("want %d #SBATCH lines and 2 commands in %d lines, got %d and %d in %d:\n%s", wantSbatch, 4+wantSbatch+2, nSbatch, nCmd, len(lines), script)
			}
			absFile, _ := filepath.Abs(r.file)
			want := []string{"--job-name=" + r.jobName, "--array=0-2", "--ntasks=1", "--cpus-per-task=1"}
			if r.sbatch != "" {
				want = append(want, r.sbatch)
			}
			// Slurm expands % patterns in --output: %% is a %.
			want = append(want, "--output="+strings.ReplaceAll(filepath.Join(out, "slurm"), "%", "%%")+"/%A_%a.out")
			if got := sbatchArgs(t, string(script)); !reflect.DeepEqual(got, want) {
				t.Errorf("sbatch reads %q\nwant %q\n%s", got, want, script)
			}
			args, found := runTask(t, file, r.exe)
			if want := []string{"sweep", absFile, "-o", out, "--index", "1"}; !reflect.DeepEqual(args, want) {
				t.Errorf("lfsim ran with %q, want %q", args, want)
			}
			if len(found) > 0 {
				t.Errorf("the payload ran: %q", found)
			}
		})
	}
}

// TestEmitKubernetesHostile: every flag that goes into the Kubernetes
// Job (--lfsim, --mem, --image, --claim, --workdir, --parallelism, -o
// and the sweep file) given each hostile value. Each is refused, exit 2
// with the flag named, or written so that the Job parses into exactly
// the keys expected with the hostile value as it was given, and its
// three comment lines stay comments. Issue 45: a newline in -o added
// keys; --image, --claim and --workdir were not checked.
func TestEmitKubernetesHostile(t *testing.T) {
	emitSetup(t)
	type row struct {
		name, flag string
		args       []string // the command's arguments but --emit kubernetes
		ok         bool
		exe, image string
		claim, mem string
		work       string
		par        int
		file, out  string
	}
	good := row{exe: "lfsim", image: "lfsim:1", claim: "lfsim-work", work: "/work", par: 3, file: "s.yaml"}
	argsOf := func(r row) []string {
		a := []string{r.file, "--output=" + r.out, "--image=" + r.image}
		if r.exe != "lfsim" {
			a = append(a, "--lfsim="+r.exe)
		}
		if r.claim != "lfsim-work" {
			a = append(a, "--claim="+r.claim)
		}
		if r.work != "/work" {
			a = append(a, "--workdir="+r.work)
		}
		if r.mem != "" {
			a = append(a, "--mem="+r.mem)
		}
		return a
	}
	var rows []row
	for i, h := range hostile {
		sub := fmt.Sprintf("k%02d", i)
		for _, f := range []struct {
			flag string
			set  func(*row)
			ok   bool
		}{
			{"--lfsim", func(r *row) { r.exe = h.v }, h.pathOK},
			{"--mem", func(r *row) { r.mem = h.v }, false},
			{"--image", func(r *row) { r.image = h.v }, false},
			{"--claim", func(r *row) { r.claim = h.v }, false},
			{"--workdir", func(r *row) { r.work = "/" + h.v }, h.pathOK},
			{"-o", func(r *row) { r.out = filepath.Join(sub, "o", h.v) }, h.pathOK},
			{"the sweep file", func(r *row) { r.file, _ = sweepNamed(t, filepath.Join(sub, "f"), h.v) }, h.pathOK},
		} {
			r := good
			r.name, r.flag, r.ok, r.out = f.flag+" "+h.name, f.flag, f.ok, filepath.Join(sub, strings.TrimLeft(f.flag, "-"))
			f.set(&r)
			r.args = argsOf(r)
			rows = append(rows, r)
		}
	}
	for i, g := range []struct{ flag, v string }{
		{"--image", "registry.example.com:5000/team/lfsim:1.2-rc_3"},
		{"--image", "lfsim@sha256:" + strings.Repeat("0", 64)},
		{"--image", "[::1]:5000/lfsim:v1"},
		{"--claim", "lfsim-work.v2"},
		{"--mem", "1.5Gi"}, {"--mem", "4G"}, {"--mem", "512Mi"}, {"--mem", "129e6"},
		{"--workdir", "/"},
	} {
		r := good
		r.name, r.flag, r.ok, r.out = g.flag+" "+g.v, g.flag, true, fmt.Sprintf("good%02d", i)
		switch g.flag {
		case "--image":
			r.image = g.v
		case "--claim":
			r.claim = g.v
		case "--mem":
			r.mem = g.v
		case "--workdir":
			r.work = g.v
		}
		r.args = argsOf(r)
		rows = append(rows, r)
	}
	for _, bad := range []struct{ flag, v string }{
		{"--image", "Lfsim:1"}, {"--image", "lfsim:1 "}, {"--image", "lfsim@sha256:00"}, {"--image", ""}, {"--image", "a//b"},
		{"--claim", "Work"}, {"--claim", "-work"}, {"--claim", "work-"}, {"--claim", strings.Repeat("a", 254)}, {"--claim", ""},
		{"--mem", "-1Gi"}, {"--mem", "4 Gi"}, {"--mem", "4gi"}, {"--mem", "Gi"},
		{"--workdir", "work"}, {"--workdir", "./work"},
	} {
		r := good
		r.name, r.flag, r.out = bad.flag+" "+bad.v, bad.flag, "bad"
		r.args = append(argsOf(r), bad.flag+"="+bad.v)
		if bad.flag == "--image" && bad.v == "" {
			r.flag = "--image," // "needs --image, a container image"
		}
		rows = append(rows, r)
	}
	for _, p := range []struct {
		v    string
		ok   bool
		want int
	}{{"-1", false, 0}, {"0", true, 3}, {"2", true, 2}, {"9999999999", true, 3}} {
		r := good
		r.name, r.flag, r.ok, r.out, r.par = "--parallelism "+p.v, "--parallelism", p.ok, "par"+p.v, p.want
		r.args = append(argsOf(r), "--parallelism="+p.v)
		rows = append(rows, r)
	}

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var o, e bytes.Buffer
			code := Main(append([]string{"sweep", "--emit", "kubernetes"}, r.args...), &o, &e)
			data, readErr := os.ReadFile(filepath.Join(r.out, "sweep.job.yaml"))
			if !r.ok {
				if code != exitUsage || !strings.Contains(e.String(), r.flag+" ") || readErr == nil {
					t.Fatalf("want a refusal naming %s: exit %d, stderr %q, sweep.job.yaml written: %v", r.flag, code, e.String(), readErr == nil)
				}
				if strings.ContainsAny(e.String(), "\r\x00\u2028\u0085") || strings.Count(e.String(), "\n") != 1 {
					t.Errorf("the refusal is not one line: %q", e.String())
				}
				return
			}
			if code != exitOK || readErr != nil {
				t.Fatalf("want it accepted: exit %d, %s, %v", code, e.String(), readErr)
			}
			var got map[string]any
			if err := yaml.Unmarshal(data, &got); err != nil {
				t.Fatalf("sweep.job.yaml does not parse: %v\n%s", err, data)
			}
			// The command as the pod runs it: Kubernetes expands it.
			if c, ok := got["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any); ok {
				if cmd, ok := c["command"].([]any); ok {
					for i, a := range cmd {
						if s, ok := a.(string); ok {
							cmd[i] = k8sExpand(s, map[string]string{"JOB_COMPLETION_INDEX": "1"})
						}
					}
				}
			}
			name, _ := got["metadata"].(map[string]any)["name"].(string)
			if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).MatchString(name) || len(name) > 63 {
				t.Errorf("the Job's name %q is not a DNS-1123 label", name)
			}
			resources := map[string]any{"requests": map[string]any{"cpu": "1"}}
			if r.mem != "" {
				resources = map[string]any{"requests": map[string]any{"cpu": "1", "memory": r.mem}, "limits": map[string]any{"memory": r.mem}}
			}
			want := map[string]any{
				"apiVersion": "batch/v1",
				"kind":       "Job",
				"metadata":   map[string]any{"name": name, "labels": map[string]any{"app": "lfsim"}},
				"spec": map[string]any{
					"completionMode": "Indexed", "completions": 3, "parallelism": r.par, "backoffLimit": 3,
					"template": map[string]any{"spec": map[string]any{
						"restartPolicy": "OnFailure",
						"containers": []any{map[string]any{
							"name": "lfsim", "image": r.image,
							"command":      []any{r.exe, "sweep", path.Join(r.work, r.file), "-o", path.Join(r.work, r.out), "-q"},
							"volumeMounts": []any{map[string]any{"name": "work", "mountPath": r.work}},
							"resources":    resources,
						}},
						"volumes": []any{map[string]any{"name": "work", "persistentVolumeClaim": map[string]any{"claimName": r.claim}}},
					}},
				},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("sweep.job.yaml parses as\n%#v\nwant\n%#v\n%s", got, want, data)
			}
			comments := 0
			for _, l := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(l, "#") {
					comments++
				}
			}
			if comments != 3 || !bytes.HasPrefix(data, []byte("# lfsim sweep ")) || !strings.Contains(string(data), "\napiVersion: batch/v1\n") {
				t.Errorf("want 3 comment lines above apiVersion:\n%s", data)
			}
		})
	}
}

// k8sExpand is what Kubernetes makes of a container's command entry
// (k8s.io/kubernetes third_party/forked/golang/expansion, Expand): $(VAR)
// is VAR's value when env has it and left as is otherwise, $$ is $, and
// a $ before anything else stays.
func k8sExpand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch rest := s[i+1:]; {
		case rest[0] == '$':
			b.WriteByte('$')
			i++
		case rest[0] == '(' && strings.IndexByte(rest, ')') > 0:
			j := strings.IndexByte(rest, ')')
			if v, ok := env[rest[1:j]]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + rest[1:j] + ")")
			}
			i += 1 + j
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
