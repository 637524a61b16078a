package consolidate

import (
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/memmodel"
)

// A lesson reaches the personal layer ("holds in every project") only
// when it was seen in two different repositories. One repository known
// under three folder paths (its clones and worktrees gone, no remote
// recorded) is one repository, not three.
func TestPersonalLayerNeedsTwoRepositories(t *testing.T) {
	const tip = "Run the integration tests with `make itest`; plain go test skips them."
	mem := func(id, cwd, key string) Selected {
		raw := "---\ndescription: ran the tests\ntask_outcome: success\n---\n\n### Task 1\ntask: ran the tests\n\nReusable knowledge:\n- " + tip + "\n"
		return Selected{ThreadID: id, SourceUpdatedAt: 1785840059, RawMemory: raw, Cwd: cwd, ProjectKey: key}
	}
	for _, tt := range []struct {
		name     string
		sel      []Selected
		personal bool
	}{
		{"one repository under three paths", []Selected{
			mem("a", "/src/shop", "path:/src/shop"),
			mem("b", "/tmp/shop-wt", "path:/tmp/shop-wt"),
			mem("c", "/home/dev/shop2", "path:/home/dev/shop2"),
		}, false},
		{"one repository under its remote, twice", []Selected{
			mem("a", "/src/shop", "git:github.com/acme/shop"),
			mem("b", "/tmp/shop", "git:github.com/acme/shop"),
		}, false},
		{"two repositories", []Selected{
			mem("a", "/src/shop", "git:github.com/acme/shop"),
			mem("b", "/src/api", "git:github.com/acme/api"),
		}, true},
		{"a repository and a folder known by its path", []Selected{
			mem("a", "/src/shop", "git:github.com/acme/shop"),
			mem("b", "/src/scratch", "path:/src/scratch"),
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			layer, err := buildProjectLayer(memmodel.Parse(tt.sel), nil)
			if err != nil {
				t.Fatal(err)
			}
			personal := string(layer[memdir.PersonalFile])
			if got := strings.Contains(personal, tip); got != tt.personal {
				t.Errorf("tip in the personal layer: %v, want %v\n%s", got, tt.personal, personal)
			}
		})
	}
}
