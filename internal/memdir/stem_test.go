package memdir

import (
	"strings"
	"testing"
	"time"
)

func TestRolloutSummaryStem(t *testing.T) {
	const id = "0194f5a6-89ab-7cde-8123-456789abcdef"
	tests := []struct {
		name, id, slug string
		updated        int64
		want           string
	}{
		{"empty slug", id, "", 0, "2025-02-11T15-35-19-jqmb"},
		{"slug of separators only", id, "---", 0, "2025-02-11T15-35-19-jqmb"},
		{"long unsafe slug", id, "Unsafe Slug/With Spaces & Symbols + EXTRA_LONG_12345_67890_ABCDE_fghij_klmno", 0,
			"2025-02-11T15-35-19-jqmb-unsafe_slug_with_spaces___symbols___extra_long_12345_67890_a"},
		{"hyphens become underscores", id, "fix-ci-build", 0, "2025-02-11T15-35-19-jqmb-fix_ci_build"},
		{"traversal slug stays a name", id, "../../x", 0, "2025-02-11T15-35-19-jqmb-______x"},
		{"non-ascii", id, "Café", 0, "2025-02-11T15-35-19-jqmb-caf"},
		// v4 UUIDs carry no time: the source time is used, the hash still comes from the low 32 bits.
		{"v4 uses source time", "3fb74381-1bf4-475e-8c6f-442d872b1bcf", "", 1775476799, "2026-04-06T11-59-59-" + hash4(0x872b1bcf)},
		{"non-uuid id", "abc", "", 0, "1970-01-01T00-00-00-" + hash4(uint32('a')*31*31+uint32('b')*31+uint32('c'))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RolloutSummaryStem(tt.id, tt.updated, tt.slug); got != tt.want {
				t.Errorf("RolloutSummaryStem = %q, want %q", got, tt.want)
			}
		})
	}
}

func hash4(seed uint32) string {
	v := seed % 14776336
	out := make([]byte, 4)
	for i := 3; i >= 0; i-- {
		out[i] = base62[v%62]
		v /= 62
	}
	return string(out)
}

func TestRolloutSummaryStemSlugIsCutAt60(t *testing.T) {
	stem := RolloutSummaryStem("x", 0, strings.Repeat("a", 100))
	_, slug, _ := strings.Cut(stem[len("1970-01-01T00-00-00-"):], "-")
	if len(slug) != 60 {
		t.Errorf("slug length %d, want 60", len(slug))
	}
}

func TestRolloutSummaryStemV1UUID(t *testing.T) {
	// A version-1 UUID embeds a 100 ns timestamp since 1582.
	got := RolloutSummaryStem("c232ab00-9414-11ec-b3c8-9f6bdeced846", 0, "")
	if !strings.HasPrefix(got, "2022-02-22T19-22-22-") {
		t.Errorf("stem %q does not use the UUID's time", got)
	}
	if _, err := time.Parse(TimeLayout, got[:19]); err != nil {
		t.Error(err)
	}
}
