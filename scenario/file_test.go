package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesWhatIsNotAFile: a FIFO, a device and a folder are
// refused at once (reading them would block, never end, or make no
// sense), and so is a file over the limit, without reading it.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	f, _ := os.Create(big)
	f.Truncate(MaxScenarioBytes + 1) // sparse: nothing to read but its size
	f.Close()
	ok := filepath.Join(dir, "ok.yaml")
	os.WriteFile(ok, []byte("seed: 1\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{fifo, "is not a regular file (a FIFO); a scenario file is one"},
		{"/dev/zero", "is not a regular file (a device); a scenario file is one"},
		{dir, "is not a regular file (a folder); a scenario file is one"},
		{big, "is 16777217 bytes; a scenario file is at most 16777216"},
	} {
		start := time.Now()
		_, err := ReadFile(c.path, "scenario file", MaxScenarioBytes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.path, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: refused after %v", c.path, d)
		}
	}
	if data, err := ReadFile(ok, "scenario file", MaxScenarioBytes); err != nil || string(data) != "seed: 1\n" {
		t.Errorf("a plain file: %q, %v", data, err)
	}
}

// TestCDFErrorsShowAnExcerpt: a CDF key that names some other file (its
// first line is not a point) gets an error that shows nothing of it; a
// CDF with a bad line further on shows at most a short, quoted excerpt of
// that line, marked as cut.
func TestCDFErrorsShowAnExcerpt(t *testing.T) {
	secret := "root:$6$abcdefghijklmnopqrstuvwxyz0123456789:19000:0:99999:7:::"
	for _, src := range []string{secret, "HOME=/root\x00AWS_SECRET_ACCESS_KEY=abc", "# a comment\n\n" + secret} {
		_, err := ParseCDF("other", []byte(src+"\n"))
		if err == nil {
			t.Fatalf("%q accepted", src)
		}
		if msg := err.Error(); strings.Contains(msg, "root") || strings.Contains(msg, "SECRET") || !strings.Contains(msg, "not a CDF file") {
			t.Errorf("message %q: want it to say this is not a CDF file, and show nothing of it", msg)
		}
	}
	_, err := ParseCDF("cdf", []byte("100 10\n"+secret+"\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "0123456789") || !strings.Contains(msg, `cdf:2:`) || !strings.Contains(msg, `"root:$6$abcdefghijklmnop"...`) {
		t.Errorf("message %q: want line 2, and 24 characters of it, quoted and marked as cut", msg)
	}
}
