package consolidate

import "github.com/memctl/memctl/pkg/memdir"

// These names stay only until the command layer, being reshaped in
// parallel, imports pkg/memdir itself (issue 14); nothing new uses them.
const (
	// DiffFileName is memdir.DiffFile.
	DiffFileName = memdir.DiffFile
	// RawMemoriesFileName is memdir.RawMemoriesFile.
	RawMemoriesFileName = memdir.RawMemoriesFile
)

// StorageSize is memdir.Size.
func StorageSize(root string) (int64, error) { return memdir.Size(root) }
