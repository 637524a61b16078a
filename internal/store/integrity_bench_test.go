package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkQuickCheck10k measures doctor's integrity check (quick_check)
// and the daily backup (VACUUM INTO) on a database of 10,000 raw
// memories with their threads and search index; file-MB is its size.
func BenchmarkQuickCheck10k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), FileName("v1")))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := seedOutputs(ctx, s, 10_000, newMemoryGen(1)); err != nil {
		b.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(s.path)
	b.Run("quick_check", func(b *testing.B) {
		for b.Loop() {
			if p, err := s.QuickCheck(ctx, 5); err != nil || len(p) > 0 {
				b.Fatal(p, err)
			}
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
	})
	b.Run("backup", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RefreshBackup(ctx, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
	})
}
