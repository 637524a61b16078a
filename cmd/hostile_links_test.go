package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTranscriptLinksOutOfTheSourceAreNotFollowed: a
// transcript that is a symbolic link to a file outside its source folder
// (an agent's sandbox can write its own session folder, not /etc/shadow or
// ~/.ssh) was followed, parsed and indexed, and pieces of the file ended
// up in scan's error messages. For every source kind: the scan names the
// link as skipped without a byte of the file; a link inside the source is
// still read; a transcript swapped for such a link after it was indexed is
// refused by extract; nothing of the outside file reaches the store.
func TestTranscriptLinksOutOfTheSourceAreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sources")
	outside := filepath.Join(dir, "outside")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	const secret = "OUTSIDE-SECRET-7Q"
	type planted struct{ kind, good, link, swapped string }
	var all []planted
	for fi, f := range hostileFormats {
		d := f.dir(src)
		if err := os.MkdirAll(filepath.Join(d, "keep"), 0o700); err != nil {
			t.Fatal(err)
		}
		// The outside file is a valid transcript of the same kind (so
		// following the link indexes it) with a shadow-like line in it.
		outID := fmt.Sprintf("00000000-0000-4000-9%03d-000000000001", fi)
		shadow := joinLines(f.header(outID, ts), f.user(outID, ts, "task "+secret),
			"root:$6$"+secret+"$hash:19000:0:99999:7:::", f.reply(outID, ts, "done "+secret))
		target := filepath.Join(outside, f.kind+".jsonl")
		if err := os.WriteFile(target, shadow, 0o600); err != nil {
			t.Fatal(err)
		}
		write := func(id, text string) string {
			p := filepath.Join(d, f.name(id))
			if err := os.WriteFile(p, joinLines(f.header(id, ts), f.user(id, ts, text), f.reply(id, ts, "fixed it")), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		goodID := fmt.Sprintf("00000000-0000-4000-9%03d-000000000002", fi)
		swapID := fmt.Sprintf("00000000-0000-4000-9%03d-000000000003", fi)
		inID := fmt.Sprintf("00000000-0000-4000-9%03d-000000000004", fi)
		good := write(goodID, "fix the parser")
		swapped := write(swapID, "fix the lexer")
		// A link inside the source is read as before.
		kept := filepath.Join(d, "keep", "inside.txt")
		if err := os.WriteFile(kept, joinLines(f.header(inID, ts), f.user(inID, ts, "fix the printer"), f.reply(inID, ts, "fixed")), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(kept, filepath.Join(d, f.name(inID))); err != nil {
			t.Skipf("symlinks: %v", err)
		}
		link := filepath.Join(d, f.name(fmt.Sprintf("00000000-0000-4000-9%03d-000000000005", fi)))
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		all = append(all, planted{f.kind, good, link, swapped})
	}
	cfg := fmt.Sprintf("[provider]\nkind = \"heuristic\"\n[memories]\nmax_rollouts_per_startup = 50\n[[sources]]\nkind = \"jsonl\"\npath = %q\n[[sources]]\nkind = \"codex\"\npath = %q\n[[sources]]\nkind = \"claude-code\"\npath = %q\n",
		filepath.Join(src, "jsonl"), filepath.Join(src, "codex", "sessions"), filepath.Join(src, "claude"))
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"MEMCTL_HOME=" + home, "MEMCTL_CONFIG=" + cfgPath}
	noSecret := func(what, s string) {
		t.Helper()
		for _, frag := range []string{secret, "root:", "invalid character 'r'", "$6$"} {
			if strings.Contains(s, frag) {
				t.Errorf("%s holds %q from the outside file:\n%s", what, frag, s)
			}
		}
	}

	out, errOut, code := runCLI(t, env, "", "scan", "--json")
	if code != 0 {
		t.Fatalf("scan: exit %d\n%s", code, errOut)
	}
	noSecret("scan --json", out+errOut)
	var res struct {
		Added  int         `json:"added"`
		Errors []scanError `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if want := 3 * len(all); res.Added != want {
		t.Errorf("added %d threads, want %d (the regular ones and the links inside the source)", res.Added, want)
	}
	for _, p := range all {
		found := false
		for _, e := range res.Errors {
			if e.Path == p.link && strings.Contains(e.Error, "skipped: a symbolic link to a file outside the source folder") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the link out of the source is not reported as skipped: %+v", p.kind, res.Errors)
		}
	}

	// Swap one indexed transcript per kind for a link out of the source:
	// the next extract (which scans first) must not read it.
	for _, p := range all {
		if err := os.Remove(p.swapped); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, p.kind+".jsonl"), p.swapped); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, _ = runCLI(t, env, "", "extract", "--all", "--json")
	noSecret("extract --json", out+errOut)
	var ext struct {
		Jobs []struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &ext); err != nil {
		t.Fatalf("extract --json: %v\n%s", err, out)
	}
	for _, p := range all {
		refused := false
		for _, j := range ext.Jobs {
			if j.Status == "failed" && strings.Contains(j.Error, p.swapped+": a symbolic link to a file outside the source folder") {
				refused = true
			}
		}
		if !refused {
			t.Errorf("%s: extract did not refuse the swapped transcript:\n%s", p.kind, out)
		}
	}
	out, errOut, _ = runCLI(t, env, "", "threads", "list", "--json")
	noSecret("threads list", out+errOut)
	out, errOut, _ = runCLI(t, env, "", "memories", "list", "--json")
	noSecret("memories list", out+errOut)
	for _, name := range []string{"memories_1.sqlite", "memories_1.sqlite-wal"} {
		b, _ := os.ReadFile(filepath.Join(home, name))
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the outside file's text", name)
		}
	}
}
