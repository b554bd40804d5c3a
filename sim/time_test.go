package sim

import "testing"

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Time
	}{
		{"0", 0},
		{"0.0", 0},
		{"500ns", 500 * Nanosecond},
		{"2us", 2 * Microsecond},
		{"2µs", 2 * Microsecond},
		{"1.5ms", 1500 * Microsecond},
		{"1s", Second},
		{"1.1us", 1100 * Nanosecond},
		{"10ps", 10},
		{" 3 ns ", 3000},
		{".5us", 500 * Nanosecond},
	} {
		got, err := ParseTime(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "5", "1.5", "-1us", "1 furlong", "1.0001ps", "us", "1e3ns", "99999999999s"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q): want an error", bad)
		}
	}
}

func TestTimeString(t *testing.T) {
	for _, tc := range []struct {
		in   Time
		want string
	}{
		{0, "0"},
		{1500 * Microsecond, "1.5ms"},
		{10 * Millisecond, "10ms"},
		{1234, "1.234ns"},
		{1, "1ps"},
		{Second + Millisecond, "1.001s"},
		{-2 * Microsecond, "-2us"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Time(%d).String() = %q; want %q", int64(tc.in), got, tc.want)
		}
		if tc.in >= 0 {
			back, err := ParseTime(tc.in.String())
			if err != nil || back != tc.in {
				t.Errorf("round trip of %d through %q gave %d, %v", int64(tc.in), tc.in.String(), back, err)
			}
		}
	}
}

func TestTimeShort(t *testing.T) {
	for _, tc := range []struct {
		in   Time
		want string
	}{
		{2743453 * Nanosecond, "2.743ms"},
		{18749941 * Nanosecond, "18.75ms"},
		{500 * Nanosecond, "500ns"},
		{Second, "1s"},
		{12, "12ps"},
		{0, "0"},
	} {
		if got := tc.in.Short(); got != tc.want {
			t.Errorf("Time(%d).Short() = %q, want %q", int64(tc.in), got, tc.want)
		}
	}
}
