// Package humantime writes durations the way a person reads them on a
// terminal: "40s", "12m", "5h20m", "23h", "3d4h", "276d", never Go's
// "6635h45m0s". Machine output (JSON, piped tables) keeps exact values.
package humantime

import (
	"fmt"
	"time"
)

// Duration rounds d to its two largest units below ten of the larger one
// ("5h20m", "3d4h") and to its largest unit above ("23h", "276d").
// Negative durations are written as their magnitude.
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	const day = 24 * time.Hour
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 10*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 10*day:
		dd, h := int(d/day), int(d%day/time.Hour)
		if h == 0 {
			return fmt.Sprintf("%dd", dd)
		}
		return fmt.Sprintf("%dd%dh", dd, h)
	}
	return fmt.Sprintf("%dd", int(d/day))
}
