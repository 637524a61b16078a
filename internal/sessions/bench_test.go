package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memctl/memctl/internal/sessions/internal/gen"
)

// BenchmarkPrepareInputLarge measures v1 input preparation on a 32 MB
// rollout built from the real 0.125 fixture (the 150 MB comparison with jq
// uses the gencodex command; see the package report).
func BenchmarkPrepareInputLarge(b *testing.B) {
	fixture, err := os.ReadFile(realCodex + "/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	out, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	n, err := gen.WriteCodex(out, fixture, 32<<20)
	out.Close()
	if err != nil {
		b.Fatal(err)
	}
	f := File{Kind: KindCodex, Path: p}
	for _, v := range []string{"v1", "v2"} {
		b.Run(v, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				if _, err := PrepareInput(f, InputOptions{Version: v}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestGenWriteCodex(t *testing.T) {
	fixture, err := os.ReadFile(realCodex + "/2026/01/02/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl")
	out, _ := os.Create(p)
	n, err := gen.WriteCodex(out, fixture, 200_000)
	out.Close()
	if err != nil || n < 200_000 {
		t.Fatal(n, err)
	}
	m, probs, err := ReadMeta(File{Kind: KindCodex, Path: p})
	if err != nil || len(probs) > 0 || m.ID != "019b7f94-51b4-7593-922e-ba12b5b73b52" {
		t.Fatal(m, probs, err)
	}
}
