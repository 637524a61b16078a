//go:build unix

package summary

import (
	"os"
	"strings"
	"testing"
	"time"
)

// Stdin is waited on with poll(2), on the calling thread; other readers
// are left to readWithin's goroutine.
func TestReadFileWithinPollsFilesOnly(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	if _, ok, polled := readFileWithin(devNull, time.Second); !polled || !ok {
		t.Errorf("%s: polled %v, ok %v; want it polled and read", os.DevNull, polled, ok)
	}
	if _, _, polled := readFileWithin(strings.NewReader("{}"), time.Second); polled {
		t.Errorf("a strings.Reader was polled")
	}
}
