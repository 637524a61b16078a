package consolidate

import "fmt"

// mergeAlike folds memories that say the same thing (one working folder,
// the same topic and description, the same staleness) into the newest of
// them, which counts the others. A run of sessions that only recited
// memory, or retried one request, used to fill an index with identical
// lines and push out the session that fixed the bug (issue 25). mems is
// newest first, and so is the result.
func mergeAlike(mems []memory) []memory {
	first := map[string]int{}
	var out []memory
	for _, m := range mems {
		if m.sel.Pinned || m.sel.UserAsserted {
			out = append(out, m) // the user's own: always its own line
			continue
		}
		k := fmt.Sprintf("%s\x00%s\x00%s\x00%t", m.cwd, normKey(m.topic), normKey(m.desc), m.stale != nil)
		if i, ok := first[k]; ok {
			out[i].alike++
			continue
		}
		first[k] = len(out)
		out = append(out, m)
	}
	return out
}

// marks is what an index line says after a memory: how many earlier
// sessions it stands for, and whether it is stale.
func (m memory) marks() string {
	s := ""
	if m.alike > 0 {
		s = fmt.Sprintf(" (and %d earlier session(s) alike)", m.alike)
	}
	return s + m.staleNote()
}
