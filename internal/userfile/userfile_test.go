package userfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRefusesWhatIsNotAFile: a FIFO, a device (and a link to one), a
// folder and a file over the limit are refused before anything is read
// (a FIFO is not opened: that would block); a plain file opens.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.csv")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.csv")
	os.WriteFile(ok, []byte("a,b\n1,2\n"), 0o644)
	for _, c := range []struct {
		path  string
		limit int64
		want  string
	}{
		{fifo, -1, "fifo is not a regular file (a FIFO); a run's flows.csv is one"},
		{"/dev/zero", -1, "/dev/zero is not a regular file (a device); a run's flows.csv is one"},
		{zero, -1, "zero.csv is not a regular file (a device); a run's flows.csv is one"},
		{dir, -1, "is not a regular file (a folder); a run's flows.csv is one"},
		{ok, 7, "ok.csv is 8 bytes; a run's flows.csv is at most 7"},
		{ok, 8, ""},
		{ok, -1, ""},
	} {
		f, err := Open(c.path, "run's flows.csv", c.limit)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s, limit %d: %v", c.path, c.limit, err)
			} else {
				f.Close()
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, limit %d: got %v, want %q", c.path, c.limit, err, c.want)
		}
	}
}

// TestLimitLines: lines up to the limit pass whole; the first longer one
// fails with its number and the limit, after its first limit bytes.
func TestLimitLines(t *testing.T) {
	for _, c := range []struct {
		in       string
		limit    int
		passed   string
		line     int // 0: no error
		readSize int
	}{
		{"abc\ndefg\n", 4, "abc\ndefg\n", 0, 3},
		{"abc\ndefg", 4, "abc\ndefg", 0, 1},
		{"abc\ndefgh\nij\n", 4, "abc\ndefg", 2, 3},
		{"abc\ndefgh\nij\n", 4, "abc\ndefg", 2, 100},
		{"abcde", 4, "abcd", 1, 2},
		{"\n\n\nabcde", 4, "\n\n\nabcd", 4, 100},
	} {
		l := LimitLines(strings.NewReader(c.in), "f.csv", c.limit)
		var got []byte
		buf := make([]byte, c.readSize)
		var err error
		for err == nil {
			var n int
			n, err = l.Read(buf)
			got = append(got, buf[:n]...)
		}
		var long *LineTooLongError
		switch {
		case c.line == 0 && err != io.EOF:
			t.Errorf("%q: %v", c.in, err)
		case c.line > 0 && (!errors.As(err, &long) || long.Line != c.line || long.Limit != c.limit || !errors.Is(err, ErrLineTooLong) || l.Err() != err):
			t.Errorf("%q: got %v, want line %d too long", c.in, err, c.line)
		case string(got) != c.passed:
			t.Errorf("%q: passed %q, want %q", c.in, got, c.passed)
		}
	}
}
