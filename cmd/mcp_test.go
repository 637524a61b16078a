package cmd

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
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

// TestMCPRankedSearchCutsALongQuery is issue 24, point 4 over MCP: a
// pasted query of 2,000 words is searched for by its first distinct
// words, and the result says so in its note.
func TestMCPRankedSearchCutsALongQuery(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	opts := &MCPOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, Transport: serverT}
	go func() { done <- runMCP(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "memctl-test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); <-done }()
	query := strings.Repeat("parser flaky ", 1000)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"mode": "ranked", "query": query, "project": "*"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	var out struct {
		Query string `json:"query"`
		Note  string `json:"note"`
		Hits  []struct {
			Snippet string `json:"snippet"`
		} `json:"hits"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Query != "parser flaky" || !strings.Contains(out.Note, "first 2 distinct words of a query of 2000 words") || len(out.Hits) == 0 {
		t.Errorf("query %q, note %q, %d hits", out.Query, out.Note, len(out.Hits))
	}
}
