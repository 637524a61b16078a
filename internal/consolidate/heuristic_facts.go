package consolidate

import "github.com/memctl/memctl/internal/memmodel"

// Facts of the offline extractor about a command (a check, a fix, a
// failure line) and which newer fact supersedes an older one.

// sortFact puts m's fact into current, or into old with the newer memory that
// superseded it; a fact a newer memory restated word for word is current,
// one bullet for every session that stated it.
func sortFact(f memmodel.Facts, m memmodel.Memory, item string, task int, current, old *bulletSet) {
	if by := f.Claim(m, item, task); by != "" {
		old.add(item+" ("+by+")", task, m.Sel.ThreadID)
		return
	}
	current.add(item, task, m.Sel.ThreadID)
}

// supersessions says, for each fact (thread id, NUL, item) that a newer
// memory of the same project supersedes, since when.
func supersessions(mems []memmodel.Memory) map[string]string {
	out := map[string]string{}
	f := memmodel.Facts{}
	for _, m := range mems { // newest first
		if m.Stale != nil {
			continue // a stale memory supersedes nothing
		}
		for _, t := range m.Tasks {
			for _, it := range append(append([]string(nil), t.Knowledge...), t.Failures...) {
				if by := f.Claim(m, it, 0); by != "" {
					out[m.Sel.ThreadID+"\x00"+it] = by
				}
			}
		}
	}
	return out
}
