package memmodel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/program"
	"github.com/memctl/memctl/internal/rawmemory"
	"github.com/memctl/memctl/internal/textcut"
)

// WholeItem shortens a bullet to about n bytes by dropping whole
// sentences from its end, never cutting one (textcut.WholeSentences): its
// first sentence stays whatever its length, for a tip cut in the middle
// says something else, down to a wrong error line. A quote the shortening
// leaves open is closed after an ellipsis.
func WholeItem(s string, n int) string {
	out := textcut.WholeSentences(s, n)
	if strings.Count(out, "“") > strings.Count(out, "”") {
		out += " …”"
	}
	return out
}

// WriteList writes items as a bullet list, or one bullet saying empty.
func WriteList(sb *strings.Builder, items []string, empty string) {
	if len(items) == 0 {
		sb.WriteString("- " + empty + "\n")
		return
	}
	for _, it := range items {
		sb.WriteString("- " + it + "\n")
	}
}

// SeenIn is the note on a memory several sessions stated: " (seen in N
// sessions)", or nothing for one.
func SeenIn(sessions int) string {
	if sessions < 2 {
		return ""
	}
	return fmt.Sprintf(" (seen in %d sessions)", sessions)
}

// NormKey is what two items are compared by: whitespace collapsed, case
// and surrounding punctuation dropped.
func NormKey(s string) string {
	return strings.ToLower(strings.Trim(cleanItem(s), " .;:-"))
}

// cleanItem collapses whitespace and drops surrounding bullet markup.
func cleanItem(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// TipItems keeps the facts a general tip may state: a check that verified the
// work, or a fix that made a failure of it pass. The agent's explanations,
// and a look around that failed and then worked (a listing of a folder not
// made yet, a search), stay in MEMORY.md, where they are read with their
// task. A check is stated as a tip without the files its session had
// changed before it ran (checkTip).
func TipItems(knowledge []string) []string {
	var out []string
	for _, k := range knowledge {
		switch tag := rawmemory.Tagged(k); {
		case tag != rawmemory.TagCheck && tag != rawmemory.TagFix || program.Explores(SubjectOf(k)):
		case tag == rawmemory.TagCheck:
			out = append(out, checkTip(k))
		default:
			out = append(out, k)
		}
	}
	return out
}

// changedBefore opens the last clause of an offline check, the files its
// session changed before it passed.
const changedBefore = " after the changes to "

// checkTip is a check as a tip: the command and that it passed. Which
// files one session had changed before it ran is that task's history,
// read in MEMORY.md with the task; in a project's tips, where every check
// of a session repeated the same list, it told the next agent nothing
// about the command and filled the summary it reads at every start.
func checkTip(item string) string {
	i := strings.LastIndex(item, changedBefore)
	if i < 0 {
		return item
	}
	return item[:i] + "."
}

// RecentDays returns the newest n distinct memory days.
func RecentDays(mems []Memory, n int) map[string]bool {
	days := map[string]bool{}
	var order []string
	for _, m := range mems {
		if !days[m.Day] {
			days[m.Day] = true
			order = append(order, m.Day)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(order)))
	out := map[string]bool{}
	for i, d := range order {
		if i == n {
			break
		}
		out[d] = true
	}
	return out
}

// Entry is a memory of a summary's index with how many sessions of its
// project stated it word for word (it is the newest of them).
type Entry struct {
	Memory
	Sessions int
}

// RepeatsMerged lists a project's memories of recent days (or, with
// recentOnes false, of older days), newest first, folded by FoldRepeats.
func RepeatsMerged(mems []Memory, recent map[string]bool, recentOnes bool) []Entry {
	var some []Memory
	for _, m := range mems {
		if recent[m.Day] == recentOnes {
			some = append(some, m)
		}
	}
	return FoldRepeats(some)
}

// FoldRepeats merges each memory that repeats a newer one of its project
// (topic, keywords, description and first learning) into that newer
// entry's count: one line for N identical sessions, not N lines. A run of
// sessions that recited one answer would otherwise fill an index and push
// out the session that fixed the bug. mems is newest first, and so is
// the result.
func FoldRepeats(mems []Memory) []Entry {
	var out []Entry
	at := map[string]int{}
	for _, m := range mems {
		key := FirstNonEmpty(m.Sel.ProjectKey, m.Cwd) + "\x00" + NormKey(m.Topic) + "\x00" + NormKey(strings.Join(m.Keywords, ",")) +
			"\x00" + NormKey(m.Desc) + "\x00" + NormKey(m.FirstLearning())
		if m.Stale != nil || m.Sel.Pinned || m.Sel.UserAsserted {
			key = m.Sel.ThreadID // stale or the user's own: a line of its own
		}
		if i, ok := at[key]; ok {
			out[i].Sessions++
			continue
		}
		at[key] = len(out)
		out = append(out, Entry{Memory: m, Sessions: 1})
	}
	return out
}
