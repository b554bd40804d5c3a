package sim

import (
	"errors"
	"testing"
)

func TestScaleDecimal(t *testing.T) {
	for _, tc := range []struct {
		num  string
		unit int64
		want int64
		err  error
	}{
		{"12", 1, 12, nil},
		{"1.5", 1024, 1536, nil},
		{"1.1", 1000000, 1100000, nil},
		{".25", 1000, 250, nil},
		{"+3", 10, 30, nil},
		{"1.0001", 1000, 0, ErrNotWhole},
		{"0.5", 1, 0, ErrNotWhole},
		{"-1", 1, 0, ErrNegative},
		{"1e3", 1, 0, ErrSyntax},
		{".", 1, 0, ErrSyntax},
		{"", 1, 0, ErrSyntax},
		{"9223372036854775807", 1, 9223372036854775807, nil},
		{"9223372036854775808", 1, 0, ErrRange},
		{"10000000", 1000000000000, 0, ErrRange},
		{"1.000000000000000000000001", 1, 0, ErrNotWhole},
	} {
		got, err := ScaleDecimal(tc.num, tc.unit)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("ScaleDecimal(%q, %d) = %d, %v; want %d, %v", tc.num, tc.unit, got, err, tc.want, tc.err)
		}
	}
}
