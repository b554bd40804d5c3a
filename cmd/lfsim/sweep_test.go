package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// --emit slurm writes a job array over the points; --index (or
// $SLURM_ARRAY_TASK_ID) runs one point; --collect merges what is there.
func TestSweepCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644)
	sf := filepath.Join(dir, "s.yaml")
	os.WriteFile(sf, []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n"), 0o644)
	out := filepath.Join(dir, "out")
	var o, e bytes.Buffer
	if code := Main([]string{"sweep", sf, "-o", out, "--emit", "slurm"}, &o, &e); code != exitOK {
		t.Fatalf("emit: %d %s", code, e.String())
	}
	script, _ := os.ReadFile(filepath.Join(out, "sweep.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-2", `--index "$SLURM_ARRAY_TASK_ID"`} {
		if !strings.Contains(string(script), want) {
			t.Fatalf("sweep.sbatch lacks %q:\n%s", want, script)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if code := Main([]string{"sweep", sf, "-o", out, "-q"}, &o, &e); code != exitOK {
		t.Fatalf("task 1: %d %s", code, e.String())
	}
	pts, _ := os.ReadDir(filepath.Join(out, "points"))
	if len(pts) != 1 || !strings.HasPrefix(pts[0].Name(), "0001_size=32KiB") {
		t.Fatalf("points: %v", pts)
	}
	o.Reset()
	if code := Main([]string{"sweep", sf, "-o", out, "--collect"}, &o, &e); code != exitFailed || !strings.Contains(o.String(), "1 of 3 points complete") {
		t.Fatalf("collect: %d %q", code, o.String())
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	o.Reset()
	if code := Main([]string{"sweep", sf, "-o", out, "-q"}, &o, &e); code != exitOK || !strings.Contains(o.String(), "3 of 3 points complete") {
		t.Fatalf("whole sweep: %d %q %s", code, o.String(), e.String())
	}
}

// TestSweepEmitCluster: --emit slurm takes the binary's path on the
// cluster (default lfsim, on its PATH; never this build's path) and the
// resource flags; --emit kubernetes writes an Indexed Job over the
// points whose pods mount the volume that holds the sweep, and needs an
// image.
func TestSweepEmitCluster(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("b.yaml", []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644)
	os.WriteFile("s.yaml", []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n"), 0o644)
	var o, e bytes.Buffer
	if code := Main([]string{"sweep", "s.yaml", "-o", "out", "--emit", "slurm", "--time", "0:30:00", "--mem", "4G", "--partition", "short", "--account", "netlab"}, &o, &e); code != exitOK {
		t.Fatalf("emit slurm: %d %s", code, e.String())
	}
	script, _ := os.ReadFile(filepath.Join("out", "sweep.sbatch"))
	for _, want := range []string{"#SBATCH --time=0:30:00\n", "#SBATCH --mem=4G\n", "#SBATCH --partition=short\n", "#SBATCH --account=netlab\n", "exec 'lfsim' sweep '"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("sweep.sbatch lacks %q:\n%s", want, script)
		}
	}
	if code := Main([]string{"sweep", "s.yaml", "-o", "out", "--emit", "kubernetes"}, &o, &e); code != exitUsage || !strings.Contains(e.String(), "needs --image") {
		t.Errorf("kubernetes without an image: %d %q", code, e.String())
	}
	e.Reset()
	if code := Main([]string{"sweep", "s.yaml", "-o", "out", "--emit", "kubernetes", "--image", "lfsim:1", "--mem", "2Gi", "--parallelism", "2"}, &o, &e); code != exitOK {
		t.Fatalf("emit kubernetes: %d %s", code, e.String())
	}
	data, err := os.ReadFile(filepath.Join("out", "sweep.job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct{ Name string }
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Image        string
						Command      []string
						VolumeMounts []struct {
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
						Resources struct{ Limits map[string]string }
					}
					Volumes []struct {
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatalf("sweep.job.yaml: %v\n%s", err, data)
	}
	c := job.Spec.Template.Spec.Containers
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Metadata.Name != "lfsim-s" || job.Spec.CompletionMode != "Indexed" ||
		job.Spec.Completions != 3 || job.Spec.Parallelism != 2 || len(c) != 1 || c[0].Image != "lfsim:1" ||
		strings.Join(c[0].Command, " ") != "lfsim sweep /work/s.yaml -o /work/out -q" || c[0].VolumeMounts[0].MountPath != "/work" ||
		c[0].Resources.Limits["memory"] != "2Gi" || job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "lfsim-work" {
		t.Errorf("sweep.job.yaml:\n%s", data)
	}
	e.Reset()
	if code := Main([]string{"sweep", "s.yaml", "-o", filepath.Join(dir, "abs"), "--emit", "kubernetes", "--image", "x"}, &o, &e); code != exitUsage || !strings.Contains(e.String(), "inside the volume") {
		t.Errorf("an absolute output: %d %q", code, e.String())
	}
}

// TestSlurmSweep: on a real Slurm (CI starts a single-node one with
// .ci/start-slurm.sh and sets LFSIM_SLURM=1), the script --emit slurm
// writes is submitted with sbatch, runs a task per point, and --collect
// then gives the same sweep.csv as the sweep run here (the folder column
// aside).
func TestSlurmSweep(t *testing.T) {
	if os.Getenv("LFSIM_SLURM") != "1" {
		t.Skip("needs a running Slurm: set LFSIM_SLURM=1 where one is up (.ci/start-slurm.sh starts one)")
	}
	sbatch := needTool(t, "sbatch")
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("b.yaml", []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644)
	os.WriteFile("s.yaml", []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n  hca.mtu: [1024, 4096]\n"), 0o644)
	var o, e bytes.Buffer
	// The tasks run this test binary as lfsim (LFSIM_TEST_AS_MAIN, which
	// sbatch passes on with the rest of the environment).
	t.Setenv("LFSIM_TEST_AS_MAIN", "1")
	if code := Main([]string{"sweep", "s.yaml", "-o", "slurm-out", "--emit", "slurm", "--lfsim", os.Args[0], "--time", "5:00"}, &o, &e); code != exitOK {
		t.Fatalf("emit: %d %s", code, e.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sbatch, "--wait", filepath.Join("slurm-out", "sweep.sbatch"))
	if out, err := cmd.CombinedOutput(); err != nil {
		logs, _ := filepath.Glob(filepath.Join("slurm-out", "slurm", "*.out"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("sbatch --wait: %v\n%s", err, out)
	}
	t.Setenv("LFSIM_TEST_AS_MAIN", "")
	o.Reset()
	if code := Main([]string{"sweep", "s.yaml", "-o", "slurm-out", "--collect"}, &o, &e); code != exitOK || !strings.Contains(o.String(), "6 of 6 points complete") {
		t.Fatalf("collect: %d %q %s", code, o.String(), e.String())
	}
	if code := Main([]string{"sweep", "s.yaml", "-o", "local-out", "-q"}, &o, &e); code != exitOK {
		t.Fatalf("local sweep: %d %s", code, e.String())
	}
	cut := func(name string) string {
		data, err := os.ReadFile(filepath.Join(name, "sweep.csv"))
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			rows = append(rows, l[:strings.LastIndexByte(l, ',')]) // the folder column differs
		}
		return strings.Join(rows, "\n")
	}
	if a, b := cut("slurm-out"), cut("local-out"); a != b {
		t.Errorf("sweep.csv on Slurm:\n%s\nhere:\n%s", a, b)
	}
}

// TestSweepIndexRange: a point index outside 0..N-1, from --index or
// from the cluster's variable, is refused naming the value and the
// range, and no point runs (issue 45: --index -1 and
// SLURM_ARRAY_TASK_ID=-5 ran every point); so are -j -1 (as run
// refuses --workers -1) and a cluster flag without its --emit.
func TestSweepIndexRange(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644)
	sf := filepath.Join(dir, "s.yaml")
	os.WriteFile(sf, []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n"), 0o644)
	for _, c := range []struct {
		name string
		env  [2]string
		args []string
		want string
	}{
		{"--index -1", [2]string{}, []string{"--index", "-1"}, "--index -1: no such point; the sweep has points 0..2"},
		{"--index 3", [2]string{}, []string{"--index", "3"}, "--index 3: no such point; the sweep has points 0..2"},
		{"SLURM_ARRAY_TASK_ID=-5", [2]string{"SLURM_ARRAY_TASK_ID", "-5"}, nil, "$SLURM_ARRAY_TASK_ID is -5: no such point; the sweep has points 0..2"},
		{"JOB_COMPLETION_INDEX=3", [2]string{"JOB_COMPLETION_INDEX", "3"}, nil, "$JOB_COMPLETION_INDEX is 3: no such point; the sweep has points 0..2"},
		{"SLURM_ARRAY_TASK_ID=x", [2]string{"SLURM_ARRAY_TASK_ID", "x"}, nil, `$SLURM_ARRAY_TASK_ID is "x", not an index`},
		{"-j -1", [2]string{}, []string{"-j", "-1"}, "--jobs -1: want 1 or more (0, the default: GOMAXPROCS)"},
		{"--time without --emit", [2]string{}, []string{"--time", "1:00"}, "--time is for --emit slurm"},
		{"--mem without --emit", [2]string{}, []string{"--mem", "4G"}, "--mem is for --emit slurm or kubernetes"},
		{"--image with --emit slurm", [2]string{}, []string{"--emit", "slurm", "--image", "lfsim:1"}, "--image is for --emit kubernetes"},
		{"--partition with --emit kubernetes", [2]string{}, []string{"--emit", "kubernetes", "--image", "lfsim:1", "--partition", "short"}, "--partition is for --emit slurm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("SLURM_ARRAY_TASK_ID", "")
			t.Setenv("JOB_COMPLETION_INDEX", "")
			if c.env[0] != "" {
				t.Setenv(c.env[0], c.env[1])
			}
			out := filepath.Join(dir, "out-"+strings.NewReplacer(" ", "_", "=", "_").Replace(c.name))
			var o, e bytes.Buffer
			code := Main(append([]string{"sweep", sf, "-o", out, "-q"}, c.args...), &o, &e)
			if code != exitUsage || e.String() != "lfsim sweep: "+c.want+"\n" {
				t.Errorf("exit %d, stderr %q; want 2, %q", code, e.String(), c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was made: something ran", out)
			}
		})
	}
}
