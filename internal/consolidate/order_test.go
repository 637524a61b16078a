package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/memdir"
	"github.com/memctl/memctl/internal/project"
)

// danglingPointers lists what in the memory folder points at a file that
// is not there: a rollout summary, a skill or a project file named in a
// generated Markdown file, a project folder, rollout summary or the
// personal layer the project index names, and a summary without the
// project layer that summary's instructions point agents at. Notes and
// the diff file are left out (they quote paths that may be gone).
func danglingPointers(root string) []string {
	refRe := regexp.MustCompile("(?:rollout_summaries/[^\\s)\\]\"'`,]+\\.md|skills/[^\\s/)\"'`]+/SKILL\\.md|projects/[^\\s)\"'`]+\\.md)")
	have := func(rel string) bool {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil && fi.Mode().IsRegular()
	}
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == memdir.ExtensionsDir {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == memdir.DiffFile || memdir.IsTemp(d.Name()) || !strings.HasSuffix(rel, ".md") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, ref := range refRe.FindAllString(string(b), -1) {
			if !have(ref) {
				out = append(out, rel+" names "+ref)
			}
		}
		return nil
	})
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(memdir.ProjectIndexFile)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if have(memdir.SummaryFile) {
			out = append(out, "memory_summary.md without the project layer")
		}
	case err != nil:
		out = append(out, "read the index: "+err.Error())
	default:
		var ix project.Index
		if err := json.Unmarshal(b, &ix); err != nil {
			out = append(out, "the index is not whole JSON: "+err.Error())
			break
		}
		if !have(memdir.PersonalFile) {
			out = append(out, "the index without the personal layer")
		}
		for _, e := range ix.Projects {
			if s := memdir.ProjectsDir + "/" + e.Dir + "/" + memdir.ProjectSummaryFile; !have(s) {
				out = append(out, "the index names "+s)
			}
			for _, f := range e.Files {
				if !have(f) {
					out = append(out, "the index names "+f)
				}
			}
		}
	}
	return out
}

// watchWrites checks the folder after every file the package writes or
// removes: a process killed at any moment leaves it in one of these
// states. It returns the number of states checked so far.
func watchWrites(t *testing.T, root string) func() int {
	t.Helper()
	n := 0
	testOnlyAfterWrite = func(path string) {
		if !strings.HasPrefix(path, root) {
			return // a staging copy
		}
		n++
		rel, _ := filepath.Rel(root, path)
		if bad := danglingPointers(root); len(bad) > 0 {
			t.Errorf("a kill after writing %s leaves: %s", filepath.ToSlash(rel), strings.Join(bad, "; "))
		}
	}
	t.Cleanup(func() { testOnlyAfterWrite = nil })
	return func() int { return n }
}

// A consolidation killed after the consolidator wrote
// memory_summary.md but before the project layer left a summary whose
// read instructions name projects/ files that did not exist yet.
func TestConsolidationWritesPointersLast(t *testing.T) {
	e := newEnv(t)
	all := sampleSelection(t)
	e.jobs.selection = all[:1]
	checked := watchWrites(t, e.root)
	if res, err := e.run(t, NewHeuristic()); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	// A later run adds two projects and a memory to a known one.
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = all
	if res, err := e.run(t, NewHeuristic()); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	if checked() < 10 {
		t.Fatalf("only %d folder states checked", checked())
	}
}

// A killed rollback left folders mixing two generations. Each
// write is atomic, so the mix is bounded; what must hold is that no file
// points at one that is not there yet, in either direction.
func TestRollbackWritesPointersLast(t *testing.T) {
	e := newEnv(t)
	all := sampleSelection(t)
	e.jobs.selection = all[:1]
	if res, err := e.run(t, NewHeuristic()); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = all
	if res, err := e.run(t, NewHeuristic()); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	gen2 := folderState(t, e.root)
	checked := watchWrites(t, e.root)
	ctx := context.Background()
	if _, err := Rollback(ctx, e.jobs, e.landOpts(), 1); err != nil {
		t.Fatalf("rollback to generation 1: %v", err)
	}
	if _, err := Rollback(ctx, e.jobs, e.landOpts(), 2); err != nil {
		t.Fatalf("rollback to generation 2: %v", err)
	}
	if !sameState(folderState(t, e.root), gen2) {
		t.Error("the folder does not hold generation 2 again")
	}
	if checked() < 10 {
		t.Fatalf("only %d folder states checked", checked())
	}
}

// A failed consolidator's files are taken back in crash order too: the
// old index and summary before the project files the run added go.
func TestRestoreWritesPointersLast(t *testing.T) {
	e := newEnv(t)
	all := sampleSelection(t)
	e.jobs.selection = all[:2]
	if res, err := e.run(t, NewHeuristic()); err != nil || res.Status != StatusSucceeded {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	before := folderState(t, e.root)
	e.clock.Advance(7 * time.Hour)
	e.jobs.selection = all
	checked := watchWrites(t, e.root)
	failing := heuristicThen(func(context.Context, *Workspace) error { return errors.New("the consolidator gave up") })
	if res, err := e.run(t, failing); err == nil || !res.Status.Failed() {
		t.Fatalf("failing run: %+v, %v", res, err)
	}
	after := folderState(t, e.root)
	for p, v := range before {
		if isArtifact(p) && after[p] != v {
			t.Errorf("%s was not restored", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && isArtifact(p) {
			t.Errorf("%s, added by the failed run, is still there", p)
		}
	}
	if checked() < 5 {
		t.Fatalf("only %d folder states checked", checked())
	}
}
