package reports

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/internal/userfile"
)

// Limits on a run's files as `lfsim report` reads them back, with the
// checks scenario files have (internal/userfile): only regular files, a
// JSON file at most maxJSONBytes (summary.json holds a few KB;
// topology.json at the topology limits, a million links of about 100
// bytes each, about 100 MB), and a CSV line at most maxLineBytes (what
// lfsim writes is under 1 KiB a line; 64 KiB is bufio.Scanner's default
// limit). The CSV files are read line by line; flows.csv, which may
// hold ten million rows, is kept only as what the report draws of it
// (FlowStats).
const (
	maxJSONBytes = 256 << 20
	maxLineBytes = 64 << 10
)

// runFileWhat names a run's file in userfile's messages ("a run's
// flows.csv is one").
func runFileWhat(path string) string {
	return "run's " + filepath.Base(path)
}

// openRunFile opens one of a run's files for reading line by line, with
// userfile's checks; ok is false, with no error, when the run has no
// such file.
func openRunFile(path string) (f *os.File, ok bool, err error) {
	f, err = userfile.Open(path, runFileWhat(path), -1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return f, err == nil, err
}

// readRunFile reads one of a run's JSON or YAML files whole, at most
// limit bytes; ok is false, with no error, when the run has no such
// file.
func readRunFile(path string, limit int64) (data []byte, ok bool, err error) {
	data, err = userfile.ReadFile(path, runFileWhat(path), limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// eachCSV calls fn with each record of a CSV file after its header, as
// it reads them (a file can hold ten million rows; none is kept unless
// fn keeps it). The header must be one of headers (what lfsim writes);
// fn gets it, and each record has as many fields. A missing file has no
// records. fn must not keep rec itself; an error it returns stops the
// reading and comes back as file:line: error.
func eachCSV(path string, headers [][]string, fn func(header, rec []string) error) error {
	f, ok, err := openRunFile(path)
	if !ok {
		return err
	}
	defer f.Close()
	rd := csv.NewReader(userfile.LimitLines(bufio.NewReaderSize(f, 64<<10), path, maxLineBytes))
	rd.FieldsPerRecord = -1
	rd.ReuseRecord = true
	var header []string
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			if header == nil {
				return fmt.Errorf("%s:1: the file is empty; %s", path, headerWant(headers))
			}
			return nil
		} else if err != nil {
			if errors.Is(err, userfile.ErrLineTooLong) {
				return err // it names the file and the line
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := rd.FieldPos(0)
		if header == nil {
			if header, err = matchHeader(headers, rec); err != nil {
				return fmt.Errorf("%s:%d: %w", path, line, err)
			}
			continue
		}
		if len(rec) != len(header) {
			err = fmt.Errorf("expected the %d fields of %s, found %d", len(header), strings.Join(header, ","), len(rec))
		} else {
			err = fn(header, rec)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
}

// matchHeader returns the one of headers that rec is, or an error that
// names a column given twice or says what was expected.
func matchHeader(headers [][]string, rec []string) ([]string, error) {
	seen := make(map[string]int, len(rec))
	for i, name := range rec {
		if j, dup := seen[name]; dup {
			return nil, fmt.Errorf("column %q is given twice (columns %d and %d); %s", name, j+1, i+1, headerWant(headers))
		}
		seen[name] = i
	}
	for _, h := range headers {
		if slices.Equal(h, rec) {
			return h, nil
		}
	}
	return nil, fmt.Errorf("%s, found %q", headerWant(headers), strings.Join(rec, ","))
}

// headerWant says which headers a file may have: "expected the header
// a,b or a,b,c".
func headerWant(headers [][]string) string {
	var want []string
	for _, h := range headers {
		want = append(want, strings.Join(h, ","))
	}
	return "expected the header " + strings.Join(want, " or ")
}

// fieldParser reads a CSV record's numbers, keeping the first error,
// which names the column and the field and says what was expected.
type fieldParser struct{ err error }

// int is field i of rec as a whole number; blank allows an empty field,
// read as 0.
func (p *fieldParser) int(rec []string, i int, header []string, blank bool) int64 {
	if blank && rec[i] == "" {
		return 0
	}
	v, err := strconv.ParseInt(rec[i], 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s: %q is not a whole number", header[i], rec[i])
	}
	return v
}

// count is field i of rec as a whole number, 0 or more (a size, a time,
// a count); blank allows an empty field, read as 0.
func (p *fieldParser) count(rec []string, i int, header []string, blank bool) int64 {
	v := p.int(rec, i, header, blank)
	if v < 0 && p.err == nil {
		p.err = fmt.Errorf("%s: %q is negative; expected 0 or more", header[i], rec[i])
	}
	return v
}

// float is field i of rec as a finite number; blank allows an empty
// field.
func (p *fieldParser) float(rec []string, i int, header []string, blank bool) float64 {
	if blank && rec[i] == "" {
		return 0
	}
	v, err := strconv.ParseFloat(rec[i], 64)
	if (err != nil || math.IsNaN(v) || math.IsInf(v, 0)) && p.err == nil {
		p.err = fmt.Errorf("%s: %q is not a number", header[i], rec[i])
	}
	return v
}

// nonNegative is field i of rec as a finite number, 0 or more; blank
// allows an empty field.
func (p *fieldParser) nonNegative(rec []string, i int, header []string, blank bool) float64 {
	v := p.float(rec, i, header, blank)
	if v < 0 && p.err == nil {
		p.err = fmt.Errorf("%s: %q is negative; expected 0 or more", header[i], rec[i])
	}
	return v
}
