package consolidate

import "github.com/memctl/memctl/pkg/memdir"

// These names stay only until the command layer, being reshaped in
// parallel, imports pkg/memdir itself (issue 14); nothing new uses them.
const (
	// Deprecated: use memdir.DiffFile.
	DiffFileName = memdir.DiffFile
	// Deprecated: use memdir.RawMemoriesFile.
	RawMemoriesFileName = memdir.RawMemoriesFile
)

// StorageSize is memdir.Size.
//
// Deprecated: use memdir.Size.
func StorageSize(root string) (int64, error) { return memdir.Size(root) }
