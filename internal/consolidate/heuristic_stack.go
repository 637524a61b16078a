package consolidate

import (
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
)

// codeSpanRe finds the backticked spans of a memory: the commands it ran
// and the files it names, which is where a stack shows.
var codeSpanRe = lazyRegexp("`([^`\n]+)`")

// stackSeen counts, per memory, the languages and tools its commands ran
// and its files show (program's stack table) and returns the most
// frequent first. Words of the conversation do not count: a question
// about AWS, or "OpenAI" in an error text, is no stack.
func stackSeen(mems []memory) []string {
	count := map[string]int{}
	for _, m := range mems {
		seen := map[string]bool{}
		for _, sm := range codeSpanRe().FindAllStringSubmatch(m.sel.RawMemory+"\n"+m.sel.RolloutSummary, -1) {
			span := sm[1]
			if name := program.StackOfCommand(span); name != "" {
				seen[name] = true
			}
			for _, f := range strings.Fields(span) {
				if name := program.StackOfFile(fileOfWord(f)); name != "" {
					seen[name] = true
				}
			}
		}
		for name := range seen {
			count[name]++
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 12 {
		names = names[:12]
	}
	return names
}

// fileOfWord cuts a word of a command or an error line to the path it
// holds: quotes and punctuation around it and a ":line:column" after it.
func fileOfWord(w string) string {
	w = strings.Trim(w, "\"'()[]{},;")
	if i := strings.IndexByte(w, ':'); i > 0 {
		w = w[:i]
	}
	return w
}
