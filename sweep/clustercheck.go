package sweep

import (
	// go-digest checks an image's @sha256: or @sha512: digest only
	// when the hash is linked in.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/distribution/reference"

	"github.com/lfsim/lfsim/scenario"
)

// What lfsim sweep --emit writes for a cluster engine is built only from
// values held here to what the engine accepts (issue 45: a newline in
// --partition started a command in the Slurm script; one in -o added
// keys to the Kubernetes Job). Each check names the flag and what it
// wants.

// maxPath is the longest path taken: Linux's PATH_MAX, 4096 bytes.
const maxPath = 4096

var (
	// slurmTime is sbatch --time as sbatch(1) lists it: minutes,
	// minutes:seconds, hours:minutes:seconds, days-hours,
	// days-hours:minutes and days-hours:minutes:seconds. At most 9
	// digits a field keeps each below Slurm's 32-bit limits.
	slurmTime = regexp.MustCompile(`^([0-9]{1,9}-)?[0-9]{1,9}(:[0-9]{1,9}){0,2}$`)
	// slurmMem is sbatch --mem: a whole number of megabytes, or with a
	// unit K, M, G or T (sbatch(1); Slurm's str_to_mbytes also takes
	// them in lower case).
	slurmMem = regexp.MustCompile(`^[0-9]{1,12}[KMGTkmgt]?$`)
	// slurmNames is a partition or account name, or for --partition a
	// comma-separated list of them (sbatch(1)): letters, digits, '_',
	// '-' and '.', the characters slurm.conf's names are made of.
	slurmNames = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)
	// dns1123Subdomain is Kubernetes' DNS-1123 subdomain, what a
	// PersistentVolumeClaim is named by (k8s.io/apimachinery's
	// IsDNS1123Subdomain): lower-case letters, digits, '-' and '.',
	// each dot-separated label starting and ending with a letter or a
	// digit, at most 253 characters.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// k8sQuantity is a non-negative Kubernetes resource quantity
	// (k8s.io/apimachinery's resource.Quantity): a decimal number and a
	// binary (Ki..Ei), decimal (m, k, M..E) or exponent (e6) suffix.
	k8sQuantity = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]{1,3})?$`)
)

// badValue is the error for flag's value v: what the flag wants.
func badValue(flag, v, want string) error {
	return fmt.Errorf("%s %s: want %s", flag, scenario.Quote(v), want)
}

// checkText refuses what would end a line of a script or a comment, or
// a YAML scalar: invalid UTF-8, control characters (C0 with NUL, tab,
// CR and LF; DEL; C1 with NEL) and the line and paragraph separators
// U+2028 and U+2029, which YAML also breaks lines at.
func checkText(flag, v string) error {
	if !utf8.ValidString(v) {
		return badValue(flag, v, "valid UTF-8")
	}
	for i, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return badValue(flag, v, fmt.Sprintf("no control character or line break (%U at byte %d)", r, i))
		}
	}
	return nil
}

// CheckPath holds a path that goes into a script or a Job: not empty,
// at most 4096 bytes (PATH_MAX), valid UTF-8, without control
// characters or line breaks. The error names what, the path's flag.
func CheckPath(flag, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s is empty: want a path", flag)
	case len(p) > maxPath:
		return badValue(flag, p, fmt.Sprintf("a path of at most %d bytes, not %d", maxPath, len(p)))
	}
	return checkText(flag, p)
}

// CheckSlurm holds what SlurmScript writes: the resources to what
// sbatch accepts, the binary, the sweep file and the output folder to
// paths without line breaks or control characters; dir, in the
// --output line that Slurm expands % patterns in, also without a
// backslash (which turns them off).
func (c Cluster) CheckSlurm(sweepFile, dir string) error {
	if c.Exe != "" {
		if err := CheckPath("--lfsim", c.Exe); err != nil {
			return err
		}
	}
	if err := CheckPath("the sweep file", sweepFile); err != nil {
		return err
	}
	if err := CheckPath("-o", dir); err != nil {
		return err
	}
	if strings.Contains(dir, `\`) {
		return badValue("-o", dir, `a folder without '\' (sbatch's --output takes it as "expand no %A or %a")`)
	}
	if c.Time != "" && !slurmTime.MatchString(c.Time) {
		return badValue("--time", c.Time, "a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (e.g. 90, 1:30:00, 2-00:00:00)")
	}
	if c.Mem != "" && !slurmMem.MatchString(c.Mem) {
		return badValue("--mem", c.Mem, "a Slurm memory size: a whole number of megabytes, or with K, M, G or T (e.g. 4096, 4G)")
	}
	for _, o := range []struct{ flag, v, want string }{
		{"--partition", c.Partition, "partition names of letters, digits, '_', '-' and '.', separated by commas"},
		{"--account", c.Account, "an account name of letters, digits, '_', '-' and '.'"},
	} {
		if o.v == "" {
			continue
		}
		if len(o.v) > 255 || !slurmNames.MatchString(o.v) || (o.flag == "--account" && strings.Contains(o.v, ",")) {
			return badValue(o.flag, o.v, o.want+", at most 255 characters")
		}
	}
	return nil
}

// CheckKubernetes holds what KubernetesJob writes: the image to the OCI
// distribution reference grammar (github.com/distribution/reference),
// the claim to a DNS-1123 subdomain, the work folder to an absolute
// path, --mem to a resource quantity, the binary and the sweep file's
// and output's paths (relative to the volume, inside it) to paths
// without line breaks or control characters.
func (c Cluster) CheckKubernetes(sweepFile, out string) error {
	if c.Exe != "" {
		if err := CheckPath("--lfsim", c.Exe); err != nil {
			return err
		}
	}
	for _, p := range []struct{ flag, v string }{{"the sweep file", sweepFile}, {"-o", out}} {
		if err := CheckPath(p.flag, p.v); err != nil {
			return err
		}
		if filepath.IsAbs(p.v) || strings.HasPrefix(filepath.Clean(p.v), "..") {
			return fmt.Errorf("%s %s must be a path inside the volume, relative to this directory (the volume's root)", p.flag, scenario.Quote(p.v))
		}
	}
	if c.Image == "" {
		return fmt.Errorf("--image is empty: want a container image that has lfsim")
	}
	if _, err := reference.Parse(c.Image); err != nil {
		return badValue("--image", c.Image, fmt.Sprintf("an image reference, [registry/]name[:tag][@digest], name in lower case (%v)", err))
	}
	if c.Claim == "" || len(c.Claim) > 253 || !dns1123Subdomain.MatchString(c.Claim) {
		return badValue("--claim", c.Claim, "a persistent volume claim's name: a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)")
	}
	if c.Workdir != "" {
		if err := CheckPath("--workdir", c.Workdir); err != nil {
			return err
		}
		if !path.IsAbs(c.Workdir) {
			return badValue("--workdir", c.Workdir, "an absolute path in the pods (e.g. /work)")
		}
	}
	if c.Mem != "" && (len(c.Mem) > 64 || !k8sQuantity.MatchString(c.Mem)) {
		return badValue("--mem", c.Mem, "a Kubernetes memory quantity (e.g. 4Gi, 512Mi, 4G)")
	}
	if c.Parallelism < 0 {
		return fmt.Errorf("--parallelism %d: want 1 or more pods at once (0, the default: every point)", c.Parallelism)
	}
	return nil
}
