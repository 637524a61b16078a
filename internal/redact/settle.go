package redact

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/lazyre"
)

// The settle functions judge a match by what its regular expression cannot
// say (see spec.settle). Each takes the text, the match's submatch indexes
// (which it may shorten) and whether escape sequences are read.

// lineBreakEscapeAt returns the length of a line-break escape (\n or \r,
// behind one or more backslashes) starting at i in b, or 0.
func lineBreakEscapeAt(b []byte, i int) int {
	j := i
	for j < len(b) && b[j] == '\\' {
		j++
	}
	if j == i || j == len(b) || b[j] != 'n' && b[j] != 'r' {
		return 0
	}
	return j + 1 - i
}

// indexLineBreakEscape returns where the first line-break escape in b
// starts, or -1.
func indexLineBreakEscape(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' {
			if n := lineBreakEscapeAt(b, i); n > 0 {
				return i
			}
			for i+1 < len(b) && b[i+1] == '\\' {
				i++
			}
		}
	}
	return -1
}

// crossesLine reports whether b holds a line break, raw or escaped.
func crossesLine(b []byte) bool {
	return bytes.ContainsAny(b, "\n\r") || indexLineBreakEscape(b) >= 0
}

// keyRe is a word that names a key rather than being a value: an
// identifier followed by ':' and nothing else (a diff's '-' or '+' may
// lead it), as the next line of YAML or a diff starts.
var keyRe = lazyre.New(`^[-+]?[A-Za-z_][A-Za-z0-9_.-]*:$`)

// codexValueOwnLine keeps Codex's assignment value on its own line when the
// line breaks are \n escapes, as they are in a transcript: Codex's value
// class runs over "\n", so "password: a1b2c3d4\napi_key: …" would lose
// "\napi_key:" to the first value and leave the second value bare. The
// value ends where the escape starts (and must keep Codex's eight
// characters); a value that starts on the next line must not be the next
// line's key. Read without escapes, the match is Codex's own.
func codexValueOwnLine(u []byte, loc []int, esc bool) bool {
	if !esc {
		return true
	}
	vs, ve := loc[8], loc[9]
	v := u[vs:ve]
	lead := 0
	for lead < len(v) {
		n := lineBreakEscapeAt(v, lead)
		if n == 0 {
			break
		}
		lead += n
	}
	if lead == 0 {
		if i := indexLineBreakEscape(v); i > 0 {
			// What is left must still be a value by Codex's measure, as it
			// would be read on its own line.
			if utf8.RuneCount(v[:i]) < 8 {
				return false
			}
			loc[9], loc[1] = vs+i, vs+i
		}
		if crossesLine(u[loc[0]:vs]) {
			return !keyRe().Match(u[vs:loc[9]])
		}
		return true
	}
	rest := v[lead:]
	if i := indexLineBreakEscape(rest); i >= 0 {
		rest = rest[:i]
	}
	return !keyRe().Match(rest)
}

// keyValueSettle refuses two key_value matches that are not secrets. A
// value taken from the next line when that line starts with a key of its
// own ("password:\n api_key: …") is the next key's. A camelCase key is
// code or JSON: its unquoted value shaped like an identifier is a variable
// or a type (litellmApiKey: isLiteLLM ? …, ownerPrivateKey: Uint8Array),
// unless it reads as generated (see hasRandomPart).
func keyValueSettle(u []byte, loc []int, _ bool) bool {
	vs, ve := loc[4], loc[5]
	v := u[vs:ve]
	if crossesLine(u[loc[2]:loc[3]]) && keyRe().Match(v) {
		return false
	}
	quoted := vs > 0 && (u[vs-1] == '"' || u[vs-1] == '\'')
	if camelHump(u, loc[0]) && !quoted && identRe().Match(v) && !hasRandomPart(v) {
		return false
	}
	return true
}

// identRe is a name in code.
var identRe = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// dockerAuthIsUserPassword accepts the "auth" of a Docker config only when
// it decodes to user:password, as Docker writes it.
func dockerAuthIsUserPassword(u []byte, loc []int, _ bool) bool {
	v := bytes.TrimRight(u[loc[4]:loc[5]], "=")
	dec, err := base64.RawStdEncoding.DecodeString(string(v))
	return err == nil && bytes.IndexByte(dec, ':') > 0
}

// netrcEntryRe is the start of a one-line .netrc entry up to its password
// keyword: the machine, then any login, account or port.
var netrcEntryRe = lazyre.New(`machine[ \t]+\S+(?:[ \t]+(?:login|account|port)[ \t]+\S+)*[ \t]+$`)

// netrcSettle accepts "password X" of a .netrc: after "machine HOST" and
// its login on the same line (netrc's one-line layout), or standing alone
// on its line (the multi-line layout), where the line may end at the quote
// or escape that closes the JSON string it sits in or at a control
// character (a terminal's colour reset). A line alone needs an X of four
// characters or more with one that is not a lower-case letter, so a log
// line such as "password required" stays.
func netrcSettle(u []byte, loc []int, esc bool) bool {
	p := loc[0]
	from := max(bytes.LastIndexByte(u[:p], '\n')+1, p-512)
	if m := netrcEntryRe().FindIndex(u[from:p]); m != nil && boundaryOK(wordBefore, u, from+m[0], esc) {
		return true
	}
	for p > 0 && (u[p-1] == ' ' || u[p-1] == '\t') {
		p--
	}
	atStart := p == 0 || u[p-1] == '\n' || u[p-1] == '\r'
	if !atStart && esc {
		if r, ok := escapedBefore(u, p); ok && (r == '\n' || r == '\r') {
			atStart = true
		}
	}
	if !atStart {
		return false
	}
	e := loc[1]
	for e < len(u) && (u[e] == ' ' || u[e] == '\t') {
		e++
	}
	if e < len(u) && u[e] >= 0x20 && bytes.IndexByte([]byte(`\"'`), u[e]) < 0 {
		return false
	}
	v := u[loc[4]:loc[5]]
	if len(v) < 4 {
		return false
	}
	for _, c := range v {
		if c < 'a' || c > 'z' {
			return true
		}
	}
	return false
}

// mysqladminCommands are the words mysqladmin takes as commands: after
// "-p " one of them is a command (the password is prompted for), any other
// word is the password typed where it does not belong.
var mysqladminCommands = lazyre.New(`^(?:create|debug|drop|extended-status|flush-[a-z-]+|kill|password|old-password|ping|processlist|purge|refresh|reload|shutdown|start-(?:replica|slave)|stop-(?:replica|slave)|status|variables|version)$`)

func notMysqladminCommand(u []byte, loc []int, _ bool) bool {
	return !mysqladminCommands().Match(u[loc[4]:loc[5]])
}
