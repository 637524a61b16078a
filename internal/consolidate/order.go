package consolidate

import (
	"os"
	"sort"
	"strings"

	"github.com/memctl/memctl/internal/memdir"
)

// Crash order. Files of the memory folder point at each other: the
// summary and MEMORY.md name rollout summaries and skills, raw_memories.md
// names rollout summaries, the project index names the project folders and
// the rollout summaries, and memctl summary reads the index to find the
// personal layer and a project's summary. A process killed between two
// writes leaves the folder as it was between them, so every writer here
// writes the files pointed at first and the pointers last (the summary,
// which agents read first, very last), and deletes what nothing points at
// any more only after that (a consolidation killed in between must not
// leave memory_summary.md and the project index naming projects/ files
// that were not written yet).

// writeRank orders the writes of one change to the folder: 0 for files
// that name no other (rollout summaries, skills), 1 for a project's
// summary (it names rollout summaries), then the personal layer, the
// project index, raw_memories.md, MEMORY.md and memory_summary.md.
func writeRank(rel string) int {
	switch rel {
	case memdir.PersonalFile:
		return 2
	case memdir.ProjectIndexFile:
		return 3
	case memdir.RawMemoriesFile:
		return 4
	case memdir.MemoryFile:
		return 5
	case memdir.SummaryFile:
		return 6
	}
	if strings.HasPrefix(rel, memdir.ProjectsDir+"/") {
		return 1
	}
	return 0
}

// sortForWrite sorts folder paths into crash order (writeRank, then by
// path, so the order is stable).
func sortForWrite(paths []string) {
	sort.Slice(paths, func(i, j int) bool {
		if ri, rj := writeRank(paths[i]), writeRank(paths[j]); ri != rj {
			return ri < rj
		}
		return paths[i] < paths[j]
	})
}

// testOnlyAfterWrite, when set by a test, is called after each file this
// package writes into or removes from a memory folder (full path), so the
// test can check the folder at every point a kill could stop it.
var testOnlyAfterWrite func(path string)

// putFile writes one file of a memory folder atomically.
func putFile(path string, data []byte, perm os.FileMode) error {
	err := memdir.WriteAtomic(path, data, perm)
	if err == nil && testOnlyAfterWrite != nil {
		testOnlyAfterWrite(path)
	}
	return err
}

// dropFile removes one file (or an empty folder) of a memory folder.
func dropFile(path string) error {
	err := os.Remove(path)
	if err == nil && testOnlyAfterWrite != nil {
		testOnlyAfterWrite(path)
	}
	return err
}

// dropTree removes a file or a folder tree of a memory folder.
func dropTree(path string) error {
	err := os.RemoveAll(path)
	if err == nil && testOnlyAfterWrite != nil {
		testOnlyAfterWrite(path)
	}
	return err
}
