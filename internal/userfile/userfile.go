// Package userfile opens the files a user names, or that lfsim reads
// back, with one set of checks: a scenario, a sweep file, a CDF, or a
// run's outputs that `lfsim report` reads. Only a regular file is
// opened: a FIFO would block, a device such as /dev/zero never ends, a
// folder is a mistake. A file read whole is bounded in size; one read
// line by line (LimitLines) is bounded in its line length.
package userfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Limits on the files a user names: a scenario or sweep file (and a
// sweep's base) is at most MaxScenarioBytes, 16 MiB, which holds an
// explicit topology of over half a million links written one a line; a
// CDF file at most MaxCDFBytes, 1 MiB (the largest built-in one is 12 KiB).
const (
	MaxScenarioBytes = 16 << 20
	MaxCDFBytes      = 1 << 20
)

// Open opens path for reading when it is a regular file of at most
// limit bytes (no limit when limit < 0); what ("scenario file", "run's
// flows.csv") names it in messages. It looks at the file before it opens
// it, so that a FIFO is refused without blocking, and again once open,
// so that one put in its place in between is refused too.
func Open(path, what string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, what, limit, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fst, err := f.Stat()
	if err == nil && !os.SameFile(st, fst) {
		err = fmt.Errorf("%s changed while it was opened", path)
	}
	if err == nil {
		err = check(path, what, limit, fst)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// check refuses what is not a regular file, or one over limit bytes.
func check(path, what string, limit int64, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); a %s is one", path, kind(st.Mode()), what)
	}
	if limit >= 0 && st.Size() > limit {
		return fmt.Errorf("%s is %d bytes; a %s is at most %d", path, st.Size(), what, limit)
	}
	return nil
}

// ReadFile reads a file as Open opens it, and reads at most limit+1
// bytes, so that a file that grows, or whose size the system does not
// know (/proc), is bounded too.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := Open(path, what, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s holds more than %d bytes; a %s is at most %d", path, limit, what, limit)
	}
	return data, nil
}

// kind names what a file that is not regular is.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// LineTooLongError is a line longer than a file's line limit
// (LimitLines): Line is its number, from 1.
type LineTooLongError struct {
	Path  string
	Line  int
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s:%d: the line is longer than %d bytes, the most a line of this file may hold", e.Path, e.Line, e.Limit)
}

// ErrLineTooLong is what a LineTooLongError is (errors.Is).
var ErrLineTooLong = errors.New("line too long")

// Is makes errors.Is(err, ErrLineTooLong) true for a LineTooLongError.
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// LineLimiter passes its reader's bytes on until a line runs past limit
// bytes (its newline not counted), then fails with a LineTooLongError.
type LineLimiter struct {
	r     io.Reader
	path  string
	limit int
	line  int // the current line's number, from 1
	run   int // bytes of the current line so far
	err   error
}

// LimitLines wraps r, the contents of path: reading fails with a
// *LineTooLongError once a line holds more than limit bytes, so that a
// reader that gathers a line before it looks at it (encoding/csv,
// bufio.Scanner) holds at most about limit bytes of one, whatever the
// file. A bufio.Scanner gives the start of the long line as a last line
// before it reports the error: its user looks at Err first.
func LimitLines(r io.Reader, path string, limit int) *LineLimiter {
	return &LineLimiter{r: r, path: path, limit: limit, line: 1}
}

// Err is the LineTooLongError once a line has run past the limit, nil
// until then.
func (l *LineLimiter) Err() error { return l.err }

func (l *LineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			j = len(b)
		}
		if l.run+j > l.limit {
			l.err = &LineTooLongError{Path: l.path, Line: l.line, Limit: l.limit}
			// The line's first limit bytes are passed on; the reader
			// sees the error next.
			return n - len(b) + l.limit - l.run, nil
		}
		if j == len(b) {
			l.run += j
			break
		}
		l.line++
		l.run = 0
		b = b[j+1:]
	}
	return n, err
}
