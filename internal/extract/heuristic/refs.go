package heuristic

import (
	"slices"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/textcut"
)

// References: the commands with their exact counts, the files whose change
// stands, the files read. A command that only ran clean is listed only when
// it did something no other line says: a passing check is already a
// "Check:" line, a query ("gh pr view", "bd ready") showed a state the
// memory has no use for, and a formatter run ("mise run fmt") only
// rewrote the layout; one run in a scratch folder (/tmp) tried something
// out away from the project.

// The keys returned beside the lines name the failing command each line
// is about ("" for the others), so a reference that only repeats a
// failure line can be left out where that line is printed.
func (x *Extractor) references(t *task, live []*fileRec) (out, keys []string) {
	cmds := sortedCmds(t.cmds)
	for _, st := range cmds {
		if st.explore || st.clean() {
			continue
		}
		out = append(out, st.ref())
		key := ""
		if st.fails > 0 && st.refused == 0 && st.unknown == 0 {
			key = (&call{command: st.command}).describe()
		}
		keys = append(keys, key)
		if len(out) == 6 {
			break
		}
	}
	for _, st := range cmds {
		if len(out) >= 8 {
			break
		}
		// a clean write (cat > f <<EOF) is listed by the file it wrote
		if !st.explore && !st.check && st.clean() && !program.IsBasic(program.Name(st.command)) && !program.WritesFile(st.command) && !program.Routine(st.command) &&
			!x.scratch(program.Dir(st.command)) {
			out = append(out, st.ref())
		}
	}
	if n := len(t.commits); n > 0 {
		// The hashes are how the next session finds the work.
		line := "Commits made: " + commitsText(t.commits[:min(n, 4)])
		if n > 4 {
			line += " and " + itoa(n-4) + " more"
		}
		out = append(out, line)
	}
	for i, f := range live {
		if i == 10 {
			out = append(out, "… and "+itoa(len(live)-10)+" more files")
			break
		}
		out = append(out, x.relPath(f.path)+" ("+strings.Join(f.ops, ", ")+")")
	}
	if len(t.reads) > 0 {
		line := "Files read: " + strings.Join(capped(t.reads, 8), ", ")
		if len(t.reads) > 8 {
			line += " and " + itoa(len(t.reads)-8) + " more"
		}
		out = append(out, line)
	}
	for len(keys) < len(out) {
		keys = append(keys, "")
	}
	return out, keys
}

// withoutRestated drops the references that only repeat a failure line
// printed beside them: the command, its count and its error are there.
func withoutRestated(refs, keys, failures []string) []string {
	var out []string
	for i, r := range refs {
		if i < len(keys) && keys[i] != "" && slices.ContainsFunc(failures, func(f string) bool { return strings.HasPrefix(f, keys[i]+" failed") }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// clean reports a command every run of which ended well.
func (st *cmdStat) clean() bool { return st.fails == 0 && st.refused == 0 && st.unknown == 0 }

// ref prints a command with its exact counts.
func (st *cmdStat) ref() string {
	line := code(textcut.Line(st.command, 100))
	var parts []string
	if st.runs > 0 {
		parts = append(parts, "ran "+itoa(st.runs)+"×")
	}
	if st.fails > 0 {
		parts = append(parts, "failed "+itoa(st.fails)+"×")
	}
	if st.unknown > 0 {
		parts = append(parts, itoa(st.unknown)+"× without an exit status")
	}
	if st.refused > 0 {
		parts = append(parts, "refused or interrupted "+itoa(st.refused)+"×")
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ")
		if st.fails > 0 && st.errLine != "" {
			line += "; error: " + code(textcut.Line(st.errLine, 160))
		}
		line += ")"
	}
	return line
}

// sortedCmds orders commands by failures, then runs, then text.
func sortedCmds(m map[string]*cmdStat) []*cmdStat {
	out := make([]*cmdStat, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].fails != out[j].fails {
			return out[i].fails > out[j].fails
		}
		if out[i].runs != out[j].runs {
			return out[i].runs > out[j].runs
		}
		return out[i].command < out[j].command
	})
	return out
}

func toolList(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 8 {
		names = names[:8]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " ×" + itoa(m[n])
	}
	return strings.Join(parts, ", ")
}
