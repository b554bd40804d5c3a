package sweep

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Cluster says how a sweep runs on a cluster engine: the lfsim binary
// by a path that works on the cluster's nodes (default "lfsim", found on
// their PATH; never this machine's build cache), and the resources each
// task asks for. Empty fields are left to the engine's defaults.
type Cluster struct {
	Exe string
	// Slurm: --time (a Slurm time: 1:00:00, 30), --mem (4G),
	// --partition, --account.
	Time, Mem, Partition, Account string
	// Kubernetes: the container image with lfsim in it, the persistent
	// volume claim that holds the sweep file, its base and the output
	// (mounted at Workdir), and how many pods run at once.
	Image, Claim, Workdir string
	Parallelism           int
}

// SlurmScript returns an sbatch script that runs the sweep as a job
// array, one point per task: sweepFile and dir absolute paths that the
// cluster's nodes see.
func SlurmScript(sw *Sweep, c Cluster, sweepFile, dir string) []byte {
	exe := c.Exe
	if exe == "" {
		exe = "lfsim"
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# lfsim sweep %s: %d points, one per array task.\n", sw.Name, len(sw.Points))
	fmt.Fprintf(&b, "# Submit with: sbatch %s\n", q(filepath.Join(dir, "sweep.sbatch")))
	fmt.Fprintf(&b, "# When every task has finished: %s sweep %s -o %s --collect\n", q(exe), q(sweepFile), q(dir))
	fmt.Fprintf(&b, "#SBATCH --job-name=lfsim-%s\n", sw.Name)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", len(sw.Points)-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n")
	for _, o := range []struct{ flag, v string }{{"time", c.Time}, {"mem", c.Mem}, {"partition", c.Partition}, {"account", c.Account}} {
		if o.v != "" {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", o.flag, o.v)
		}
	}
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, "slurm", "%A_%a.out"))
	fmt.Fprintf(&b, "set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s sweep %s -o %s --index \"$SLURM_ARRAY_TASK_ID\"\n", q(exe), q(sweepFile), q(dir))
	return []byte(b.String())
}

// Slurm is SlurmScript with the binary exe and no resource requests.
func Slurm(sw *Sweep, exe, sweepFile, dir string) []byte {
	return SlurmScript(sw, Cluster{Exe: exe}, sweepFile, dir)
}

// jobName is a DNS-1123 label for the job: lfsim-NAME, lower case, other
// characters as dashes, at most 63.
func jobName(name string) string {
	s := regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower("lfsim-"+name), "-")
	s = strings.Trim(s, "-")
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	return s
}

// KubernetesJob returns an Indexed Job manifest (batch/v1, completionMode
// Indexed) that runs the sweep, one point per completion index: each pod
// runs `lfsim sweep SWEEP -o OUT` with Kubernetes' JOB_COMPLETION_INDEX,
// which lfsim sweep reads as --index. The sweep file (with its base) and
// the output folder live on the volume claim c.Claim, mounted at
// c.Workdir; sweepFile and out are relative to that volume.
func KubernetesJob(sw *Sweep, c Cluster, sweepFile, out string) []byte {
	exe := c.Exe
	if exe == "" {
		exe = "lfsim"
	}
	work := c.Workdir
	if work == "" {
		work = "/work"
	}
	par := c.Parallelism
	if par <= 0 || par > len(sw.Points) {
		par = len(sw.Points)
	}
	container := map[string]any{
		"name":         "lfsim",
		"image":        c.Image,
		"command":      []string{exe, "sweep", filepath.ToSlash(filepath.Join(work, sweepFile)), "-o", filepath.ToSlash(filepath.Join(work, out)), "-q"},
		"volumeMounts": []any{map[string]any{"name": "work", "mountPath": work}},
		"resources":    map[string]any{"requests": map[string]any{"cpu": "1"}},
	}
	if c.Mem != "" {
		container["resources"] = map[string]any{"requests": map[string]any{"cpu": "1", "memory": c.Mem}, "limits": map[string]any{"memory": c.Mem}}
	}
	job := map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": jobName(sw.Name), "labels": map[string]any{"app": "lfsim"}},
		"spec": map[string]any{
			"completionMode": "Indexed",
			"completions":    len(sw.Points),
			"parallelism":    par,
			"backoffLimit":   len(sw.Points),
			"template": map[string]any{
				"spec": map[string]any{
					"restartPolicy": "OnFailure",
					"containers":    []any{container},
					"volumes":       []any{map[string]any{"name": "work", "persistentVolumeClaim": map[string]any{"claimName": c.Claim}}},
				},
			},
		},
	}
	b, err := yaml.Marshal(job)
	if err != nil {
		panic(err) // maps of strings, numbers and slices
	}
	head := fmt.Sprintf("# lfsim sweep %s: %d points, one per completion index.\n# Apply with: kubectl apply -f sweep.job.yaml\n# When it has completed: lfsim sweep %s -o %s --collect (on the volume)\n",
		sw.Name, len(sw.Points), sweepFile, out)
	return append([]byte(head), b...)
}
