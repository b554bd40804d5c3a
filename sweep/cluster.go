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
// cluster's nodes see. It refuses what CheckSlurm refuses; what it takes
// is written so that it stays one argument of one line: single-quoted
// for bash, quoted for sbatch's own reading of the #SBATCH lines.
func SlurmScript(sw *Sweep, c Cluster, sweepFile, dir string) ([]byte, error) {
	if err := c.CheckSlurm(sweepFile, dir); err != nil {
		return nil, err
	}
	if err := checkText("the sweep's name", sw.Name); err != nil {
		return nil, err
	}
	exe := c.Exe
	if exe == "" {
		exe = "lfsim"
	}
	q := shellQuote
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# lfsim sweep %s: %d points, one per array task.\n", sw.Name, len(sw.Points))
	fmt.Fprintf(&b, "# Submit with: sbatch %s\n", q(filepath.Join(dir, "sweep.sbatch")))
	fmt.Fprintf(&b, "# When every task has finished: %s sweep %s -o %s --collect\n", q(exe), q(sweepFile), q(dir))
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", sbatchQuote("lfsim-"+sw.Name))
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", len(sw.Points)-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n")
	for _, o := range []struct{ flag, v string }{{"time", c.Time}, {"mem", c.Mem}, {"partition", c.Partition}, {"account", c.Account}} {
		if o.v != "" {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", o.flag, o.v) // held to sbatch's grammar by CheckSlurm
		}
	}
	// Slurm expands %A and %a in --output, and %% to %.
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", sbatchQuote(strings.ReplaceAll(filepath.Join(dir, "slurm"), "%", "%%")+"/%A_%a.out"))
	fmt.Fprintf(&b, "set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s sweep %s -o %s --index \"$SLURM_ARRAY_TASK_ID\"\n", q(exe), q(sweepFile), q(dir))
	return []byte(b.String()), nil
}

// shellQuote single-quotes s for bash: each quote in s ends the
// quoting, is given escaped (\') and opens it again.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellWord is s as is when it is a plain word to bash, else shellQuote.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return shellQuote(s)
}

// plainWord is what bash and sbatch read as one word, unquoted.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./%:,=+@-]+$`)

// sbatchQuote makes s one argument of an #SBATCH line as sbatch reads
// it (Slurm's src/sbatch/opt.c, get_argument): as is when a plain word,
// else in double quotes, where a backslash escapes the next character
// and a '#' or a space is kept. s has no line break (checkText).
func sbatchQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
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

// k8sLiteral escapes s for a container's command, where Kubernetes
// expands $(VAR) from the container's environment (an Indexed Job's pods
// have JOB_COMPLETION_INDEX) and reads $$ as $: each $ is given as $$,
// so that the pod runs with s as it was given.
func k8sLiteral(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// KubernetesJob returns an Indexed Job manifest (batch/v1, completionMode
// Indexed) that runs the sweep, one point per completion index: each pod
// runs `lfsim sweep SWEEP -o OUT` with Kubernetes' JOB_COMPLETION_INDEX,
// which lfsim sweep reads as --index. The sweep file (with its base) and
// the output folder live on the volume claim c.Claim, mounted at
// c.Workdir; sweepFile and out are relative to that volume.
//
// It refuses what CheckKubernetes refuses; the Job is written by the
// YAML library, and the comment above it names the paths as bash words.
func KubernetesJob(sw *Sweep, c Cluster, sweepFile, out string) ([]byte, error) {
	if err := c.CheckKubernetes(sweepFile, out); err != nil {
		return nil, err
	}
	if err := checkText("the sweep's name", sw.Name); err != nil {
		return nil, err
	}
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
		"command":      []string{k8sLiteral(exe), "sweep", k8sLiteral(filepath.ToSlash(filepath.Join(work, sweepFile))), "-o", k8sLiteral(filepath.ToSlash(filepath.Join(work, out))), "-q"},
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
		return nil, err
	}
	head := fmt.Sprintf("# lfsim sweep %s: %d points, one per completion index.\n# Apply with: kubectl apply -f sweep.job.yaml\n# When it has completed: lfsim sweep %s -o %s --collect (on the volume)\n",
		sw.Name, len(sw.Points), shellWord(sweepFile), shellWord(out))
	return append([]byte(head), b...), nil
}
