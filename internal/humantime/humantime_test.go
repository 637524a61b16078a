package humantime

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{40 * time.Second, "40s"},
		{12*time.Minute + 30*time.Second, "12m"},
		{5*time.Hour + 20*time.Minute, "5h20m"},
		{2 * time.Hour, "2h"},
		{23*time.Hour + 59*time.Minute, "23h"},
		{50 * time.Hour, "2d2h"},
		{72 * time.Hour, "3d"},
		// Threads show said "6635h45m0s"
		{6635*time.Hour + 45*time.Minute, "276d"},
		{-90 * time.Minute, "1h30m"},
	} {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
