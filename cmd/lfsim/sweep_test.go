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
