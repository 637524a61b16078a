package program

import (
	"regexp"
	"strings"
)

// What programs print: the line of a failed command's output that states
// the problem, the tests it names, the words that say a run failed or
// passed, and the messages of a program that could not start or was not
// allowed to.

// The error line of a failed command is the one that states the problem.
// Tools surround it with hints ("hint: …"), usage text, numbered options,
// stack frames and locations, which say where or what to try, not what
// went wrong; those are ranked below any line that states a problem, and
// only stand in when nothing else does.

// joinMax bounds a statement joined with the detail its colon introduces.
const joinMax = 400

// errorScanLines bounds how many lines of output are read for the error.
const errorScanLines = 400

// noiseRE matches lines that never state the problem themselves.
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

// ErrorLine picks the line of a failed command's output that states the
// problem (see above); else the last line that is not noise; else the
// last line. Its spaces are folded and its length is left whole: how much
// of it to keep is the caller's budget.
func ErrorLine(out string) string {
	best, bestTier := "", len(problemTiers)
	lastPlain, last := "", ""
	// A statement that ends in a colon introduces its detail on the next
	// line ("…due to the following issue:" / "The required parameter
	// `prompt` is missing"): the two read as one.
	pendingColon := false
	n := 0
	for line := range strings.Lines(out) {
		n++
		if n > errorScanLines {
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
			if !noiseRE().MatchString(l) && len(best)+len(l) < joinMax {
				best += " " + l
			}
		}
		last = l
		if noiseRE().MatchString(l) {
			continue
		}
		lastPlain = l
		if tier := problemTier(l, bestTier); tier < bestTier {
			best, bestTier = l, tier
			// "…ex:58:13:pattern_match" names a rule; its message is
			// the next line, as after a colon.
			pendingColon = strings.HasSuffix(l, ":") || ruleLocationRE().MatchString(l)
		}
	}
	switch {
	case best != "":
	case lastPlain != "":
		best = lastPlain
	default:
		best = last
	}
	return strings.Join(strings.Fields(strings.TrimSuffix(best, ":")), " ")
}

// problemTier returns the strongest tier above below that line states a
// problem in, below itself when none. A warning counts only in the last
// tier: it sits beside the error, it is rarely the error.
func problemTier(line string, below int) int {
	for tier, m := range problemTiers[:below] {
		if warningRE().MatchString(line) && tier < len(problemTiers)-1 {
			continue
		}
		if m().MatchString(line) {
			return tier
		}
	}
	return below
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

// FailingTests returns up to three distinct failing test names a test
// runner printed: which tests broke says more than the count.
func FailingTests(out string) []string {
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

// failWordsRE are the words a command's output uses to say it failed.
var failWordsRE = lazyRE(`(?m)^--- FAIL|^FAIL\b|^FAILED\b|\bexit status [1-9]\d*\b|^Traceback \(most recent call last\)|` +
	`command not found|^npm ERR!|^(error|fatal|panic)(\[\w+\])?:|^Error:|Process exited with code [1-9]|` +
	`\b[1-9]\d* (failed|failing)\b|^# fail [1-9]|^not ok \d+|^E {2,}\S|^make(\[\d+\])?: \*\*\*|BUILD FAILED|` +
	`^ERROR\b|^\s*✗|^\s*✘`)

// OutputSaysFailed reports output in which a program says it failed: for
// a run whose exit status is missing, or is a later pipeline stage's.
func OutputSaysFailed(out string) bool { return failWordsRE().MatchString(out) }

// okWordsRE are the words that say a command succeeded.
var okWordsRE = lazyRE(`(?m)^ok\s+\S|^PASS\s*$|^\s*\d+ passed\b|^\[[^\]\s]+ [0-9a-f]{7,}\] |^Successfully\b|^Success\b|` +
	`\bBuild succeeded\b|\bAll tests passed\b|^To \S+\n\s+[0-9a-f]{7,}\.\.[0-9a-f]{7,}\s`)

// OutputSaysOK reports output in which a program says it succeeded; it
// is worth asking only when no exit status was recorded at all.
func OutputSaysOK(out string) bool { return okWordsRE().MatchString(out) }

// NotInstalled reports a failed run whose program is not installed: exit
// status 127, or a "not found" message that names the program itself
// (so "cat: x.txt: No such file or directory" does not count). exit is
// nil when no status was recorded.
func NotInstalled(cmd string, exit *int, errLine string) bool {
	tool := Name(cmd)
	if tool == "" {
		return false
	}
	if exit != nil && *exit == 127 {
		return true
	}
	l := strings.ToLower(errLine)
	return (strings.Contains(l, "command not found") || strings.Contains(l, "is not recognized as") ||
		strings.Contains(l, ": not found")) && strings.Contains(errLine, tool)
}

// spawnFailedRE is a tool's report that its program could not be started.
var spawnFailedRE = lazyRE(`(?i)\bENOENT\b.*spawn\b|spawn\b.*\bENOENT\b`)

// SpawnFailed reports an error line saying a program could not be started
// at all (Node's "spawn rg ENOENT"): a broken tool, not a lookup that
// found nothing.
func SpawnFailed(errLine string) bool { return spawnFailedRE().MatchString(errLine) }

// notPermittedRE matches what a sandbox or a missing permission prints.
var notPermittedRE = lazyRE(`(?i)operation not permitted|permission denied|sandbox|not allowed|EACCES|EPERM|read-only file system`)

// NotPermitted reports an error line saying the sandbox or the file
// system's permissions stopped the run: the command itself may be right.
func NotPermitted(errLine string) bool { return notPermittedRE().MatchString(errLine) }

// errorCodeRE finds the names programs give their errors: exception
// classes, compiler codes (E0432, TS2345) and system errors.
var errorCodeRE = lazyRE(`\b([A-Z][A-Za-z]*(?:Error|Exception)|E[0-9]{3,5}|TS[0-9]{4}|ENOENT|EACCES|EADDRINUSE|ECONNREFUSED|SIGSEGV)\b`)

// ErrorCodes returns up to max error names a line holds ("TypeError",
// "TS2345", "ENOENT"): words someone searching for the error would type.
func ErrorCodes(line string, max int) []string { return errorCodeRE().FindAllString(line, max) }

// scriptHeaderRE reads the two lines npm, pnpm and yarn print before
// running a package script: "> pkg@1.0.0 ci" then "> npm run lint && npm
// run build".
var scriptHeaderRE = lazyRE(`^\s*> \S+@\S* (\S+)\r?\n> ([^\n]{2,300})`)

// ScriptRan returns what the package script cmd ran ("npm run ci") is
// made of, as its package manager printed it before running it ("npm run
// lint && npm run build"): the script's own definition says what passed
// when it did. ok is false for other commands, or when the output does
// not open with the script's header.
func ScriptRan(cmd, out string) (runs string, ok bool) {
	f := strings.Fields(Family(cmd))
	if len(f) != 3 || (f[0] != "npm" && f[0] != "pnpm" && f[0] != "yarn") || f[1] != "run" {
		return "", false
	}
	m := scriptHeaderRE().FindStringSubmatch(out)
	if m == nil || m[1] != f[2] {
		return "", false
	}
	return strings.TrimSpace(m[2]), true
}
