package project

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/plainfile"
)

// repo is a checkout found above a working directory.
type repo struct {
	top       string // the checkout's top folder (a worktree's own)
	commonDir string // the git folder holding config and objects
	mainRoot  string // the main checkout's top folder (a worktree's repository)
}

// findRepo walks up from dir to the nearest folder holding .git, as git
// does (GIT_DIR and friends are not consulted: a transcript's cwd is read
// long after the agent's environment is gone).
func findRepo(dir string) (repo, bool) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				return repo{top: d, commonDir: dotGit, mainRoot: d}, true
			}
			if r, ok := linkedRepo(d, dotGit); ok {
				return r, true
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return repo{}, false
		}
		d = parent
	}
}

// linkedRepo follows a .git file ("gitdir: …"), written by `git worktree
// add` and for submodules, to the git folder whose config counts.
func linkedRepo(top, dotGit string) (repo, bool) {
	b, err := plainfile.ReadFile(dotGit)
	if err != nil {
		return repo{}, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return repo{}, false
	}
	gitDir = absFrom(top, strings.TrimSpace(gitDir))
	common := gitDir
	if c, err := plainfile.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = absFrom(gitDir, strings.TrimSpace(string(c)))
	}
	main := top
	switch {
	case filepath.Base(common) == ".git":
		main = filepath.Dir(common)
	case bare(common):
		// The bare layout (proj/.bare, or app.git, with every branch a
		// worktree anywhere): the repository is its git folder.
		main = common
	}
	return repo{top: top, commonDir: common, mainRoot: main}, true
}

var bareRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?mi)^\s*bare\s*=\s*true\s*$`) })

// bare reports a git folder whose config says it is a bare repository.
func bare(gitDir string) bool {
	b, err := plainfile.ReadFile(filepath.Join(gitDir, "config"))
	return err == nil && bareRe().Match(b)
}

// name names a repository by its folder: a bare one's without ".git" or,
// hidden in a project's folder (proj/.bare), that folder's.
func (r repo) name() string {
	if r.mainRoot != r.commonDir {
		return folderName(r.mainRoot)
	}
	if b := strings.TrimSuffix(filepath.Base(r.mainRoot), ".git"); b != "" && !strings.HasPrefix(b, ".") {
		return b
	}
	return folderName(filepath.Dir(r.mainRoot))
}

func absFrom(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// remoteURL is the origin remote's URL from the repository's config, or
// the only remote's when there is no origin.
func (r repo) remoteURL() string {
	f, err := plainfile.Open(filepath.Join(r.commonDir, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	urls := parseRemotes(f)
	if u, ok := urls["origin"]; ok {
		return u
	}
	if len(urls) == 1 {
		for _, u := range urls {
			return u
		}
	}
	return ""
}

// parseRemotes reads the url of every [remote "name"] section of a git
// config file. Only what a key needs is understood: sections, subsections,
// comments and quoted values; includes and insteadOf rewrites are not.
func parseRemotes(f *os.File) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20) // starts at 4 KB: a .git/config is a few hundred bytes
	remote := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			remote = ""
			if name, sub, ok := sectionHeader(line); ok && strings.EqualFold(name, "remote") {
				remote = strings.ReplaceAll(sub, `\"`, `"`)
			}
			continue
		}
		if remote == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "url") {
			continue
		}
		if _, seen := out[remote]; !seen { // the first url is the fetch url
			out[remote] = unquote(strings.TrimSpace(value))
		}
	}
	return out
}

// sectionHeader reads a section line of a git config, `[name]` or
// `[name "subsection"]` with anything after the bracket, as the pattern
// ^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\] would: the
// subsection is returned as written, its escapes left in. It is read by
// hand, not with a regular expression, because summary resolves the
// project on every agent turn and compiling one cost more than the rest.
func sectionHeader(line string) (name, sub string, ok bool) {
	s := trimConfigSpace(line[1:])
	n := 0
	for n < len(s) && (isAlnum(s[n]) || s[n] == '.' || s[n] == '-') {
		n++
	}
	if n == 0 {
		return "", "", false
	}
	name, s = s[:n], s[n:]
	if t := trimConfigSpace(s); len(t) < len(s) && t != "" && t[0] == '"' {
		for i := 1; i < len(t); i++ {
			if t[i] == '\\' {
				if i+1 == len(t) || t[i+1] == '\n' {
					break
				}
				i++
				continue
			}
			if t[i] == '"' {
				if rest := trimConfigSpace(t[i+1:]); rest != "" && rest[0] == ']' {
					return name, t[1:i], true
				}
				break
			}
		}
	}
	if rest := trimConfigSpace(s); rest != "" && rest[0] == ']' {
		return name, "", true
	}
	return "", "", false
}

// trimConfigSpace drops the leading white space of s as \s matches it.
func trimConfigSpace(s string) string {
	return strings.TrimLeft(s, " \t\n\f\r")
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func unquote(v string) string {
	// Strip a trailing comment outside quotes, then the quotes.
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case (c == '#' || c == ';') && !inQuote:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitRootCommit asks git for the first commit of the history checked out
// in dir; with several roots (merged histories) the smallest hash wins, so
// the answer does not depend on the order git lists them.
func gitRootCommit(dir string) string {
	bin, err := exec.LookPath("git")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-C", dir, "rev-list", "--max-parents=0", "HEAD")
	cmd.Env = gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var shas []string
	for _, l := range bytes.Fields(out) {
		if s := string(l); isHex(s) && (len(s) == 40 || len(s) == 64) {
			shas = append(shas, s)
		}
	}
	if len(shas) == 0 {
		return ""
	}
	sort.Strings(shas)
	return shas[0]
}

// gitEnv drops the variables that would point git at another repository.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// scpLike reads the scp-like form of a remote, [user@]host:path, as the
// pattern ^(?:[^@/]+@)?([^:/]{2,}):(.*)$ would: a user without "@" or
// "/", a host of two characters or more without ":" or "/", a path on one
// line. It is read by hand because summary resolves the project on every
// agent turn and compiling the pattern cost more than the rest.
func scpLike(raw string) (host, path string, ok bool) {
	if at := strings.IndexByte(raw, '@'); at > 0 && !strings.Contains(raw[:at], "/") {
		if host, path, ok := splitSCPHost(raw[at+1:]); ok {
			return host, path, true
		}
	}
	return splitSCPHost(raw)
}

// splitSCPHost reads host:path, the part of scpLike after the user.
func splitSCPHost(s string) (host, path string, ok bool) {
	end := strings.IndexAny(s, ":/")
	if end < 0 || s[end] != ':' || utf8.RuneCountInString(s[:end]) < 2 || strings.Contains(s[end+1:], "\n") {
		return "", "", false
	}
	return s[:end], s[end+1:], true
}

// splitRemote turns a remote URL into a host and a path. A local remote
// (a path, or file://) has host "file" and an absolute path resolved
// against base, the repository's folder.
func splitRemote(raw, base string) (host, path string, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", false
	}
	scpHost, scpPath, scp := scpLike(raw)
	switch {
	case strings.Contains(raw, "://"):
		scheme, hostname, urlPath, ok := parseRemoteURL(raw)
		if !ok {
			return "", "", false
		}
		if scheme == "file" {
			return "file", filepath.Clean(urlPath), urlPath != ""
		}
		host, path = strings.ToLower(hostname), urlPath
	case scp && !filepath.IsAbs(raw):
		host, path = strings.ToLower(scpHost), scpPath
	default:
		if !filepath.IsAbs(raw) {
			if base == "" {
				return "", "", false
			}
			raw = filepath.Join(base, raw)
		}
		return "file", filepath.Clean(raw), true
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.Trim(path, "/")
	if host == "" || path == "" {
		return "", "", false
	}
	return host, path, true
}

// remoteKey is the key of a remote URL, "" when it is not one.
func remoteKey(raw, base string) string {
	host, path, ok := splitRemote(raw, base)
	if !ok {
		return ""
	}
	if host == "file" {
		return prefixRemote + "file:" + strings.TrimSuffix(path, ".git")
	}
	// Hosts compare paths without regard to case (GitHub, GitLab), and a
	// key must not split one repository in two over a capital letter.
	return prefixRemote + host + "/" + strings.ToLower(path)
}

// remoteName is owner/name of a hosted remote, or a local remote's folder
// name.
func remoteName(raw, base string) string {
	host, path, ok := splitRemote(raw, base)
	if !ok {
		return ""
	}
	if host == "file" {
		return strings.TrimSuffix(filepath.Base(path), ".git")
	}
	// From the key's lower-case path, so every clone of one remote shows
	// the same name whatever case its URL was typed in.
	parts := strings.Split(strings.ToLower(path), "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return parts[0]
}
