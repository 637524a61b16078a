package memdir

import (
	"encoding/binary"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/uuidtext"
)

// TimeLayout is Codex's %Y-%m-%dT%H-%M-%S, the UTC timestamp that starts
// rollout summary stems, note names and extension resource names: colon-free
// so the name is valid everywhere.
const TimeLayout = "2006-01-02T15-04-05"

const base62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// RolloutSummaryStem returns the file stem of a thread's rollout summary,
// <timestamp>-<hash4>[-<slug>], exactly as Codex names it so that folders
// stay interchangeable: the timestamp is the UUID's embedded time (v1, v6,
// v7) or sourceUpdatedAt, the hash is 4 base-62 digits of the UUID's low
// 32 bits (other ids: h = h*31 + byte), and the slug keeps lowercase ASCII
// letters and digits of the first 60 characters, every other character
// becoming '_' and trailing '_' dropped. Because the slug can only contain
// [a-z0-9_], it can never name another directory.
func RolloutSummaryStem(threadID string, sourceUpdatedAt int64, slug string) string {
	ts := time.Unix(sourceUpdatedAt, 0).UTC()
	var seed uint32
	if u, ok := uuidtext.Parse(threadID); ok {
		seed = binary.BigEndian.Uint32(u[12:16])
		switch u.Version() {
		case 1, 6, 7:
			ts = time.Unix(u.UnixTime()).UTC()
		}
	} else {
		for i := 0; i < len(threadID); i++ {
			seed = seed*31 + uint32(threadID[i])
		}
	}
	v := seed % (62 * 62 * 62 * 62)
	var h [4]byte
	for i := 3; i >= 0; i-- {
		h[i] = base62[v%62]
		v /= 62
	}
	stem := ts.Format(TimeLayout) + "-" + string(h[:])
	if s := sanitizeSlug(slug); s != "" {
		stem += "-" + s
	}
	return stem
}

func sanitizeSlug(slug string) string {
	var b strings.Builder
	for _, r := range slug {
		if b.Len() >= 60 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteByte('_')
		}
	}
	return strings.TrimRight(b.String(), "_")
}
