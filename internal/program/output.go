package program

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

// What programs print. Output never decides whether a run passed (its exit status does); it says
// which line to quote for a failure (the tool's own error report, never a warning, hint or footer:
// docs/extractor.md), which tests failed and which commits git made.

// noiseRE matches the lines that are never the error, among them a wrapper's restating the exit status ("exit code 1").
var noiseRE = lazyre.New(`(?i)\bwarn(ing)?s?\b|\w+Warning\b|^(info|note|hint|help|tip|usage|suggestion|see also|` +
	`for more information|to see|run with|use "|try ` + "`" + `|try '|did you mean|debug)\b|` +
	`^\d+\.\s+(update|override|use|run|try|set|install|pick|choose|add|remove|select|specify|pass|see|check|make)\b|` +
	`^(location|stack|duration_ms|failuretype|code|name|operator|expected|actual|at|file|line|column|type|` +
	`source)\s*:|^at\s+\S|^\s*#\d+\s|^goroutine \d+|^File ".*", line \d+|^\S+\.(go|js|ts|py|rs|java|rb):\d+ \+0x|` +
	`^\w+:\s*[|>]-?$|^[-=*_~^|.\x{2500}-\x{257f}\x{23af} ]{3,}$|^[=_\x{23af}-]{3,}\s.*\s[=_\x{23af}-]{3,}$|` +
	`\d+%\s*\||[\x{2580}-\x{259f}]{3}|\[[#=>. -]{6,}\]|^>\s{3,}\S|` + // a progress bar; the source line pytest marks
	`^[\x{276f}\x{203a}>]\s+\S+:\d+|^\d+\s*\|\s|^npm ERR! (A complete log|code|errno|$)|^npm notice\b|\bto rerun\b|` +
	`:\d+:in [\x60']|^(tests?|test (files|suites)|suites?)?:?\s*\d+ (failed|passed)\b|^(To |If you |You can )|` +
	`^\(use "git |^\.\.\.$|\bexit(ed with)? (code|status):? \d+\.?$|\(code \d+\)$|\] Error \d+$`)

// problemRanks are the lines that state a problem, strongest first.
var problemRanks = []func() *regexp.Regexp{
	// a comparison, or a message at a source position
	lazyre.New(`\s!==?\s|\s===\s|^expect\(received\)|\bwant\b.*\bgot\b|\bgot\b.*\bwant\b|, want\b|` +
		`\bexpected\b.+\b(got|received|but was)\b|\S+\.\w+:\d+(:\d+)?:\s*[^\s\d]\S*\s+\S|` +
		`^\S+\.\w+:\d+(:\d+)?:[a-z_]+$|^FAILED \S+::\S+ - \S|^(\S+\.\w+:)?\d+(:\d+)?\s+error\s+\S`),
	// an explicit statement of what went wrong, or a header introducing it on the next line ("… failed:")
	lazyre.New(`(?i)^(error|fatal|panic|fail|failed)(\[\w+\])?:\s*\S|\b\w*(Error|Exception):\s*\S|^E\s+\S|\bfailed:$|` +
		`^\*\* \(\w+\) \S|\b(command not found|not recognized as|no upstream branch|are ignored by|permission denied|` +
		`no such file or directory|requires?|cannot|can't|could not|couldn't|unable to|failed to|not found|` +
		`does not exist|rejected|refused|denied|panicked|forbidden|unauthorized|undefined|syntax error|timed out|` +
		`conflict|segmentation fault|insecure|not allowed|invalid|missing|unexpected|incompatible|not supported)\b`),
}

// Diagnostic reports a line a tool printed: at a source position, a comparison, "error: …".
func Diagnostic(line string) bool {
	l := strings.ToLower(line)
	return problemRanks[0]().MatchString(line) || strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "fatal:") ||
		strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "warning:")
}

// ErrorLine picks the line of a failed command's output to quote: of the lines not noise (a progress bar, code under
// a stack frame, a wrapper's restating the exit status), the first that states a problem, else the last of one or two
// such lines, else none; spaces folded, length whole. When the runner names a failing test, only its report counts,
// not what passing tests printed before. A line that sends its errors away (2>/dev/null) prints data only; so does a
// read or a search (matches, listings, a file's text) but for a lone line and the lines its programs sign ("grep: …").
func ErrorLine(cmd, out string) string {
	ps := append([]string{""}, parts(cmd)...)
	if out = plain(out); discardsErrorsRE().MatchString(ps[len(ps)-1]) {
		return ""
	}
	if t := FailingTests(out); len(t) > 0 {
		out = out[strings.LastIndexByte(out[:strings.Index(out, t[0])], '\n')+1:]
	}
	data := Explores(cmd) && strings.Contains(strings.TrimSpace(out), "\n")
	signers := strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(";&|\n", r) })
	best, rank, last, kept := "", len(problemRanks), "", 0
	// join: the best line introduces its detail on the next one; warning: the indented lines under a warning
	// are its own. A literal "\n" (an echo without -e) breaks a line all the same.
	join, warning := false, false
	for line := range strings.Lines(strings.ReplaceAll(out, `\n`, "\n")) {
		l := strings.TrimSpace(line)
		prog := strings.TrimSpace(strings.SplitN(l, ":", 2)[0]) // "grep: …", PowerShell's "Get-Item : …"
		if data && !slices.ContainsFunc(signers, func(p string) bool { return name(p) == prog }) {
			continue // a read's data: a match, a listing, a file's text
		}
		if m := jsonMessageRE().FindStringSubmatch(l); m != nil { // an API's error body: its message
			l = strings.NewReplacer(`\"`, `"`, `\n`, " ", `\t`, " ").Replace(m[1])
		}
		under := l != "" && (line[0] == ' ' || line[0] == '\t' || strings.IndexAny(l, "\u2502\u2514\u251c") == 0)
		warning = warning && under
		if l == "" || warning || join && strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			continue // a warning's detail; a section title ("[credo]"): the detail comes under it
		}
		quiet := noiseRE().MatchString(l)
		warning = quiet && (strings.Contains(strings.ToLower(l), "warn") || strings.HasPrefix(l, `File "`))
		if quiet { // a wrapper's line, a hint or a footer ends the output: the line before it is no report
			last, join = "", false
			continue
		}
		if join && len(best)+len(l) < 400 {
			best += " " + l
		}
		last, kept, join = l, kept+1, false
		for r, re := range problemRanks[:rank] {
			if re().MatchString(l) {
				best, rank = l, r
				join = strings.HasSuffix(l, ":") || !strings.Contains(l, " ")
				break
			}
		}
	}
	best = cmp.Or(best, map[bool]string{true: last}[kept <= 2]) // an output of one or two lines is its own report
	return strings.Join(strings.Fields(strings.TrimSuffix(best, ":")), " ")
}

// GoesOnAfterFailure reports a line that runs on after a command of it fails: commands joined otherwise than by "&&"
// (";", a line break, "||") without `set -e`, or piped without pipefail. Its exit status is its last command's only.
func GoesOnAfterFailure(cmd string) bool { // a heredoc's text, an escaped line break or semicolon joins none
	s := blankQuotes(strings.NewReplacer("\\\n", "", `\;`, "", "&&", "").Replace(withoutHeredocs(cmd)), true)
	return strings.Contains(s, "|") && !strings.Contains(s, "pipefail") || strings.Contains(s, "||") ||
		strings.ContainsAny(strings.TrimSpace(s), ";\n") && !strings.Contains(s, "set -e")
}

// plain drops the terminal's escape sequences (colours, bold).
func plain(out string) string { return escapeRE().ReplaceAllString(out, "") }

var (
	discardsErrorsRE = lazyre.New(`[2&]>\s*/dev/null|>\s*/dev/null\s+2>&1|2>&-`)
	escapeRE         = lazyre.New("\x1b\\[[\x20-\x3f]*[\x40-\x7e]")
	jsonMessageRE    = lazyre.New(`^[{\[].*?"message"\s*:\s*"((?:[^"\\]|\\.)+)"`)
	// failingTestRE finds failing tests: go test, ExUnit, pytest's summary, jest, vitest, TAP, libtest, RSpec.
	failingTestRE = lazyre.New(`(?m)^\s*--- FAIL: (\S+)|^test (\S+) \.\.\. FAILED\s*$|^rspec \S+:\d+ # (.+?)\s*$|` +
		`^\s*\d+\) test (.+?) \(\S+\)\s*$|^_{3,} (test\w*|\w+\.test\w*) _{3,}\s*$|^FAILED \S+::(\S+?)(?: - |\s*$)|` +
		`^\s*(?:✕|×|✗)\s+(.+?)(?:\s+\(?\d+ ?m?s\)?)?\s*$|^not ok \d+ - (.+?)\s*$`)
	// tallyRE is a runner's count line ("2 passed in 0.81s", "31 tests, 0 failures"), not npm's "> pkg@1 test".
	tallyRE = lazyre.New(`(?i)(^|[\s(:,])\d+ (passed|tests?|examples?|specs?)([,;(\s][^\n]{0,60}|$)`)
	// commitLineRE is the line git prints per commit made: "[main 1a2b3c4] x".
	commitLineRE = lazyre.New(`(?m)^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$`)
)

// FailingTests returns up to three distinct failing test names.
func FailingTests(out string) []string {
	var names []string
	for _, m := range failingTestRE().FindAllStringSubmatch(plain(out), 20) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" && len(g) <= 120 && len(names) < 3 &&
				!slices.ContainsFunc(names, func(n string) bool { return n == g || strings.HasPrefix(g, n+"/") }) {
				names = append(names, g)
			}
		}
	}
	return names
}

// PassTally returns the last count line of a passing check's output, spaces folded: how much it verified.
func PassTally(out string) string {
	m := append([]string{""}, tallyRE().FindAllString(plain(out), -1)...)
	return strings.Join(strings.Fields(m[len(m)-1]), " ")
}

// ScriptRan returns what a package script runs, as npm, pnpm and yarn print it: "> app@1.0.0 ci", "> npm run lint".
func ScriptRan(out string) string {
	lines := strings.Split(plain(out), "\n")
	for i := 0; i+1 < len(lines) && i < 8; i++ {
		head, body := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(head, "> ") && strings.Contains(head, "@") &&
			strings.HasPrefix(body, "> ") && len(body) > 4 {
			return strings.TrimSpace(body[2:])
		}
	}
	return ""
}

// Commit is one commit git reported making.
type Commit struct{ SHA, Subject string }

// CommitsReported returns up to max commits git's output reports making.
func CommitsReported(out string, max int) []Commit {
	var cs []Commit
	for _, m := range commitLineRE().FindAllStringSubmatch(out, max) {
		cs = append(cs, Commit{SHA: m[1], Subject: strings.TrimSpace(m[2])})
	}
	return cs
}
