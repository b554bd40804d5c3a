package scenario

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// Limits on the files a user names: a scenario or sweep file (and a
// sweep's base) is at most MaxScenarioBytes, 16 MiB, which holds an
// explicit topology of over half a million links written one a line; a
// CDF file at most MaxCDFBytes, 1 MiB (the largest built-in one is 12 KiB).
const (
	MaxScenarioBytes = 16 << 20
	MaxCDFBytes      = 1 << 20
)

// ReadFile reads a file a user names (what, "scenario file" or "CDF
// file", names it in messages). It refuses what is not a regular file: a
// FIFO would block, a device such as /dev/zero never ends, a folder is a
// mistake. It refuses a file over limit bytes, and reads at most limit+1
// bytes, so that a file that grows, or whose size the system does not
// know (/proc), is bounded too.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); a %s is one", path, fileKind(st.Mode()), what)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes; a %s is at most %d", path, st.Size(), what, limit)
	}
	f, err := os.Open(path)
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

// fileKind names what a file that is not regular is.
func fileKind(m os.FileMode) string {
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

// excerpt is what a message may show of a line of a file that may not
// be what it should (a CDF key pointing at some other file): at most 24
// characters, quoted and escaped, marked when cut.
func excerpt(line string) string {
	r := []rune(line)
	if len(r) <= 24 {
		return strconv.Quote(line)
	}
	return strconv.Quote(string(r[:24])) + "..."
}
