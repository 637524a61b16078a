package extract

import (
	"fmt"
	"os"
	"testing"

	"github.com/memctl/memctl/pkg/sessions"
)

func TestZZDump(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	kind := sessions.Kind(os.Getenv("KIND"))
	f := sessions.File{Kind: kind, Path: p}
	sessions.Events(f, func(e sessions.Event) error {
		fmt.Printf("%-12s id=%s tool=%s cmd=%q exit=%v err=%v final=%v file=%s text=%.200q out=%.150q\n", e.Kind, e.CallID, e.Tool, e.Command, func() any { if e.ExitCode==nil {return nil}; return *e.ExitCode }(), e.IsError, e.Final, e.FilePath, e.Text, e.Output)
		return nil
	})
}
