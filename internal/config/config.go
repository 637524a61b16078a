// Package config loads memctl's TOML configuration.
//
// Every key has a default; an empty file is a valid config. Unknown keys
// are an error that names the key and its line. Values out of range are
// clamped the way Codex clamps them. One precedence applies to every key:
// flag > environment (MEMCTL_<SECTION>_<KEY>) > file > default, and the
// effective config remembers where each value came from.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/plainfile"
	"github.com/memctl/memctl/internal/project"
	"github.com/memctl/memctl/internal/redact"
	"github.com/pelletier/go-toml/v2"
)

// Config is the effective configuration.
type Config struct {
	Memories      Memories
	Provider      Provider
	Consolidation Consolidation
	Extract       Extract
	Sources       []Source
	Projects      []Project
	Redaction     Redaction
	Templates     Templates
	Health        Health
	Sync          Sync
	Team          Team

	// origins maps a dotted key ("memories.version") to where its value came from.
	origins map[string]Origin
	// clamped maps a dotted key to the out-of-range value it was given
	// (the value used is the nearest bound, as Codex clamps).
	clamped map[string]int
	// Path is the config file that was read ("" when none existed).
	Path string
}

// Memories holds Codex's [memories] keys, same names, defaults and clamps.
type Memories struct {
	Version                        memversion.Version
	DualWrite                      bool
	GenerateMemories               bool
	UseMemories                    bool
	DisableOnExternalContext       bool
	MaxRawMemoriesForConsolidation int
	MaxUnusedDays                  int
	MaxRolloutAgeDays              int
	MaxRolloutsPerStartup          int
	MinRolloutIdleHours            int
	MinRateLimitRemainingPercent   int
	ExtractModel                   string
	ConsolidationModel             string
}

// Provider is the [provider] section: which model answers Phase 1 and 2.
type Provider struct {
	Kind       string
	BaseURL    string
	APIKeyEnv  string
	Command    []string
	Timeout    time.Duration
	MaxRetries int
	// ContextWindow is the model's context window in tokens; 0 = unknown.
	ContextWindow int
}

// Consolidation is the [consolidation] section (Phase 2).
type Consolidation struct {
	Mode         ConsolidationMode
	AgentCommand []string
	AgentTimeout time.Duration
	// Review stops each consolidation that changes the memory at a pending
	// generation until `memctl approve` (or reject).
	Review bool
	// KeepGenerations bounds the consolidation history.
	KeepGenerations int
}

// Extract is the [extract] section (Phase 1 knobs beyond Codex's).
type Extract struct {
	// Concurrency is the number of model calls in flight (Codex: 8).
	Concurrency int
	// TokenLimit is the input budget per thread in tokens; 0 = 70% of the
	// provider's context window, or 150,000 when it is unknown.
	TokenLimit int
}

// Source is one [[sources]] entry. An empty Path (codex and claude-code
// only) means the agent's default folder.
type Source struct {
	Kind string
	Path string
}

// Project is one [[projects]] entry: the sessions whose working directory
// lies under Path belong to the project Key (when set), shown as Name
// (when set). It overrides the key memctl computes (docs/projects.md).
type Project struct {
	Path string
	Name string
	Key  string
}

// Redaction is the [redaction] section.
type Redaction struct {
	ExtraPatterns []string
}

// Health is the [health] section: the stale checks of the read path and
// the thresholds of memctl doctor (docs/stale.md, docs/doctor.md).
type Health struct {
	// StaleChecks turns on the evidence checks of summary and the MCP tools.
	StaleChecks bool
	// StaleBudget bounds the time one summary or tool call spends on them.
	StaleBudget time.Duration
	// RewriteThreshold is the percent of a file's lines that must be gone
	// for a memory resting on it to be stale.
	RewriteThreshold int
	// UncitedAfter: doctor reports a memory that this many consolidations
	// selected and no agent cited.
	UncitedAfter int
	// NearDuplicate is the percent similarity from which doctor calls two
	// raw memories near-duplicates.
	NearDuplicate int
}

// Sync is the [sync] section: the git remote memory travels through
// (docs/sync.md).
type Sync struct {
	// Remote is what git pushes to and fetches from ("" = sync is off).
	Remote string
	// Branch is the branch of the remote that holds the logs.
	Branch string
	// Conflict is what a merge git cannot settle does: fail or union.
	Conflict string
}

// Team is the [team] section: the reviewed team layer a repository
// commits (docs/team.md).
type Team struct {
	// Path is the team folder, relative to the repository's top folder.
	Path string
}

// Templates is the [templates] section.
type Templates struct {
	// Dir overrides the embedded prompts with files of the same name.
	Dir string
}

// Origin says where an effective value came from.
type Origin string

// The four origins, from strongest to weakest.
const (
	FromFlag    Origin = "flag"
	FromEnv     Origin = "env"
	FromFile    Origin = "file"
	FromDefault Origin = "default"
)

// Error is a config problem: the key (dotted), its line when known, and why.
// The command layer maps it to exit code 2.
type Error struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config")
	if e.File != "" {
		b.WriteString(" ")
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %q", e.Key)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Default returns the built-in configuration.
func Default() *Config {
	// Sized once: every key has an origin, and growing the map key by key
	// was most of building the defaults, which every summary does.
	c := &Config{origins: make(map[string]Origin, len(keys())+2), clamped: map[string]int{}}
	for _, k := range keys() {
		if err := k.set(c, k.def); err != nil {
			panic("config default " + k.name + ": " + err.Error())
		}
		c.origins[k.name] = FromDefault
	}
	c.origins[sourcesKey] = FromDefault
	c.origins[projectsKey] = FromDefault
	return c
}

// Parse reads a TOML document over the defaults. name is used in messages.
func Parse(r io.Reader, name string) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	c := Default()
	c.Path = name

	// A loose decode finds syntax errors and tells which keys the file
	// set, so origins are exact and values flow through the same setters
	// as env and flags.
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, decodeError(name, err, nil)
	}
	// A strict decode into the shape generated from the key table finds
	// unknown keys and values of the wrong type, with their lines.
	shape := reflect.New(fileShape())
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(shape.Interface()); err != nil {
		return nil, decodeError(name, err, raw)
	}
	var lines map[string]int // built on the first value error only
	for _, k := range keys() {
		section, field, _ := strings.Cut(k.name, ".")
		sec, ok := raw[section].(map[string]any)
		if !ok {
			continue
		}
		v, ok := sec[field]
		if !ok {
			continue
		}
		if err := k.set(c, v); err != nil {
			if lines == nil {
				lines = keyLines(data)
			}
			return nil, &Error{File: name, Line: lines[k.name], Key: k.name, Err: err}
		}
		c.origins[k.name] = FromFile
	}
	if list, ok := raw[sourcesKey].([]any); ok && len(list) > 0 {
		c.Sources = make([]Source, len(list))
		for i, e := range list {
			// The strict decode has checked the shape: tables of strings.
			m, _ := e.(map[string]any)
			kind, _ := m["kind"].(string)
			path, _ := m["path"].(string)
			if err := validSourceKind(kind); err != nil {
				return nil, &Error{File: name, Key: fmt.Sprintf("%s[%d].kind", sourcesKey, i), Err: err}
			}
			if path == "" && kind == "jsonl" {
				// codex and claude-code without a path mean the agent's
				// default folder; jsonl has none.
				return nil, &Error{File: name, Key: fmt.Sprintf("%s[%d].path", sourcesKey, i), Err: errors.New("must not be empty: a jsonl source has no default folder")}
			}
			c.Sources[i] = Source{Kind: kind, Path: path}
		}
		c.origins[sourcesKey] = FromFile
	}
	if list, ok := raw[projectsKey].([]any); ok && len(list) > 0 {
		c.Projects = make([]Project, len(list))
		for i, e := range list {
			m, _ := e.(map[string]any) // tables of strings: the strict decode checked
			p := Project{}
			p.Path, _ = m["path"].(string)
			p.Name, _ = m["name"].(string)
			p.Key, _ = m["key"].(string)
			key := func(field string) string { return fmt.Sprintf("%s[%d].%s", projectsKey, i, field) }
			switch {
			case strings.TrimSpace(p.Path) == "":
				return nil, &Error{File: name, Key: key("path"), Err: errors.New("must not be empty")}
			case p.Path != "~" && !strings.HasPrefix(p.Path, "~/") && !filepath.IsAbs(p.Path):
				return nil, &Error{File: name, Key: key("path"), Err: fmt.Errorf("%q is not an absolute path (or ~/…)", p.Path)}
			case strings.TrimSpace(p.Name) == "" && strings.TrimSpace(p.Key) == "":
				return nil, &Error{File: name, Key: key("name"), Err: errors.New("set name, key or both")}
			}
			c.Projects[i] = p
		}
		c.origins[projectsKey] = FromFile
	}
	return c, nil
}

// decodeError turns go-toml's errors into an *Error with the key and line.
// raw is the loosely decoded document when err comes from the strict
// decode; a value of the wrong type is then described by the key's kind
// ("want an integer, got a string") instead of in Go's terms.
func decodeError(name string, err error, raw map[string]any) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		return &Error{File: name, Line: line, Key: strings.Join(e.Key(), "."), Err: errors.New("unknown key")}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		key := strings.Join(de.Key(), ".")
		msg := errors.New(de.Error())
		if raw != nil {
			if why := typeError(raw, de.Key()); why != nil {
				msg = why
			}
		}
		return &Error{File: name, Line: line, Key: key, Err: msg}
	}
	return &Error{File: name, Err: err}
}

// Load reads the config file at path. When explicit is false a missing
// file means defaults; when true (--config or MEMCTL_CONFIG) it is an error.
func Load(path string, explicit bool) (*Config, error) {
	f, err := plainfile.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			return Default(), nil
		}
		return nil, &Error{File: path, Err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Error{File: path, Err: errors.New("is a directory")}
	}
	return Parse(f, path)
}

// ApplyEnv applies MEMCTL_<SECTION>_<KEY> variables (for example
// MEMCTL_MEMORIES_VERSION=v2 or MEMCTL_PROVIDER_KIND=heuristic).
func (c *Config) ApplyEnv(getenv func(string) string) error {
	for _, k := range keys() {
		name := EnvName(k.name)
		v := getenv(name)
		if v == "" {
			continue
		}
		if err := k.set(c, v); err != nil {
			return &Error{Key: k.name, Err: fmt.Errorf("from %s: %w", name, err)}
		}
		c.origins[k.name] = FromEnv
	}
	return nil
}

// EnvName is the environment variable that overrides a dotted key.
func EnvName(key string) string {
	// One allocation for an ASCII key (every key is): the summary names
	// every key's variable on every agent session.
	var b strings.Builder
	b.Grow(len("MEMCTL_") + len(key))
	b.WriteString("MEMCTL_")
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '.':
			b.WriteByte('_')
		case 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
		case c >= utf8.RuneSelf:
			return "MEMCTL_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Set applies a flag value to a dotted key.
func (c *Config) Set(key string, value any, origin Origin) error {
	for _, k := range keys() {
		if k.name == key {
			if err := k.set(c, value); err != nil {
				return &Error{Key: key, Err: err}
			}
			c.origins[key] = origin
			return nil
		}
	}
	return &Error{Key: key, Err: errors.New("unknown key")}
}

// Origin reports where the value of a dotted key came from.
func (c *Config) Origin(key string) Origin {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return FromDefault
}

// Entry is one effective key for `memctl config show`.
type Entry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Origin Origin `json:"origin"`
	Env    string `json:"env,omitempty"`
	// ClampedFrom is the out-of-range value the origin gave; Value is the
	// bound used instead. Absent when nothing was clamped.
	ClampedFrom *int `json:"clamped_from,omitempty"`
}

// Clamp is a value given out of its key's range and the bound used.
type Clamp struct {
	Key    string
	Given  int
	Used   int
	Lo, Hi int
	Origin Origin
}

// Clamps lists the values that were clamped, in key order.
func (c *Config) Clamps() []Clamp {
	var out []Clamp
	for _, k := range keys() {
		given, ok := c.clamped[k.name]
		if !ok {
			continue
		}
		lo, hi, _ := Range(k.name)
		out = append(out, Clamp{Key: k.name, Given: given, Used: k.get(c).(int), Lo: lo, Hi: hi, Origin: c.Origin(k.name)})
	}
	return out
}

// Range is the accepted range of an integer key; ok is false for a key
// that is not an integer.
func Range(key string) (lo, hi int, ok bool) {
	for _, k := range keys() {
		if k.name == key && k.kind == kindInt {
			return k.lo, k.hi, true
		}
	}
	return 0, 0, false
}

// EnvNames lists the environment variable of every key.
func EnvNames() []string {
	out := make([]string, 0, len(keys()))
	for _, k := range keys() {
		out = append(out, EnvName(k.name))
	}
	return out
}

// Entries lists every key with its effective value and origin, in a
// stable order, followed by the projects and the sources.
func (c *Config) Entries() []Entry {
	out := make([]Entry, 0, len(keys())+1)
	for _, k := range keys() {
		e := Entry{Key: k.name, Value: k.get(c), Origin: c.Origin(k.name), Env: EnvName(k.name)}
		if given, ok := c.clamped[k.name]; ok {
			e.ClampedFrom = &given
		}
		out = append(out, e)
	}
	projects := make([]map[string]string, 0, len(c.Projects))
	for _, p := range c.Projects {
		projects = append(projects, map[string]string{"path": p.Path, "name": p.Name, "key": p.Key})
	}
	out = append(out, Entry{Key: projectsKey, Value: projects, Origin: c.Origin(projectsKey)})
	src := make([]map[string]string, 0, len(c.Sources))
	for _, s := range c.Sources {
		src = append(src, map[string]string{"kind": s.Kind, "path": s.Path})
	}
	out = append(out, Entry{Key: sourcesKey, Value: src, Origin: c.Origin(sourcesKey)})
	return out
}

// Keys lists the dotted names of every scalar key, sorted as in the file.
func Keys() []string {
	out := make([]string, len(keys()))
	for i, k := range keys() {
		out[i] = k.name
	}
	return out
}

// ExpandProjectPaths makes every [[projects]] path absolute and clean,
// expanding a leading ~ to userHome; the command layer calls it once
// after loading.
func (c *Config) ExpandProjectPaths(userHome string) {
	for i, p := range c.Projects {
		c.Projects[i].Path = filepath.Clean(ExpandHome(p.Path, userHome))
	}
}

// ResolveTemplatesDir makes templates.dir absolute and refuses a folder
// that is not there, which would otherwise fall back to the embedded
// prompts without a word. A leading ~ expands to userHome; a relative path
// from the file is taken from the file's folder, since hooks and cron run
// memctl from any directory; one from the environment, from the current
// directory. The error names the file and line, or the variable.
func (c *Config) ResolveTemplatesDir(userHome string) error {
	const key = "templates.dir"
	dir := ExpandHome(c.Templates.Dir, userHome)
	if dir == "" {
		return nil
	}
	origin := c.Origin(key)
	if !filepath.IsAbs(dir) {
		if origin == FromFile && c.Path != "" {
			dir = filepath.Join(filepath.Dir(c.Path), dir)
		} else if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	c.Templates.Dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		err = fmt.Errorf("%s is not a folder", dir)
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("folder %s does not exist (unset the key to use the built-in prompts)", dir)
	}
	switch origin {
	case FromFile:
		line := 0
		if data, rerr := os.ReadFile(c.Path); rerr == nil {
			line = keyLines(data)[key]
		}
		return &Error{File: c.Path, Line: line, Key: key, Err: err}
	case FromEnv:
		return &Error{Key: key, Err: fmt.Errorf("from %s: %w", EnvName(key), err)}
	}
	return &Error{Key: key, Err: err}
}

// ProjectOverrides returns the [[projects]] entries as internal/project takes
// them.
func (c *Config) ProjectOverrides() []project.Override {
	out := make([]project.Override, 0, len(c.Projects))
	for _, p := range c.Projects {
		out = append(out, project.Override{Path: p.Path, Name: strings.TrimSpace(p.Name), Key: strings.TrimSpace(p.Key)})
	}
	return out
}

// ExpandHome replaces a leading ~ with home.
func ExpandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

func validSourceKind(k string) error {
	switch k {
	case "codex", "claude-code", "jsonl":
		return nil
	}
	return fmt.Errorf("unknown source kind %q (want codex, claude-code or jsonl)", k)
}

// key describes one scalar config key: its default, its TOML type, and how
// to set and get it. The table of keys is the one description of the
// config: the file's shape (fileShape), the defaults, the environment
// variables, `config init`'s file and docs/config.md are made from it.
type key struct {
	name   string
	kind   kind
	def    any
	doc    string
	clamp  string // the accepted range, for docs; "" when none
	lo, hi int    // an integer key's range
	set    func(c *Config, v any) error
	get    func(c *Config) any
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		if x != float64(int64(x)) {
			return 0, fmt.Errorf("want an integer, got %v", x)
		}
		return int(x), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("want an integer, got %q", x)
		}
		return n, nil
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}

func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return false, fmt.Errorf("want true or false, got %q", x)
		}
		return b, nil
	}
	return false, fmt.Errorf("want true or false, got %T", v)
}

func toString(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("want a string, got %T", v)
}

func toStrings(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return append([]string(nil), x...), nil
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: want a string, got %T", i, e)
			}
			out = append(out, s)
		}
		return out, nil
	case string:
		// From the environment: whitespace-separated argv.
		return strings.Fields(x), nil
	}
	return nil, fmt.Errorf("want an array of strings, got %T", v)
}

func toDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("want a duration such as \"10m\", got %q", x)
		}
		if d <= 0 {
			return 0, fmt.Errorf("must be positive, got %q", x)
		}
		return d, nil
	}
	return 0, fmt.Errorf("want a duration string such as \"10m\", got %T", v)
}

func enum(s string, allowed ...string) error {
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return fmt.Errorf("invalid value %q (want %s)", s, strings.Join(allowed, ", "))
}

func intKey(name string, def, lo, hi int, doc string, field func(c *Config) *int) key {
	// The range is written without fmt: the table is built by every
	// summary, and formatting each range with fmt was half of building it.
	return key{name: name, kind: kindInt, def: def, doc: doc, clamp: "[" + strconv.Itoa(lo) + ", " + strconv.Itoa(hi) + "]", lo: lo, hi: hi,
		set: func(c *Config, v any) error {
			n, err := toInt(v)
			if err != nil {
				return err
			}
			used := clampInt(n, lo, hi)
			*field(c) = used
			// Remember a clamp so it can be reported; a later source with
			// a value in range takes it back.
			if used != n {
				if c.clamped == nil {
					c.clamped = map[string]int{}
				}
				c.clamped[name] = n
			} else {
				delete(c.clamped, name)
			}
			return nil
		},
		get: func(c *Config) any { return *field(c) }}
}

func boolKey(name string, def bool, doc string, field func(c *Config) *bool) key {
	return key{name: name, kind: kindBool, def: def, doc: doc,
		set: func(c *Config, v any) error {
			b, err := toBool(v)
			if err != nil {
				return err
			}
			*field(c) = b
			return nil
		},
		get: func(c *Config) any { return *field(c) }}
}

func stringKey[S ~string](name, def, doc string, allowed []string, field func(c *Config) *S) key {
	clamp := ""
	if allowed != nil {
		clamp = strings.Join(allowed, " \\| ")
	}
	return key{name: name, kind: kindString, def: def, doc: doc, clamp: clamp,
		set: func(c *Config, v any) error {
			s, err := toString(v)
			if err != nil {
				return err
			}
			if allowed != nil {
				if err := enum(s, allowed...); err != nil {
					return err
				}
			}
			*field(c) = S(s)
			return nil
		},
		get: func(c *Config) any { return string(*field(c)) }}
}

func stringsKey(name, doc string, field func(c *Config) *[]string) key {
	return key{name: name, kind: kindStrings, def: []string{}, doc: doc,
		set: func(c *Config, v any) error {
			s, err := toStrings(v)
			if err != nil {
				return err
			}
			*field(c) = s
			return nil
		},
		get: func(c *Config) any { return append([]string{}, *field(c)...) }}
}

// patternsKey is a list of regular expressions for the redactor, checked
// as the redactor compiles them (Go syntax, none matching the empty
// string), so a bad one fails every command as a config error, not only
// the commands that redact.
func patternsKey(name, doc string, field func(c *Config) *[]string) key {
	k := stringsKey(name, doc, field)
	set := k.set
	k.set = func(c *Config, v any) error {
		s, err := toStrings(v)
		if err != nil {
			return err
		}
		if err := redact.CheckPatterns(s); err != nil {
			return err
		}
		return set(c, s)
	}
	return k
}

func durationKey(name, def, doc string, field func(c *Config) *time.Duration) key {
	return key{name: name, kind: kindDuration, def: def, doc: doc,
		set: func(c *Config, v any) error {
			d, err := toDuration(v)
			if err != nil {
				return err
			}
			*field(c) = d
			return nil
		},
		get: func(c *Config) any { return field(c).String() }}
}

// ProviderKinds lists the valid provider.kind values.
var ProviderKinds = []string{"auto", "openai", "openai-compatible", "anthropic", "command", "claude-code", "codex", "heuristic"}

// SyncConflicts lists the valid sync.conflict values.
var SyncConflicts = []string{"fail", "union"}

// ConsolidationMode is a value of consolidation.mode: how Phase 2
// rewrites the memory files.
type ConsolidationMode string

// The consolidation modes. Auto is resolved to model or heuristic by the
// provider kind before a consolidator is built.
const (
	ModeAuto      ConsolidationMode = "auto"
	ModeModel     ConsolidationMode = "model"
	ModeAgent     ConsolidationMode = "agent"
	ModeHeuristic ConsolidationMode = "heuristic"
)

// ConsolidationModes lists the valid consolidation.mode values.
var ConsolidationModes = []string{string(ModeAuto), string(ModeModel), string(ModeAgent), string(ModeHeuristic)}

// keys is the single table of scalar keys: defaults, clamps, docs. It is
// built on first use: a process that reads no config pays nothing for it.
var keys = sync.OnceValue(func() []key {
	return []key{
		stringKey("memories.version", string(memversion.V1), "which memory version is generated and read", memversion.Names(), func(c *Config) *memversion.Version { return &c.Memories.Version }),
		boolKey("memories.dual_write", false, "generate both v1 and v2; reading still uses version", func(c *Config) *bool { return &c.Memories.DualWrite }),
		boolKey("memories.generate_memories", true, "when false, newly indexed threads are stored disabled (never extracted)", func(c *Config) *bool { return &c.Memories.GenerateMemories }),
		boolKey("memories.use_memories", true, "when false, summary prints nothing and mcp exposes no memory", func(c *Config) *bool { return &c.Memories.UseMemories }),
		boolKey("memories.disable_on_external_context", false, "mark threads that used web search, tool search or MCP tools as polluted", func(c *Config) *bool { return &c.Memories.DisableOnExternalContext }),
		intKey("memories.max_raw_memories_for_consolidation", 256, 1, 4096, "Phase 2 selection size", func(c *Config) *int { return &c.Memories.MaxRawMemoriesForConsolidation }),
		intKey("memories.max_unused_days", 30, 0, 365, "retention window for prune and Phase 2 selection", func(c *Config) *int { return &c.Memories.MaxUnusedDays }),
		intKey("memories.max_rollout_age_days", 10, 0, 90, "Phase 1 takes threads updated within this many days", func(c *Config) *int { return &c.Memories.MaxRolloutAgeDays }),
		intKey("memories.max_rollouts_per_startup", 2, 1, 128, "Phase 1 claims per run and cap on running extraction jobs", func(c *Config) *int { return &c.Memories.MaxRolloutsPerStartup }),
		intKey("memories.min_rollout_idle_hours", 6, 1, 48, "Phase 1 takes threads idle at least this long", func(c *Config) *int { return &c.Memories.MinRolloutIdleHours }),
		intKey("memories.min_rate_limit_remaining_percent", 25, 0, 100, "skip Phase 1 when less of the provider's quota remains", func(c *Config) *int { return &c.Memories.MinRateLimitRemainingPercent }),
		stringKey("memories.extract_model", "", "Phase 1 model (empty: the provider's default)", nil, func(c *Config) *string { return &c.Memories.ExtractModel }),
		stringKey("memories.consolidation_model", "", "Phase 2 model (empty: the provider's default)", nil, func(c *Config) *string { return &c.Memories.ConsolidationModel }),

		stringKey("provider.kind", "auto", "which model answers Phase 1 and Phase 2 (auto: openai when OPENAI_API_KEY is set, else anthropic when ANTHROPIC_API_KEY is set, else heuristic, and memctl run offers a logged-in Claude Code or Codex; claude-code and codex go through that CLI and its login)", ProviderKinds, func(c *Config) *string { return &c.Provider.Kind }),
		stringKey("provider.base_url", "", "API endpoint (empty: the provider's public endpoint; claude-code and codex: the endpoint the CLI calls instead of its own)", nil, func(c *Config) *string { return &c.Provider.BaseURL }),
		stringKey("provider.api_key_env", "", "variable holding the API key (empty: OPENAI_API_KEY or ANTHROPIC_API_KEY by kind)", nil, func(c *Config) *string { return &c.Provider.APIKeyEnv }),
		stringsKey("provider.command", "kind = \"command\": argv of the program to run; claude-code, codex: the CLI's argv (empty: claude or codex on PATH)", func(c *Config) *[]string { return &c.Provider.Command }),
		durationKey("provider.timeout", "10m", "timeout of one model call attempt", func(c *Config) *time.Duration { return &c.Provider.Timeout }),
		intKey("provider.max_retries", 4, 0, 20, "retries of a failed call (429, 5xx, network)", func(c *Config) *int { return &c.Provider.MaxRetries }),
		intKey("provider.context_window", 0, 0, 10_000_000, "model context window in tokens (0: unknown)", func(c *Config) *int { return &c.Provider.ContextWindow }),

		stringKey("consolidation.mode", string(ModeAuto), "how Phase 2 rewrites the memory files (auto: model when a model provider is configured, else heuristic)", ConsolidationModes, func(c *Config) *ConsolidationMode { return &c.Consolidation.Mode }),
		stringsKey("consolidation.agent_command", "mode = \"agent\": argv, run inside the memory folder", func(c *Config) *[]string { return &c.Consolidation.AgentCommand }),
		durationKey("consolidation.agent_timeout", "30m", "timeout of the consolidation agent", func(c *Config) *time.Duration { return &c.Consolidation.AgentTimeout }),
		boolKey("consolidation.review", false, "stop each consolidation that changes the memory at a pending generation until memctl approve or reject (see docs/history.md)", func(c *Config) *bool { return &c.Consolidation.Review }),
		intKey("consolidation.keep_generations", 20, 1, 1000, "how many consolidation generations memctl history keeps (for review and rollback)", func(c *Config) *int { return &c.Consolidation.KeepGenerations }),

		intKey("extract.concurrency", 8, 1, 64, "model calls in flight during extract", func(c *Config) *int { return &c.Extract.Concurrency }),
		intKey("extract.token_limit", 0, 0, 10_000_000, "input budget per thread in tokens (0: 70% of context_window, or 150000)", func(c *Config) *int { return &c.Extract.TokenLimit }),

		patternsKey("redaction.extra_patterns", "more regular expressions to redact (Go syntax; one that does not compile or matches the empty string is a config error for every command)", func(c *Config) *[]string { return &c.Redaction.ExtraPatterns }),
		stringKey("templates.dir", "", "folder whose files override the built-in prompts, file by file (relative: from the config file's folder; must exist)", nil, func(c *Config) *string { return &c.Templates.Dir }),

		boolKey("health.stale_checks", true, "summary and the MCP tools flag memory whose files or commands changed since it was written", func(c *Config) *bool { return &c.Health.StaleChecks }),
		durationKey("health.stale_budget", "50ms", "time one summary or MCP call may spend on stale checks; what is left unchecked is not flagged", func(c *Config) *time.Duration { return &c.Health.StaleBudget }),
		intKey("health.rewrite_threshold", 50, 1, 100, "percent of a file's lines that must be gone for a memory resting on it to be stale", func(c *Config) *int { return &c.Health.RewriteThreshold }),
		intKey("health.uncited_after", 5, 1, 1000, "doctor reports memories that this many consolidations selected and no agent cited", func(c *Config) *int { return &c.Health.UncitedAfter }),
		intKey("health.near_duplicate", 80, 50, 100, "percent similarity from which doctor calls two raw memories near-duplicates", func(c *Config) *int { return &c.Health.NearDuplicate }),

		stringKey("sync.remote", "", "git remote memctl sync pushes to and pulls from (a private repository; empty: sync is off)", nil, func(c *Config) *string { return &c.Sync.Remote }),
		stringKey("sync.branch", "main", "branch of the sync remote that holds the machines' logs", nil, func(c *Config) *string { return &c.Sync.Branch }),
		stringKey("sync.conflict", "fail", "a merge git cannot settle: fail (change nothing, exit 6) or union (keep every record of both sides)", SyncConflicts, func(c *Config) *string { return &c.Sync.Conflict }),

		stringKey("team.path", ".memctl", "the team folder, relative to the repository's top folder (memctl team propose writes there; summary reads it)", nil, func(c *Config) *string { return &c.Team.Path }),
	}
})

// Versions returns the memory versions this config generates: version,
// plus the other one under dual_write (v1 first, as Codex spawns them).
func (c *Config) Versions() []memversion.Version {
	if c.Memories.DualWrite {
		return memversion.All()
	}
	return []memversion.Version{c.Memories.Version}
}

// TokenLimit is the Phase 1 input budget: the explicit limit, else 70% of
// the context window (Codex: 95% effective × 70%), else 150,000.
func (c *Config) TokenLimit() int {
	if c.Extract.TokenLimit > 0 {
		return c.Extract.TokenLimit
	}
	if w := c.Provider.ContextWindow; w > 0 {
		n := (w * 95 / 100) * 70 / 100
		if n < 1 {
			n = 1
		}
		return n
	}
	return 150_000
}

// sortedSections lists the sections in the order of the key table.
// Sections lists the config file's sections ("memories", "provider", …),
// in file order.
func Sections() []string { return sortedSections() }

func sortedSections() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys() {
		s, _, _ := strings.Cut(k.name, ".")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
