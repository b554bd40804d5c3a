package resolve

// optional is what each leaf value of the format is (scenario.StrV,
// IntV, SizeV, TimeV, RateV and the unexported bool, number, fraction
// and seed values): a value, and whether the file gave it.
type optional[T any] interface {
	Get() (T, bool)
}

// number is what overrideNum converts between: whole numbers, sizes,
// rates, times and reals (Go's conversions).
type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float64
}

// override lays a value the file gives over a default: *dst becomes v's
// value when the file gave it, and keeps the default it holds when not.
// It is how resolution fills a profile or a setting key by key, where a
// key's value is the setting's as it is; a key read any other way (a
// name looked up, a value checked against another) is written out where
// it is read.
func override[T any, O optional[T]](dst *T, v O) {
	if x, ok := v.Get(); ok {
		*dst = x
	}
}

// overrideNum is override for a number kept in another numeric type
// than the format's: a whole number (int64) as an int or a uint8, a
// size (fabric.Size) as an int64.
func overrideNum[T, U number, O optional[U]](dst *T, v O) {
	if x, ok := v.Get(); ok {
		*dst = T(x)
	}
}
