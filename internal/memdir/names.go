// Package memdir owns the layout of a memory folder: the name of every file
// and folder in it, the atomic writes every file goes through, and the
// repair that makes a folder safe to write (no symbolic links, no abandoned
// temporary files, the folders Phase 2 expects).
//
// The names follow Codex's memory folder (codex-memories.md) so that a
// folder stays interchangeable between the two. Other packages join these
// names; none spells them out again.
//
// memctl summary imports this package on every agent turn: it must stay
// free of databases, SDKs and start-up work.
package memdir

import (
	"github.com/memctl/memctl/internal/memversion"
	"path/filepath"
)

// Files and folders at the top of a memory folder. Paths are relative to
// the folder and use "/" (filepath.FromSlash them before touching disk).
const (
	// MemoryFile is the handbook the consolidator writes (v1 only).
	MemoryFile = "MEMORY.md"
	// SummaryFile is the index injected into every prompt.
	SummaryFile = "memory_summary.md"
	// RawMemoriesFile lists the selected raw memories (v1 only).
	RawMemoriesFile = "raw_memories.md"
	// DiffFile is the workspace diff handed to the consolidator; it never
	// belongs to the baseline.
	DiffFile = "phase2_workspace_diff.md"
	// RolloutSummariesDir holds one <stem>.md per selected thread.
	RolloutSummariesDir = "rollout_summaries"
	// SkillsDir holds one folder per skill, each with a SkillFile.
	SkillsDir = "skills"
	// SkillFile is the file that makes a folder under SkillsDir a skill.
	SkillFile = "SKILL.md"
	// ExtensionsDir holds one folder per extension.
	ExtensionsDir = "extensions"
	// ExtensionInstructionsFile, inside an extension's folder, makes it an
	// extension.
	ExtensionInstructionsFile = "instructions.md"
	// ExtensionResourcesDir, inside an extension's folder, holds its inputs.
	ExtensionResourcesDir = "resources"
	// AdHocDir is the extension of notes written on purpose.
	AdHocDir = ExtensionsDir + "/ad_hoc"
	// AdHocInstructionsFile is seeded from a template and never overwritten.
	AdHocInstructionsFile = AdHocDir + "/" + ExtensionInstructionsFile
	// NotesDir is where ad hoc notes live.
	NotesDir = AdHocDir + "/notes"
	// ProjectsDir holds the project layer (docs/projects.md): the index,
	// the personal layer and one folder per project. memctl rebuilds it
	// from the store after every consolidation; nothing else writes there.
	ProjectsDir = "projects"
	// ProjectIndexFile lists the projects and their folders (JSON).
	ProjectIndexFile = ProjectsDir + "/index.json"
	// PersonalFile is the personal layer: what applies in every project.
	PersonalFile = ProjectsDir + "/personal.md"
	// ProjectSummaryFile, inside a project's folder, is its summary.
	ProjectSummaryFile = "summary.md"
	// NoneRecorded is the only item of an empty list of the project
	// layer; a reader that finds nothing else there has nothing to show.
	NoneRecorded = "none recorded yet"
	// ProjectPrefsHeading and ProjectTipsHeading open a project summary's
	// own lists, which memctl writes itself whatever the consolidation
	// mode; export --to reads them back.
	ProjectPrefsHeading = "### Preferences in this project"
	ProjectTipsHeading  = "### Tips for this project"
	// EvidenceIndexFile is what the memories of the folder rest on (files,
	// cited lines, project commands), written by every consolidation from
	// the store, so that `memctl summary` and the MCP server can check it
	// with no database (docs/stale.md). Hidden: it is memctl's cache, not
	// memory, and never part of the baseline or the consolidator's diff.
	EvidenceIndexFile = ".evidence.tsv"
	// GitDir is skipped wherever the folder is walked: a user may keep the
	// folder in git, and memctl's baseline is its own.
	GitDir = ".git"
)

// Folder names inside the memctl home.
const (
	// FolderV1 is v1's memory folder.
	FolderV1 = "memories"
	// FolderV2 is v2's memory folder.
	FolderV2 = "memories_v2"
	// FolderExtensions is Codex's shared extensions folder; memctl only
	// clears it.
	FolderExtensions = "memories_extensions"
)

// StagingFolder, inside the home, holds the working copies of the memory
// folder that review runs and dry runs consolidate in (one subfolder per
// run, deleted when it ends): the memory folder itself changes only when
// a generation lands. `memctl clear` removes it.
const StagingFolder = ".memctl-staging"

// Folders lists every memory folder of a home, in Codex's order (the order
// memctl clear empties them).
var Folders = []string{FolderV1, FolderV2, FolderExtensions}

// Root returns the memory folder of a memory version inside home. Any
// version other than v2 is v1's.
func Root(home string, version memversion.Version) string {
	if version == memversion.V2 {
		return filepath.Join(home, FolderV2)
	}
	return filepath.Join(home, FolderV1)
}
