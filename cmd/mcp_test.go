package cmd

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNewMCPCmd(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var got *MCPOptions
	if err := execCmd(t, f, newMCPCmd(f, func(_ context.Context, o *MCPOptions) error { got = o; return nil }), nil, "--read-only"); err != nil || !got.ReadOnly {
		t.Errorf("options %+v, %v", got, err)
	}
	err := execCmd(t, f, newMCPCmd(f, nil), nil, "stdio")
	wantError(t, err, `memctl mcp takes no arguments, got "stdio"`)
}

func TestRunMCP(t *testing.T) {
	for _, tt := range []struct {
		name     string
		readOnly bool
		want     []string
	}{
		{name: "every tool", want: []string{"add_ad_hoc_note", "list", "read", "search"}},
		{name: "read-only", readOnly: true, want: []string{"list", "read", "search"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			serverT, clientT := mcp.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			opts := &MCPOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot,
				Transport: serverT, ReadOnly: tt.readOnly}
			go func() { done <- runMCP(ctx, opts) }()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "memctl-test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			sort.Strings(names)
			if len(names) != len(tt.want) {
				t.Errorf("tools %v, want %v", names, tt.want)
			}
			for i := range names {
				if i < len(tt.want) && names[i] != tt.want[i] {
					t.Errorf("tools %v, want %v", names, tt.want)
				}
			}
			cs.Close()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Error("the server did not stop when the client left")
			}
			if ios.out.Len() != 0 {
				t.Errorf("stdout %q: the protocol owns it", ios.out)
			}
		})
	}

	t.Run("use_memories = false: refused", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, "[memories]\nuse_memories = false\n")
		err := runMCP(context.Background(), &MCPOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot})
		wantError(t, err, "memories.use_memories is false")
	})
}
