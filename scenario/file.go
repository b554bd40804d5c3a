package scenario

import (
	"strconv"

	"github.com/lfsim/lfsim/internal/userfile"
)

// Limits on the files a user names (userfile's): a scenario or sweep
// file (and a sweep's base) is at most MaxScenarioBytes, 16 MiB; a CDF
// file at most MaxCDFBytes, 1 MiB.
const (
	MaxScenarioBytes = userfile.MaxScenarioBytes
	MaxCDFBytes      = userfile.MaxCDFBytes
)

// ReadFile reads a file a user names (what, "scenario file" or "CDF
// file", names it in messages) with userfile.ReadFile's checks: it
// refuses what is not a regular file (a FIFO would block, a device such
// as /dev/zero never ends, a folder is a mistake) and a file over limit
// bytes, and reads at most limit+1 bytes.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	return userfile.ReadFile(path, what, limit)
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
