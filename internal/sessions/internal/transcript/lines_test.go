package transcript

import (
	"fmt"
	"strings"
	"testing"
)

func TestOversizedLine(t *testing.T) {
	var probs []Problem
	data := "a\n" + strings.Repeat("y", 3000) + "\nb\r\n\nc"
	lr := NewLineReader(strings.NewReader(data), "p", func(p Problem) { probs = append(probs, p) })
	lr.max = 1000
	var got []string
	for {
		b, err := lr.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d:%s", lr.Line, b))
	}
	if strings.Join(got, ",") != "1:a,3:b,5:c" {
		t.Errorf("lines %v", got)
	}
	if len(probs) != 1 || probs[0].Line != 2 {
		t.Errorf("problems %v", probs)
	}
}
