package heuristic

import (
	"regexp"
	"strings"

	"github.com/memctl/memctl/internal/textcut"
)

// The error line of a failed command is the one that states the problem.
// Tools surround it with hints ("hint: …"), usage text, numbered options,
// stack frames and locations, which say where or what to try, not what
// went wrong; those are ranked below any line that states a problem, and
// only stand in when nothing else does.

const lineMax = 200

// noise matches lines that never state the problem themselves.
var noiseRE = lazyRE(`(?i)^(hint|note|help|tip|usage|suggestion|see also|for more information|to see|run with|use "|try ` +
	"`" + `|try '|did you mean)\b|` +
	`^\d+\.\s+(update|override|use|run|try|set|install|pick|choose|add|remove|select|specify|pass|see|check|make)\b|` + // numbered suggestions: "3. Override for this session: …"
	`^(location|stack|duration_ms|failuretype|code|name|operator|expected|actual|at|file|line|column|type|source)\s*:|` +
	`^at\s+\S|^\s*#\d+\s|^goroutine \d+|^File ".*", line \d+|^\S+\.(go|js|ts|py|rs|java|rb):\d+ \+0x|` +
	`^\w+:\s*[|>]-?$|^[=_\x{23af}-]{3,}\s.*\s[=_\x{23af}-]{3,}$|^[\x{276f}\x{203a}>]\s+\S+:\d+|^\d+\|\s|^\|\s+\^|^\^+$|^~+$|^[-=*_]{3,}$|^\.\.\.$|^\|\s*$|^npm ERR! (A complete log|$)|^npm (notice|warn)\b|` +
	`^(To |If you |You can )|^\(use "git |^[│├└┌─ ]+$|^failed in sandbox\b`)

// sectionHeaderRE is a tool's section title in a combined report.
var sectionHeaderRE = lazyRE(`^\[[A-Za-z][\w -]*\]$`)

// ruleLocationRE is a location followed only by a rule name.
var ruleLocationRE = lazyRE(`^\S+\.\w+:\d+(:\d+)?:[a-z_]+$`)

// warningRE marks a line that reports a warning: a compiler's or a
// dependency's remark beside the error, never the error itself unless
// nothing else was printed.
var warningRE = lazyRE(`(?i)\bwarn(ing)?\b`)

// problemTiers rank the lines that state a problem, strongest first.
var problemTiers = []func() *regexp.Regexp{
	// a comparison or a message tied to a source position: the most
	// precise statement a test or compiler makes
	lazyRE(`\s!==\s|\s===\s|\s!=\s|\bwant\b.*\bgot\b|\bgot\b.*\bwant\b|, want\b|\bexpected\b.+\b(got|received|but was)\b|` +
		`\S+\.\w+:\d+(:\d+)?:\s*[^\s\d]\S*\s+\S|^\S+\.\w+:\d+(:\d+)?:[a-z_]+$|^FAILED \S+::\S+ - \S|` +
		// a linter's "file:26 error RULE text" or "26:5  error  text"
		`^(\S+\.\w+:)?\d+(:\d+)?\s+error\s+\S`),
	// explicit statements of what went wrong
	lazyRE(`(?i)^(error|fatal|panic|fail|failed)(\[\w+\])?:\s*\S|\b\w*(Error|Exception):\s*\S|^E\s+\S|^\*\* \(\w+\) \S|` +
		`\bcommand not found\b|\bnot recognized as\b|\bno upstream branch\b|\bare ignored by\b|\bpermission denied\b|` +
		`\bno such file or directory\b|\brequires?\b|\b(cannot|can't|could not|couldn't|unable to|failed to)\b|` +
		`\bnot found\b|\bdoes not exist\b|\b(rejected|refused|denied|forbidden|unauthorized)\b|\bundefined\b|` +
		`\bsyntax error\b|\btimed out\b|\bconflict\b|\bsegmentation fault\b|\binsecure\b|\bnot allowed\b|` +
		`\binvalid\b|\bmissing\b|\bunexpected\b|\bincompatible\b|\bnot supported\b|\bstrictly equal\b`),
	// failure markers that name no cause
	lazyRE(`(?i)^--- FAIL|^FAIL\b|\bfailed\b|\bfailure\b|\bERR!|\berror\b|^not ok\b|\bTraceback\b|\bexit status [1-9]`),
	// anything worth a look
	lazyRE(`(?i)\bwarning\b|\bexpected\b`),
}

// wrapperPrefixes are harness lines some formats leave in tool output.
var wrapperPrefixes = []string{"Chunk ID:", "Wall time:", "Process exited with code", "Process running with session",
	"Original token count:", "Output:", "Exit code", "Total output lines:"}

func isWrapperLine(l string) bool {
	for _, p := range wrapperPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// errorLine picks the line of a failed command's output that states the
// problem (see above); else the last line that is not noise; else the
// last line.
func errorLine(out string) string {
	best, bestTier := "", len(problemTiers)
	lastPlain, last := "", ""
	// A statement that ends in a colon introduces its detail on the next
	// line ("…due to the following issue:" / "The required parameter
	// `prompt` is missing"): the two read as one.
	pendingColon := false
	n := 0
	for line := range strings.Lines(out) {
		n++
		if n > 400 {
			break
		}
		l := jsonMessage(strings.TrimSpace(line))
		if l == "" || isWrapperLine(l) {
			continue
		}
		if pendingColon && sectionHeaderRE().MatchString(l) {
			continue // "[CREDO]": the detail comes under it
		}
		if pendingColon {
			pendingColon = false
			if !noiseRE().MatchString(l) && len(best)+len(l) < 2*lineMax {
				best += " " + l
			}
		}
		last = l
		if noiseRE().MatchString(l) {
			continue
		}
		lastPlain = l
		for tier, m := range problemTiers {
			if tier >= bestTier {
				break
			}
			if warningRE().MatchString(l) && tier < len(problemTiers)-1 {
				continue
			}
			if m().MatchString(l) {
				best, bestTier = l, tier
				// "…ex:58:13:pattern_match" names a rule; its message is
				// the next line, as after a colon.
				pendingColon = strings.HasSuffix(l, ":") || ruleLocationRE().MatchString(l)
				break
			}
		}
	}
	switch {
	case best != "":
	case lastPlain != "":
		best = lastPlain
	default:
		best = last
	}
	return textcut.Line(strings.TrimSuffix(best, ":"), lineMax)
}

// jsonMessageRE finds the message an API's JSON error body carries
// ({"errors":[{"message":"…"}]}, {"error":{"message":"…"}}).
var jsonMessageRE = lazyRE(`"message"\s*:\s*"((?:[^"\\]|\\.)+)"`)

// jsonMessage reads a JSON line as its message: the statement of the
// problem, not the paths and codes around it.
func jsonMessage(l string) string {
	if !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "[") {
		return l
	}
	if m := jsonMessageRE().FindStringSubmatch(l); m != nil {
		return strings.ReplaceAll(m[1], `\"`, `"`)
	}
	return l
}

// failingTestRE finds the names test runners give failing tests: go test,
// pytest's short summary, jest/vitest marks, TAP.
var failingTestRE = lazyRE(`(?m)^\s*--- FAIL: (\S+)|^_{3,} (test\w*|\w+\.test\w*) _{3,}\s*$|^FAILED \S+::(\S+?)(?: - |\s*$)|^\s*(?:✕|×|✗)\s+(.+?)(?:\s+\(?\d+ ?m?s\)?)?\s*$|^not ok \d+ - (.+?)\s*$`)

// failingTests returns up to three distinct failing test names.
func failingTests(out string) []string {
	var names []string
	for _, m := range failingTestRE().FindAllStringSubmatch(out, 20) {
		for _, g := range m[1:] {
			g = strings.TrimSpace(g)
			if g == "" || len(g) > 120 {
				continue
			}
			dup := false
			for _, n := range names {
				// a subtest of a test already named adds nothing
				dup = dup || n == g || strings.HasPrefix(g, n+"/")
			}
			if !dup {
				names = append(names, g)
			}
		}
		if len(names) == 3 {
			break
		}
	}
	return names
}
