// Package docscheck tests the examples in docs/ that are not Go: the
// scheduling recipes are parsed here, and checked by the real tool when it
// is installed (systemd-analyze, plutil).
package docscheck

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeBlocks returns the fenced blocks of a Markdown page by language.
func codeBlocks(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var lang string
	var cur []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang, cur = true, strings.TrimPrefix(line, "```"), nil
		case in && line == "```":
			in = false
			out[lang] = append(out[lang], strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

var cronField = regexp.MustCompile(`^(\*|\d+(-\d+)?)(/\d+)?(,(\*|\d+(-\d+)?)(/\d+)?)*$`)

func TestCronLine(t *testing.T) {
	blocks := codeBlocks(t, "../../docs/scheduling.md")["cron"]
	if len(blocks) == 0 {
		t.Fatal("docs/scheduling.md has no cron block")
	}
	ranges := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}
	for _, line := range strings.Split(blocks[0], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("cron line %q has fewer than 5 time fields and a command", line)
		}
		for i := 0; i < 5; i++ {
			if !cronField.MatchString(f[i]) {
				t.Errorf("cron field %d %q is not valid", i+1, f[i])
			}
			for _, n := range regexp.MustCompile(`\d+`).FindAllString(strings.Split(f[i], "/")[0], -1) {
				if v := atoi(n); v < ranges[i][0] || v > ranges[i][1] {
					t.Errorf("cron field %d value %d out of range", i+1, v)
				}
			}
		}
		// cron's PATH is /usr/bin:/bin: the binary is named by its path
		// (cmd's TestSchedulingRecipes runs the line with that PATH).
		if bin := strings.Trim(f[5], `"`); !strings.HasPrefix(bin, "$HOME/") || filepath.Base(bin) != "memctl" || f[6] != "run" {
			t.Errorf("cron command is %q, want \"$HOME/…/memctl\" run", strings.Join(f[5:], " "))
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// units are the systemd unit files of docs/scheduling.md: service, timer.
func TestSystemdUnits(t *testing.T) {
	blocks := codeBlocks(t, "../../docs/scheduling.md")["ini"]
	if len(blocks) != 2 {
		t.Fatalf("want a service and a timer block, got %d ini blocks", len(blocks))
	}
	want := []map[string][]string{
		{"Unit": {"Description"}, "Service": {"Type", "ExecStart"}},
		{"Unit": {"Description"}, "Timer": {"OnUnitActiveSec"}, "Install": {"WantedBy"}},
	}
	for i, b := range blocks {
		sections := map[string]map[string]string{}
		var sec string
		for n, line := range strings.Split(b, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
				sec = strings.Trim(line, "[]")
				sections[sec] = map[string]string{}
			case strings.Contains(line, "=") && sec != "":
				k, v, _ := strings.Cut(line, "=")
				sections[sec][k] = v
			default:
				t.Errorf("unit %d line %d: %q is neither a section nor key=value", i, n+1, line)
			}
		}
		for s, keys := range want[i] {
			for _, k := range keys {
				if _, ok := sections[s][k]; !ok {
					t.Errorf("unit %d lacks [%s] %s", i, s, k)
				}
			}
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		return // the parse above is what can be checked here
	}
	dir := t.TempDir()
	svc := strings.ReplaceAll(blocks[0], "%h/go/bin/memctl", "/bin/true")
	os.WriteFile(filepath.Join(dir, "memctl.service"), []byte(svc), 0o644)
	os.WriteFile(filepath.Join(dir, "memctl.timer"), []byte(blocks[1]), 0o644)
	out, err := exec.Command(analyze, "verify", filepath.Join(dir, "memctl.service"), filepath.Join(dir, "memctl.timer")).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

func TestLaunchdPlist(t *testing.T) {
	blocks := codeBlocks(t, "../../docs/scheduling.md")["xml"]
	if len(blocks) != 1 {
		t.Fatalf("want one plist block, got %d", len(blocks))
	}
	dec := xml.NewDecoder(strings.NewReader(blocks[0]))
	dec.Strict = true
	var keys []string
	inKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plist is not well-formed XML: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inKey = v.Name.Local == "key"
		case xml.CharData:
			if inKey {
				keys = append(keys, string(v))
			}
		case xml.EndElement:
			inKey = false
		}
	}
	for _, k := range []string{"Label", "ProgramArguments", "StartInterval"} {
		if !strings.Contains(strings.Join(keys, ","), k) {
			t.Errorf("plist lacks %s", k)
		}
	}
	if plutil, err := exec.LookPath("plutil"); err == nil {
		p := filepath.Join(t.TempDir(), "dev.memctl.run.plist")
		os.WriteFile(p, []byte(blocks[0]), 0o644)
		if out, err := exec.Command(plutil, "-lint", p).CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}
