package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultMaxHashBytes is the largest file whose content is hashed; a
// larger one is recorded by its stat alone, so only its deletion counts.
const DefaultMaxHashBytes = 4 << 20

// sketchSize is how many line hashes a file's sketch keeps (a uniform
// sample of its distinct lines: the smallest hashes).
const sketchSize = 32

// Item is one piece of evidence as recorded at extraction.
type Item struct {
	Ref
	// Seq numbers the item within its memory (the store's row); 0 when
	// it was never stored.
	Seq int
	// Abs is the absolute path that is checked: the file, or the script
	// file that defines the command.
	Abs       string
	Size      int64
	ModTimeNs int64
	// Hash is the content's SHA-256 (hex, 128 bits); "" when the file was
	// too large to hash.
	Hash string
	// Sketch samples the file's distinct lines (base64 of up to 32 line
	// hashes), to tell an edit from a rewrite without keeping the file.
	Sketch string
	// RangeHash identifies the cited lines (LineStart..LineEnd), so a
	// check can tell whether they are still in the file, wherever they moved.
	RangeHash string
}

// Record is the evidence of one memory.
type Record struct {
	ThreadID string
	// Scope is the project the memory belongs to (its key when known,
	// else its folder), so a scoped summary checks only its own.
	Scope string
	Cwd   string
	// RolloutFile is the memory's rollout summary, relative to the memory
	// folder, which the messages point to.
	RolloutFile string
	Description string
	// Handled is what the last consolidation did with the memory:
	// HandledDemoted or HandledDropped, "" when it found it current.
	Handled string
	// Commit is the repository's HEAD when the evidence was recorded.
	Commit     string
	RecordedAt int64
	Items      []Item
}

// What a consolidation did with a stale memory (Record.Handled).
const (
	HandledDemoted = "demoted" // its tips left the summary; its index line says it is stale
	HandledDropped = "dropped" // everything it rested on is gone: it left the summary
)

// CaptureOptions bounds a capture.
type CaptureOptions struct {
	MaxHashBytes int64 // 0: DefaultMaxHashBytes
}

// Capture records the refs that exist under root (the memory's working
// folder, or the repository it is in): files by stat, hash, line sketch
// and cited range; commands by the script file that defines them, only
// when it does. Refs that do not resolve are dropped: a memory is stale
// only when something it rested on changed, never because it named
// something that was not there.
func Capture(root string, refs []Ref, opts CaptureOptions) []Item {
	if root == "" || !filepath.IsAbs(root) {
		return nil
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil
	}
	if opts.MaxHashBytes <= 0 {
		opts.MaxHashBytes = DefaultMaxHashBytes
	}
	root = filepath.Clean(root)
	top := RepoTop(root)
	// The real folders, for captureFile to tell where a path really leads.
	real := []string{evalOrEmpty(root), evalOrEmpty(top)}
	var out []Item
	seen := map[string]bool{}
	for _, r := range refs {
		var it Item
		var ok bool
		switch r.Kind {
		case KindFile:
			it, ok = captureFile(root, top, real, r, opts)
		case KindCommand:
			it, ok = captureCommand(root, top, r)
		}
		if !ok {
			continue
		}
		key := it.Kind + "\x00" + it.Abs + "\x00" + it.Target + "\x00" + it.Text()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, it)
	}
	return out
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// evalOrEmpty is p with its symbolic links resolved, "" when that fails.
func evalOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return real
}

// really reports whether the folder holding abs is, once its symbolic
// links are resolved, one of realRoots or below one: a project folder
// that links elsewhere (vendor -> ~/.ssh) must not lead a capture out.
func really(abs string, realRoots []string) bool {
	dir := evalOrEmpty(filepath.Dir(abs))
	for _, r := range realRoots {
		if dir != "" && within(dir, r) {
			return true
		}
	}
	return false
}

func captureFile(root, top string, realRoots []string, r Ref, opts CaptureOptions) (Item, bool) {
	p := r.Path
	if strings.HasPrefix(p, "~") {
		return Item{}, false
	}
	var candidates []string
	if filepath.IsAbs(p) {
		candidates = []string{filepath.Clean(p)}
	} else {
		candidates = []string{filepath.Join(root, filepath.FromSlash(p))}
		if top != "" && top != root {
			candidates = append(candidates, filepath.Join(top, filepath.FromSlash(p)))
		}
	}
	for _, abs := range candidates {
		// Evidence is the project's: nothing outside the memory's folder or
		// its repository.
		if !within(abs, root) && !within(abs, top) {
			continue
		}
		if strings.ContainsAny(abs, "\t\n\r") {
			continue
		}
		if !really(abs, realRoots) {
			continue
		}
		fi, err := os.Lstat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		it := Item{Ref: r, Abs: abs, Size: fi.Size(), ModTimeNs: fi.ModTime().UnixNano()}
		if fi.Size() <= opts.MaxHashBytes {
			data, err := readAtMost(abs, opts.MaxHashBytes)
			if err != nil {
				continue
			}
			it.Hash = contentHash(data)
			lines := lineHashes(data)
			it.Sketch = encodeSketch(bottomK(lines.set(), sketchSize))
			if r.LineStart > 0 {
				if h, ok := lines.rangeHash(r.LineStart, r.LineEnd); ok {
					it.RangeHash = h
				} else {
					// The cited lines are not in the file: keep the file,
					// forget the range.
					it.LineStart, it.LineEnd = 0, 0
				}
			}
		} else {
			it.LineStart, it.LineEnd = 0, 0
		}
		return it, true
	}
	return Item{}, false
}

func captureCommand(root, top string, r Ref) (Item, bool) {
	for _, dir := range []string{root, top} {
		if dir == "" {
			continue
		}
		for _, name := range scriptFiles(r.Runner) {
			abs := filepath.Join(dir, name)
			fi, err := os.Lstat(abs)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > DefaultMaxHashBytes {
				continue
			}
			data, err := os.ReadFile(abs)
			if err != nil {
				continue
			}
			defined, _ := defines(r.Runner, data, r.Target)
			if !defined {
				continue
			}
			r.Path = name
			return Item{Ref: r, Abs: abs, Size: fi.Size(), ModTimeNs: fi.ModTime().UnixNano(), Hash: contentHash(data)}, true
		}
		if top == root {
			break
		}
	}
	return Item{}, false
}

// scriptFiles are the files that define a runner's targets, in the
// order the runner looks for them.
func scriptFiles(runner string) []string {
	switch runner {
	case RunnerMake:
		return []string{"GNUmakefile", "makefile", "Makefile"}
	case RunnerNPM, RunnerPNPM, RunnerYarn:
		return []string{"package.json"}
	case RunnerJust:
		return []string{"justfile", "Justfile", ".justfile"}
	}
	return nil
}

// defines reports whether a script file defines target. sure is false
// when the answer may be wrong because the file pulls in others (a
// Makefile's include, a justfile's import): a missing target is then not
// proof of anything.
func defines(runner string, data []byte, target string) (found, sure bool) {
	switch runner {
	case RunnerMake:
		return makeDefines(data, target)
	case RunnerNPM, RunnerPNPM, RunnerYarn:
		var pkg struct {
			Scripts map[string]json.RawMessage `json:"scripts"`
		}
		if err := json.Unmarshal(data, &pkg); err != nil {
			return false, false
		}
		_, ok := pkg.Scripts[target]
		return ok, true
	case RunnerJust:
		return justDefines(data, target)
	}
	return false, false
}

func makeDefines(data []byte, target string) (bool, bool) {
	sure := true
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '\t' || line[0] == '#' {
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "include ") || strings.HasPrefix(t, "-include ") || strings.HasPrefix(t, "sinclude ") {
			sure = false
			continue
		}
		i := strings.IndexByte(t, ':')
		if i <= 0 || strings.HasPrefix(t[i:], ":=") || strings.HasPrefix(t[i:], "::=") {
			continue
		}
		if strings.ContainsAny(t[:i], "=$") {
			continue // a variable, or a computed target name
		}
		for _, name := range strings.Fields(t[:i]) {
			if name == target {
				return true, true
			}
		}
	}
	return false, sure
}

func justDefines(data []byte, target string) (bool, bool) {
	sure := true
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "mod ") || strings.HasPrefix(t, "!include ") {
			sure = false
			continue
		}
		t = strings.TrimPrefix(t, "@")
		name := t
		if i := strings.IndexAny(t, " :"); i > 0 {
			name = t[:i]
		}
		i := strings.IndexByte(t, ':')
		if i <= 0 || strings.HasPrefix(t[i:], ":=") {
			continue
		}
		if name == target {
			return true, true
		}
	}
	return false, sure
}

func readAtMost(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n+1))
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// lineTable holds the hash of every line of a file, whitespace trimmed.
type lineTable []uint32

func lineHashes(data []byte) lineTable {
	var out lineTable
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		out = append(out, hashLine(bytes.TrimSpace(line)))
	}
	return out
}

func hashLine(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write(b)
	v := h.Sum32()
	if v == 0 {
		v = 1 // 0 stands for a blank line
	}
	return v
}

// set returns the distinct hashes of the non-blank lines.
func (t lineTable) set() map[uint32]bool {
	s := make(map[uint32]bool, len(t))
	for _, h := range t {
		if h != 0 {
			s[h] = true
		}
	}
	return s
}

// rangeHash identifies lines start..end (1-based, inclusive).
func (t lineTable) rangeHash(start, end int) (string, bool) {
	if start < 1 || end > len(t) || end < start {
		return "", false
	}
	return rangeKey(t[start-1 : end]), true
}

// rangeKey is the first line's hash (8 hex digits, so a search can skip
// windows that cannot match) followed by the hash of the whole window.
func rangeKey(w []uint32) string {
	var buf [4]byte
	binary.BigEndian.PutUint32(buf[:], w[0])
	return hex.EncodeToString(buf[:]) + windowHash(w)
}

func windowHash(w []uint32) string {
	h := fnv.New64a()
	var buf [4]byte
	for _, v := range w {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// containsRange reports whether some run of n lines has the range key
// want, wherever it moved in the file.
func (t lineTable) containsRange(want string, n int) bool {
	if n <= 0 || n > len(t) || len(want) < 8 {
		return false
	}
	first, err := hex.DecodeString(want[:8])
	if err != nil {
		return false
	}
	head := binary.BigEndian.Uint32(first)
	for i := 0; i+n <= len(t); i++ {
		if t[i] == head && rangeKey(t[i:i+n]) == want {
			return true
		}
	}
	return false
}

func bottomK(set map[uint32]bool, k int) []uint32 {
	all := make([]uint32, 0, len(set))
	for h := range set {
		all = append(all, h)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if len(all) > k {
		all = all[:k]
	}
	return all
}

func encodeSketch(hs []uint32) string {
	b := make([]byte, 4*len(hs))
	for i, h := range hs {
		binary.LittleEndian.PutUint32(b[4*i:], h)
	}
	return base64.RawStdEncoding.EncodeToString(b)
}

func decodeSketch(s string) []uint32 {
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}
