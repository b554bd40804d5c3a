package sim

import (
	"errors"
	"math/big"
	"strings"
)

// Errors of ScaleDecimal.
var (
	ErrSyntax   = errors.New("not a plain decimal number")
	ErrNegative = errors.New("negative")
	ErrRange    = errors.New("too large")
	ErrNotWhole = errors.New("not a whole number of the base unit")
)

// ScaleDecimal returns the plain decimal num ("12", "1.5", ".25", "+3")
// times unit, exactly, when that is a whole number that fits in an int64:
// "1.5" × 1024 is 1536, "1.1" × 1000000 is 1100000, while "1.0001" × 1000
// is ErrNotWhole. Units and time, size and rate parsers share it, so that
// no value goes through floating point.
func ScaleDecimal(num string, unit int64) (int64, error) {
	num = strings.TrimPrefix(num, "+")
	if strings.HasPrefix(num, "-") {
		return 0, ErrNegative
	}
	intPart, frac, _ := strings.Cut(num, ".")
	if intPart == "" && frac == "" {
		return 0, ErrSyntax
	}
	digits := intPart + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
	}
	// value = digits × unit / 10^len(frac), which must divide exactly.
	n, _ := new(big.Int).SetString("0"+digits, 10)
	n.Mul(n, big.NewInt(unit))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(n, den, new(big.Int))
	if r.Sign() != 0 {
		return 0, ErrNotWhole
	}
	if !q.IsInt64() {
		return 0, ErrRange
	}
	return q.Int64(), nil
}
