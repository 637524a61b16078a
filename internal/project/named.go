package project

// Known is a project memory knows of, by its key and display name: from
// the store (what `memctl status` lists) or from a memory folder's index
// (what its consolidation wrote).
type Known struct {
	Key  string
	Name string
}

// Known lists the index's projects, for Named.
func (ix *Index) Known() []Known {
	if ix == nil {
		return nil
	}
	out := make([]Known, 0, len(ix.Projects))
	for _, e := range ix.Projects {
		out = append(out, Known{Key: e.Key, Name: e.Name})
	}
	return out
}

// Named resolves a project argument that is not a folder against the
// known projects of every source given, in order: the project with that
// key, else every project with that display name, one per key. More than
// one result means the name is ambiguous (two checkouts both called
// "workspace") and the caller must refuse it; none, that no
// project is known by it. A project without a key (threads outside any)
// is never named.
func Named(arg string, sources ...[]Known) []Known {
	for _, known := range sources {
		for _, k := range known {
			if k.Key != "" && k.Key == arg {
				return []Known{k}
			}
		}
	}
	var out []Known
	seen := map[string]bool{}
	for _, known := range sources {
		for _, k := range known {
			if k.Key != "" && k.Name == arg && !seen[k.Key] {
				seen[k.Key] = true
				out = append(out, k)
			}
		}
	}
	return out
}
