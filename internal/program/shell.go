package program

import (
	"path"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/lazyre"
)

// What a line does to files: only the simplest forms are read; what the shell could expand is not guessed.

// FileChange is one file a line changes: Op "write", "update", "delete", "add" or "moved to " and where. Path ""
// stands for files an in-place edit changed that the shell expands or a pipe supplies, Op then the line.
type FileChange struct{ Path, Op string }

// FilesChanged reads rm, touch, mv, sed -i, perl -pi, git rm, git mv of plain paths and where output is written
// (> f, >> f, | tee f), in each command of a line outside its heredocs' text: changes no edit tool reports.
func FilesChanged(cmd string) (out []FileChange) {
	dir, unnamed := "", false // a relative path lies under the folder a cd before it moved to
	under := func(p string) string { return map[bool]string{true: p, false: path.Join(dir, p)}[path.IsAbs(p)] }
	for _, part := range split(withoutHeredocs(cmd), false) {
		if f := strings.Fields(part); len(f) > 1 && f[0] == "cd" {
			dir = under(f[1])
		}
		own := simpleFiles(stages(part)[0], false) // what a pipe's first command names: later ones are fed it
		for _, c := range append(own, written(part)...) {
			if p := under(c.Path); !strings.ContainsAny(p, "$`~*?'\"") {
				out = append(out, FileChange{p, c.Op})
			}
		}
		unnamed = unnamed || inPlaceRE().MatchString(blankQuotes(part, true)) && own == nil
	}
	return append(out, map[bool][]FileChange{true: {{"", cmd}}}[unnamed]...)
}

// inPlaceRE is sed or perl with a flag that rewrites the files it is given: -i, -i.bak, --in-place, -pi.
var inPlaceRE = lazyre.New(`(?:^|[\s/])(?:sed|perl)\s+(?:[^\s|&;]+\s+)*?-(?:-in-place|[a-hj-z0-9]*i)`)

// written is where a command's output goes: > f, >> f, &> f, | tee f (not /dev/…, a descriptor, nor 2> errors); a
// check's output is its log, no change of the work it checks.
func written(part string) (out []FileChange) {
	if IsCheck(part) {
		return nil
	}
	for _, m := range redirectRE().FindAllStringSubmatch(blankQuotes(part, true), -1) { // a > in quotes is text
		if !strings.HasPrefix(m[3], "/dev/") {
			out = append(out, FileChange{m[3], map[bool]string{true: "update", false: "write"}[m[1]+m[2] != ""]})
		}
	}
	return out
}

// withoutHeredocs is a line without its heredocs' text; when a heredoc's end is not found, without all after it.
func withoutHeredocs(cmd string) string {
	line, rest, _ := strings.Cut(cmd, "\n")
	if m := heredocRE().FindStringSubmatch(line); m != nil {
		_, rest, _ = strings.Cut("\n"+rest+"\n", "\n"+m[1]+"\n")
	} else if !strings.Contains(rest, "<<") {
		return cmd
	}
	return line + "\n" + withoutHeredocs(rest)
}

// heredocRE opens a heredoc ("<<EOF", "<<-'EOF'"; not "<<<" text) and names the line that ends it.
var heredocRE = lazyre.New(`(?:^|[^<])<<-?\s*\\?['"]?([\w.-]+)`)

// FilesRead names up to four files each simple command of a reading line prints ("sed -n '1,80p' main.go").
func FilesRead(cmd string) (out []string) {
	for _, part := range parts(cmd) {
		for _, f := range simpleFiles(part, true) {
			out = append(out, f.Path)
		}
	}
	return out
}

// simpleFiles reads a line of plain paths, nothing the shell expands: the files it changes or, with reads, prints.
func simpleFiles(cmd string, reads bool) []FileChange {
	cmd = discardRE().ReplaceAllString(cmd, "")
	f := coreWords(shellWords(cmd))
	if strings.ContainsAny(blankQuotes(cmd, false), "|;&><*?$`\n") || len(f) < 2 {
		return nil
	}
	prog, args, op := path.Base(f[0]), f[1:], ""
	inPlace := (prog == "sed" || prog == "perl") && inPlaceRE().MatchString(blankQuotes(cmd, true))
	switch {
	case reads && fileReaders()[prog] && !inPlace:
		op = "read"
	case reads:
		return nil
	case inPlace && len(args) > 1 && !strings.HasPrefix(f[len(f)-1], "-"):
		return []FileChange{{f[len(f)-1], "update"}}
	case prog == "git" && (args[0] == "rm" && !slices.Contains(args, "--cached") || args[0] == "mv"): // --cached stays
		prog, args = args[0], args[1:]
		fallthrough
	case prog == "rm" || prog == "touch" || prog == "mv":
		op = map[string]string{"rm": "delete", "touch": "add", "mv": "moved to " + f[len(f)-1]}[prog]
	default:
		return nil
	}
	var out []FileChange
	script := reads && prog == "sed" // sed's first operand is its script
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case script:
			script = false
		case !reads && len(out) < 10,
			reads && len(out) < 4 && strings.ContainsAny(a, "./") && !isNumber(strings.ReplaceAll(a, ",", "")):
			out = append(out, FileChange{a, op})
		}
	}
	if n := len(out); prog == "mv" && n > 1 { // the sources move, no deletion; the last operand is one source's new
		out[n-1].Op = "add" // name when it has a dot, else maybe a folder: not guessed
		if n > 2 || !strings.Contains(path.Base(out[n-1].Path), ".") {
			out = out[:n-1]
		}
	}
	return out
}

// Restore is what a line throws away: all uncommitted changes (git stash, git reset --hard, git checkout .), what no
// commit holds (Untracked: git clean -f, git stash -u) or the files it restores or cleans; or it brings stashed
// changes back (Unstash). Branch: it may have moved the checkout (git switch, git checkout x, gh pr checkout).
type Restore struct {
	All, Untracked, Unstash, Branch bool
	Files                           []string
}

// Restores reads the git commands of a line that throw edits away or bring them back; "git checkout x" names a
// branch or a path, which the caller tells apart by the files it knows changed.
func Restores(cmd string) Restore {
	var r Restore
	for _, part := range parts(cmd) {
		w := coreWords(strings.Fields(part))
		args := gitArgs(w)
		r.Branch = r.Branch || len(w) > 2 && path.Base(w[0]) == "gh" && w[2] == "checkout" ||
			len(args) > 0 && args[0] == "switch"
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "stash":
			r.Unstash = r.Unstash || len(args) > 1 && (args[1] == "pop" || args[1] == "apply")
			r.All = r.All || len(args) == 1 || args[1] == "push" || args[1] == "save" || strings.HasPrefix(args[1], "-")
			r.Untracked = r.Untracked || r.All &&
				(slices.Contains(args, "-u") || slices.Contains(args, "--include-untracked"))
		case "clean": // -n only lists what would go
			if paths := Operands(args[1:]); !slices.Contains(args, "-n") && !slices.Contains(args, "--dry-run") {
				r.Files, r.Untracked = append(r.Files, paths...), r.Untracked || len(paths) == 0
			}
		case "reset":
			r.All = r.All || slices.Contains(args, "--hard")
		case "checkout", "restore":
			if args[0] == "restore" && slices.Contains(args, "--staged") && !slices.Contains(args, "--worktree") {
				continue // only unstages: the edit stays in the file
			}
			paths := Operands(args[1:])
			whole := len(paths) > 0 && (paths[0] == "." || paths[0] == ":/")
			r.Branch = r.Branch || args[0] == "checkout" && !slices.Contains(args, "--") && len(paths) > 0 && !whole
			r.All = r.All || len(paths) == 1 && whole
			r.Files = append(r.Files, paths...) // "." and ":/" name no file
		}
	}
	return r
}

// Operands returns the words that are not options, without their quotes.
func Operands(args []string) (out []string) {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, strings.Trim(a, `'"`))
		}
	}
	return out
}

// fileReaders print the files their arguments name.
var fileReaders = lazyre.Words(`cat sed head tail nl less bat more`)

// redirectRE is a redirection of output (not "=>", "->", nor 2> of errors) or a tee at a pipe: whether it appends
// (>>, tee -a) and its target.
var redirectRE = lazyre.New(`(?:^|[^=2-9>-])(?:>(>?)\|?|\|\s*tee\s+(-a\s+)?)\s*([^&\s;|<>()=-][^\s;&|<>)]*)`)

// discardRE is a redirection that writes no file: to /dev/null, or of one stream into another (2>&1).
var discardRE = lazyre.New(`\s+(?:[12&]?>>?\s*/dev/null|[12]?>&[12])\b`)

// blankQuotes turns single-quoted text and double-quoted text that expands nothing (with all, any) to _: syntax stays.
func blankQuotes(cmd string, all bool) string {
	b, scan := []byte(cmd), strings.NewReplacer(`\\`, "__", `\"`, "__", `\'`, "__").Replace(cmd) // \" is no quote
	for i := 0; i < len(b); i++ {
		q := scan[i]
		if q != '\'' && q != '"' {
			continue
		}
		end := i + 1 + strings.IndexByte(scan[i+1:], q)
		if end == i { // not closed
			break
		}
		if all || q == '\'' || !strings.ContainsAny(cmd[i+1:end], "$`\\") {
			for k := i + 1; k < end; k++ {
				b[k] = '_'
			}
		}
		i = end
	}
	return string(b)
}

// shellWords splits a simple line into words, 'a b' and "a b" one word without its quotes.
func shellWords(cmd string) (out []string) {
	blank, word, open := blankQuotes(cmd, true)+" ", []byte{}, false // quoted text blanked with no space in it
	for i, c := range []byte(blank) {
		switch c {
		case ' ', '\t', '\n':
			if open {
				out = append(out, string(word))
			}
			word, open = word[:0], false
		case '\'', '"':
			open = true
		default:
			word, open = append(word, cmd[i]), true
		}
	}
	return out
}
