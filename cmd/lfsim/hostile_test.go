package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileInputs: what an audit fed lfsim to make it hang, exhaust
// memory or show what it should not, each given to the command a user
// would give it to. Each is refused with its message, exit 1, in under
// 2 s and with under 200 MB allocated (issue 25's table).
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A 50 MB list: one traffic item per line.
	var big strings.Builder
	big.WriteString("topology: {kind: star, hosts: 2}\ntraffic:\n")
	for big.Len() < 50<<20 {
		big.WriteString("  - flow: {from: h0, to: h1, size: 1KiB}\n")
	}
	bigFile := write("big.yaml", big.String())
	// An alias bomb: each level merges the one below eight times (8^9
	// keys if expanded).
	bomb := "x-0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n"
	for i := 1; i <= 9; i++ {
		p := "*m" + strconv.Itoa(i-1)
		bomb += "x-" + strconv.Itoa(i) + ": &m" + strconv.Itoa(i) + " {<<: [" + strings.Repeat(p+", ", 7) + p + "]}\n"
	}
	bombFile := write("bomb.yaml", bomb+"hca: {<<: *m9}\n")
	write("secret", "API_TOKEN=abcdef0123456789\n")
	escape := write("sub_escape.yaml", "topology: {kind: star, hosts: 4}\ntraffic:\n  - poisson: {hosts: all, load: 10%, sizes: ../"+filepath.Base(dir)+"/secret, until: 1ms}\n")
	write("huge.cdf", "100 10\n1e19 100\n")
	hugeCDF := write("cdf.yaml", "topology: {kind: star, hosts: 4}\ntraffic:\n  - poisson: {hosts: all, load: 10%, sizes: huge.cdf, until: 1ms}\n")
	flows := write("flows.yaml", "topology: {kind: leaf-spine, leaves: 1250, spines: 32, hosts_per_leaf: 32}\ntraffic:\n  - all_to_all: {size: 1KiB}\n")
	poisson := write("poisson.yaml", "topology: {kind: star, hosts: 64}\nstop: {at: 0}\ntraffic:\n  - poisson: {load: 50%, sizes: 1000}\n")
	k64 := write("k64.yaml", "topology: {kind: fat-tree, k: 64}\ntraffic:\n  - permutation: {size: 1MiB}\n")
	zeroBase := write("zero-sweep.yaml", "base: /dev/zero\nvary: {seed: [1, 2]}\n")

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"/dev/zero", []string{"validate", "/dev/zero"}, "/dev/zero is not a regular file (a device)"},
		{"a FIFO", []string{"validate", fifo}, "is not a regular file (a FIFO)"},
		{"a 50 MB list", []string{"validate", bigFile}, "a scenario file is at most 16777216"},
		{"an alias bomb", []string{"validate", bombFile}, "bomb.yaml:1:47: the aliases expand too much (over 200000 nodes through aliases and merge keys)"},
		{"a path out of the folder", []string{"validate", escape}, "not a CDF file: its first line is not"},
		{"a CDF size of 1e19", []string{"validate", hugeCDF}, "size 1e19 is too large"},
		{"10^9 flows", []string{"validate", "--max-memory", "0", flows}, "flows.yaml:3:5: traffic[0]: this all_to_all makes 1599960000 flows, 1599960000 in all; at most 10000000 flows are supported"},
		{"endless poisson", []string{"validate", poisson}, "traffic[0].poisson"},
		{"k=64 over the memory limit", []string{"validate", "--max-memory", "1GiB", k64}, "k64.yaml:1:31: topology.k: this topology needs about 3.5 GiB"},
		{"a sweep on /dev/zero", []string{"sweep", zeroBase, "-o", filepath.Join(dir, "sw")}, "/dev/zero is not a regular file (a device)"},
		{"run /dev/zero", []string{"run", "/dev/zero", "-o", filepath.Join(dir, "run")}, "/dev/zero is not a regular file (a device)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o, e bytes.Buffer
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			start := time.Now()
			code := Main(c.args, &o, &e)
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc - m0.TotalAlloc
			msg := e.String()
			if code != exitFailed || !strings.Contains(msg, c.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, msg, c.want)
			}
			if strings.Contains(msg, "abcdef") {
				t.Errorf("stderr shows the named file's content: %q", msg)
			}
			if took > 2*time.Second || alloc > 200<<20 {
				t.Errorf("refused after %v, having allocated %d MiB", took, alloc>>20)
			}
			if _, err := os.Stat(filepath.Join(dir, "run")); err == nil {
				t.Errorf("a refused run made its folder")
			}
			t.Logf("%v, %d MiB: %s", took.Round(time.Millisecond), alloc>>20, strings.TrimSpace(msg))
		})
	}
}
