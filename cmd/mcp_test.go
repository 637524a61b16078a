package cmd

import (
	"context"
	"encoding/json"
	"reflect"
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

// TestMCPRankedSearchCutsALongQuery: a
// pasted query of 2,000 words is searched for by its first distinct
// words, and the result says so in its note.
func TestMCPRankedSearchCutsALongQuery(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	ctx := context.Background()
	cs := serveMCP(t, f, ios)
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

// serveMCP runs `memctl mcp` over f in process and returns a client
// session to it; the server stops when the test ends.
func serveMCP(t *testing.T, f *Factory, ios *testStreams) *mcp.ClientSession {
	t.Helper()
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	opts := &MCPOptions{IO: ios.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot, Transport: serverT}
	go func() { done <- runMCP(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "memctl-test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); <-done; cancel() })
	return cs
}

// TestMCPSearchIsMemctlSearch: the MCP search tool, given a query and no
// mode, answers from the same ranked index as `memctl search`: the same
// hits in the same order.
func TestMCPSearchIsMemctlSearch(t *testing.T) {
	ios := newTestIO(false)
	f, _ := extractedFactory(t, ios)
	cs := serveMCP(t, f, ios)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search",
		Arguments: map[string]any{"query": "flaky parser", "project": "*", "max_results": 5}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	type hit struct {
		Kind     string `json:"kind"`
		ThreadID string `json:"thread_id"`
		Snippet  string `json:"snippet"`
	}
	var overMCP struct {
		Mode string `json:"mode"`
		Hits []hit  `json:"hits"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &overMCP); err != nil {
		t.Fatal(err)
	}

	cliIO := newTestIO(false)
	opts := SearchOptions{IO: cliIO.IOStreams, Config: f.Config, OpenStore: f.OpenStore, Now: f.Now, MemoryRoot: f.MemoryRoot,
		JSON: true, Query: "flaky parser", Limit: 5, Scope: ProjectScope{AllProjects: true}}
	if err := runSearch(context.Background(), &opts); err != nil {
		t.Fatal(err)
	}
	var onCLI []hit
	if err := json.Unmarshal(cliIO.out.Bytes(), &onCLI); err != nil {
		t.Fatal(err)
	}
	if overMCP.Mode != "ranked" || len(onCLI) == 0 || !reflect.DeepEqual(overMCP.Hits, onCLI) {
		t.Errorf("MCP search (mode %q):\n%+v\nmemctl search:\n%+v", overMCP.Mode, overMCP.Hits, onCLI)
	}
}
