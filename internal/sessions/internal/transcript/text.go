package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/lazyre"
	"github.com/memctl/memctl/internal/textcut"
)

// eventTextMax bounds the Input/Output text carried by an Event; longer
// text keeps its head and tail around a marker.
const EventTextMax = 16 << 10

// parseTime reads an RFC 3339 timestamp; the zero time when it is not one.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

var uuidInName = lazyre.New(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// uuidFromName returns the last UUID in a file name ("" when none).
func UUIDFromName(name string) string {
	all := uuidInName().FindAllString(name, -1)
	if len(all) == 0 {
		return ""
	}
	return strings.ToLower(all[len(all)-1])
}

// compactJSON returns v without insignificant whitespace.
func CompactJSON(v []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// shellJoin renders an argv as one command line, unwrapping the
// `bash -lc "<script>"` form agents use.
func ShellJoin(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		base := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
		switch base {
		case "bash", "sh", "zsh", "dash", "fish":
			return argv[2]
		}
	}
	if script, ok := powerShellScript(argv); ok {
		return script
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// powerShellScript reads the `powershell.exe -NoLogo -NoProfile -Command
// "<script>"` form Codex uses on Windows as the script it runs: what the
// agent ran is the script, not PowerShell.
func powerShellScript(argv []string) (string, bool) {
	if len(argv) < 3 {
		return "", false
	}
	base := strings.ToLower(argv[0][strings.LastIndexAny(argv[0], `/\`)+1:])
	switch strings.TrimSuffix(base, ".exe") {
	case "powershell", "pwsh":
	default:
		return "", false
	}
	flag := strings.ToLower(argv[len(argv)-2])
	if flag != "-command" && flag != "-c" {
		return "", false
	}
	opts := argv[1 : len(argv)-2]
	for i := 0; i < len(opts); i++ {
		switch {
		case strings.EqualFold(opts[i], "-ExecutionPolicy"):
			i++ // its value
		case !strings.HasPrefix(opts[i], "-"):
			return "", false // an argument that is no option: not this form
		}
	}
	return argv[len(argv)-1], true
}

// unwrapShell drops a "bash -lc '…'" style wrapper from a command line
// so it reads as the user would type it.
func UnwrapShell(cmd string) string {
	for _, sh := range []string{"bash -lc ", "bash -c ", "zsh -lc ", "zsh -c ", "sh -c ", "/bin/bash -lc ", "/bin/bash -c ", "/bin/zsh -lc ", "/bin/zsh -c ", "/bin/sh -c "} {
		if rest, ok := strings.CutPrefix(cmd, sh); ok {
			rest = strings.TrimSpace(rest)
			if len(rest) >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest[len(rest)-1] == rest[0] {
				rest = rest[1 : len(rest)-1]
			}
			return rest
		}
	}
	return cmd
}

var exitedRE = lazyre.New(`(?m)^(?:Process exited with code|Exit code:)\s*(-?\d+)`)

// parseToolOutput extracts the text and exit status of a Codex tool
// output: the shell tool wraps it in {"output","metadata":{"exit_code"}},
// unified exec answered in JSON with a top-level "exit_code" in its first
// builds and now prints "Process exited with code N", shell_command
// prints "Exit code: N".
func ParseToolOutput(s string) (string, *int) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") && strings.Contains(t, `"output"`) {
		var w struct {
			Output   *string `json:"output"`
			ExitCode *int    `json:"exit_code"`
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &w) == nil && w.Output != nil {
			if w.Metadata.ExitCode != nil {
				return *w.Output, w.Metadata.ExitCode
			}
			return *w.Output, w.ExitCode
		}
		if out, code, ok := cutJSONOutput(t); ok {
			return out, code
		}
	}
	head := s
	if len(head) > 4096 {
		head = head[:4096]
	}
	if m := exitedRE().FindStringSubmatch(head); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return s, &n
		}
	}
	return s, nil
}

// cutJSONTailRE is the end of a JSON tool output whose middle was cut out
// to shorten it: the output string's close and the exit code after it.
var cutJSONTailRE = lazyre.New(`","(?:session_id":-?\d+,")?(?:metadata":\{")?exit_code":(-?\d+)(?:,"[a-z_]+":[-+.\deE]+)*\}+$`)

// cutJSONOutput reads a JSON tool output that is no longer valid JSON
// because its middle was cut out to shorten it (a "…N tokens truncated…"
// marker in its place): the head still opens the output string, the tail
// still carries the exit code.
func cutJSONOutput(t string) (string, *int, bool) {
	i := strings.Index(t, `"output":"`)
	if i < 0 || i > 200 {
		return "", nil, false
	}
	tail := max(i, len(t)-300)
	m := cutJSONTailRE().FindStringSubmatchIndex(t[tail:])
	if m == nil {
		return "", nil, false
	}
	n, err := strconv.Atoi(t[tail+m[2] : tail+m[3]])
	if err != nil {
		return "", nil, false
	}
	body := t[i+len(`"output":"`) : tail+m[0]]
	var out string
	if json.Unmarshal([]byte(`"`+body+`"`), &out) != nil {
		out = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "", `\"`, `"`, `\\`, `\`).Replace(body)
	}
	return out, &n, true
}

// patchFiles lists the files an apply_patch body adds, updates or
// deletes, with each file's hunks: the text of an update's "-" and "+"
// lines (DiffOldNew reads them).
func patchFiles(patch string) (paths, ops, hunks []string) {
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		found := false
		for _, p := range [...]struct{ prefix, op string }{
			{"*** Add File: ", "add"}, {"*** Update File: ", "update"}, {"*** Delete File: ", "delete"},
		} {
			if rest, ok := strings.CutPrefix(line, p.prefix); ok {
				paths, ops, hunks, found = append(paths, strings.TrimSpace(rest)), append(ops, p.op), append(hunks, ""), true
			}
		}
		if to, ok := strings.CutPrefix(line, "*** Move to: "); ok && len(paths) > 0 {
			// The update leaves the file under its new name, and none under the old one.
			n := len(paths) - 1
			paths, ops, hunks = slices.Insert(paths, n, paths[n]), slices.Insert(ops, n, "delete"), slices.Insert(hunks, n, "")
			paths[n+1] = strings.TrimSpace(to)
		}
		if !found && len(hunks) > 0 && !strings.HasPrefix(line, "*** ") {
			hunks[len(hunks)-1] += line + "\n"
		}
	}
	return paths, ops, hunks
}

// DiffOldNew reads a diff's removed and added lines ("-x", "+y"; not the
// "---"/"+++" headers) as the text an edit replaced and the text it put in.
func DiffOldNew(diff string) (old, nw string) {
	var o, n strings.Builder
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++"):
		case strings.HasPrefix(line, "-"):
			o.WriteString(line[1:])
		case strings.HasPrefix(line, "+"):
			n.WriteString(line[1:])
		}
	}
	return textcut.Middle(o.String(), EventTextMax), textcut.Middle(n.String(), EventTextMax)
}

// injectedPrefixes mark user/developer message text the harness wrote.
var injectedPrefixes = []string{
	"<environment_context>", "<user_instructions>", "<permissions instructions>",
	"<collaboration_mode>", "<skills_instructions>", "<plugins_instructions>",
	"<apps_instructions>", "<realtime_conversation>", "<context_window>", "<skill>",
	"<subagent_notification>", "<turn_aborted>", "<user_shell_command>", "<developer_instructions>",
	"<INSTRUCTIONS>", "<system-reminder>", "<task-notification>",
}

// isInjectedContext reports text the agent harness put into a user message.
func IsInjectedContext(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	if HasPrefixFold(t, "# AGENTS.md instructions") || strings.HasPrefix(t, "## Skills") {
		return true
	}
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func HasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func HasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// userMessageBegin marks the real request inside older composite messages.
const userMessageBegin = "## My request for Codex:"

// cleanPreview trims a human prompt and drops Codex's composite prefix.
func CleanPreview(s string) string {
	if i := strings.Index(s, userMessageBegin); i >= 0 {
		s = s[i+len(userMessageBegin):]
	}
	return strings.TrimSpace(s)
}
