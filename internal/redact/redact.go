// Package redact removes secrets from text before a model or the memory store sees it.
//
// The floor is Codex's own four patterns (bearer tokens, sk- keys, AWS access key ids and
// key/secret/token/password assignments), applied with Codex's exact semantics. On top of
// that memctl catches the families people actually leak (see Rules), removes
// <private>…</private> spans whole and applies the user's extra patterns.
//
// Text reaches the redactor raw and JSON-escaped, often both at once (a transcript line
// holding a tool's output), so where a rule wants a boundary before a secret, an escape
// sequence such as \n, \t or \u003c counts as the character it stands for: a secret
// that starts a line of escaped output is found like one that starts a raw line.
//
// A keyword prefilter finds each rule's anchor literals in one pass, and a rule's regular
// expression runs only where its anchors occur, so ordinary text streams through at
// memory speed. Processing is line by line: Copy handles inputs of any size in bounded
// memory and still sees every secret, whatever the read boundaries.
package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
)

// Token is the text that replaces every secret.
const Token = "[REDACTED_SECRET]"

const (
	// readSize is how much Copy asks for per read.
	readSize = 256 << 10
	// MaxLine is the longest line Copy keeps whole. A longer line is cut at a space,
	// quote or comma near the limit (or at the limit itself), so a secret straddling that
	// cut could survive; real transcript lines are far shorter.
	MaxLine = 16 << 20
)

// Redactor replaces secrets with Token. It is safe for concurrent use.
type Redactor struct {
	rules  []*rule
	sc     *scanner
	extras []*regexp.Regexp
	// escapes makes an escape sequence before a match count as the character it
	// stands for (a \n escape as a line break), so a secret that starts a line of
	// JSON-escaped tool output is found. Only the Codex parity check goes without.
	escapes bool

	structMask, privMask, pemMask, assignMask uint64
}

// New builds the full rule set plus the user's extra regular expressions (the
// [redaction] extra_patterns setting, Go regexp syntax). Each extra pattern's whole match
// is replaced. A pattern that does not compile gives an error naming its index. The
// built-in rules and their scanner are built once per process and shared by every
// Redactor: summary builds one on every agent turn.
func New(extra []string) (*Redactor, error) {
	res, err := compileExtras(extra)
	if err != nil {
		return nil, err
	}
	r := *defaultRedactor()
	r.extras = res
	return &r, nil
}

// CheckPatterns reports what New would refuse in extra, without building the rules.
func CheckPatterns(extra []string) error {
	_, err := compileExtras(extra)
	return err
}

func compileExtras(extra []string) ([]*regexp.Regexp, error) {
	var res []*regexp.Regexp
	var errs []error
	for i, p := range extra {
		re, err := regexp.Compile(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("redaction extra_patterns[%d]: %w", i, err))
			continue
		}
		if re.MatchString("") {
			errs = append(errs, fmt.Errorf("redaction extra_patterns[%d]: %q matches the empty string", i, p))
			continue
		}
		res = append(res, re)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return res, nil
}

func build(rules []*rule, escapes bool) *Redactor {
	return withScanner(rules, newScanner(rules), escapes)
}

// withScanner is the Redactor of rules with sc, the scanner of their anchors.
func withScanner(rules []*rule, sc *scanner, escapes bool) *Redactor {
	r := &Redactor{rules: rules, sc: sc, escapes: escapes}
	for i, ru := range rules {
		bit := uint64(1) << uint(i)
		switch {
		case ru.kind == kindPrivateTag:
			r.privMask |= bit
		case ru.name == "private_key_block":
			r.pemMask |= bit
		case ru.name == "codex_assignment":
			r.assignMask |= bit
		}
	}
	r.structMask = r.privMask | r.pemMask
	return r
}

// defaultRedactor runs the built-in rules with the scanner compiled into
// the program (scanner_builtin.go): building it took most of a summary's
// redaction, and a summary runs before every agent session.
var defaultRedactor = sync.OnceValue(func() *Redactor { return withScanner(builtinRules(), builtinScanner(), true) })

// Default returns the full built-in rule set without extra patterns. It is built once.
func Default() *Redactor { return defaultRedactor() }

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	out, changed := r.redact([]byte(s))
	if !changed {
		return s
	}
	return string(out)
}

// Bytes returns a redacted copy of b; b itself is never modified.
func (r *Redactor) Bytes(b []byte) []byte {
	out, _ := r.redact(b)
	return out
}

func (r *Redactor) redact(b []byte) ([]byte, bool) {
	e := engine{r: r, out: make([]byte, 0, len(b)+len(b)/32)}
	e.block(b)
	e.finish()
	e.out = r.applyExtras(e.out, &e.changed)
	return e.out, e.changed
}

func (r *Redactor) applyExtras(b []byte, changed *bool) []byte {
	for _, re := range r.extras {
		if re.Match(b) {
			b = re.ReplaceAllLiteral(b, []byte(Token))
			*changed = true
		}
	}
	return b
}

// Copy streams src to dst through the redactor in bounded memory. Lines are the unit of
// work (up to MaxLine bytes), so secrets that straddle read boundaries are still found;
// <private> spans and private key blocks may cross lines and are removed whole.
func (r *Redactor) Copy(dst io.Writer, src io.Reader) error {
	e := engine{r: r}
	buf := make([]byte, 0, readSize)
	flush := func() error {
		e.out = r.applyExtras(e.out, &e.changed)
		if len(e.out) == 0 {
			return nil
		}
		_, err := dst.Write(e.out)
		e.out = e.out[:0]
		return err
	}
	for {
		if len(buf) == cap(buf) {
			if cut := bytes.LastIndexByte(buf, '\n') + 1; cut == 0 && cap(buf) >= MaxLine {
				cut = splitPoint(buf)
				e.block(buf[:cut])
				if err := flush(); err != nil {
					return err
				}
				buf = buf[:copy(buf, buf[cut:])]
			} else if cut == 0 {
				nb := make([]byte, len(buf), min(2*cap(buf), MaxLine))
				copy(nb, buf)
				buf = nb
			}
		}
		n, rerr := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if rerr == io.EOF {
			e.block(buf)
			e.finish()
			return flush()
		}
		if rerr != nil {
			return fmt.Errorf("redact: read: %w", rerr)
		}
		cut := bytes.LastIndexByte(buf[len(buf)-n:], '\n')
		if cut < 0 {
			continue
		}
		cut += len(buf) - n + 1
		e.block(buf[:cut])
		if err := flush(); err != nil {
			return err
		}
		buf = buf[:copy(buf, buf[cut:])]
	}
}

// splitPoint picks where to cut an over-long line: after the last space, tab, quote or
// comma in its final 4 KiB, where a secret is least likely to straddle the cut.
func splitPoint(b []byte) int {
	from := max(0, len(b)-4096)
	if i := bytes.LastIndexAny(b[from:], " \t\",'"); i >= 0 {
		return from + i + 1
	}
	return len(b)
}

// Codex applies only Codex's four patterns, in Codex's order, to the whole of s, with
// Codex's Unicode semantics for \b and \s. It is the floor the full rule set must never
// fall below, kept for parity tests and benchmarks.
func Codex(s string) string {
	b := []byte(s)
	changed := false
	for _, ru := range codexRules() {
		if nb, ok := ru.scanAll(b, false); ok {
			b, changed = nb, true
		}
	}
	if !changed {
		return s
	}
	return string(b)
}
