package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestClampsAreRecorded: a value out of range is still
// clamped as Codex clamps it, and the config says so, with the value given
// and where it came from; a later source in range takes the clamp back.
func TestClampsAreRecorded(t *testing.T) {
	c, err := Parse(strings.NewReader("[memories]\nmax_unused_days = 1000\nmin_rollout_idle_hours = 0\n"), "memctl.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Clamp{
		{Key: "memories.max_unused_days", Given: 1000, Used: 365, Lo: 0, Hi: 365, Origin: FromFile},
		{Key: "memories.min_rollout_idle_hours", Given: 0, Used: 1, Lo: 1, Hi: 48, Origin: FromFile},
	}
	if got := c.Clamps(); !reflect.DeepEqual(got, want) {
		t.Errorf("clamps %+v, want %+v", got, want)
	}
	for _, e := range c.Entries() {
		if e.Key == "memories.max_unused_days" && (e.ClampedFrom == nil || *e.ClampedFrom != 1000 || e.Value != 365) {
			t.Errorf("entry %+v", e)
		}
	}
	env := map[string]string{"MEMCTL_MEMORIES_MAX_UNUSED_DAYS": "30"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if got := c.Clamps(); len(got) != 1 || got[0].Key != "memories.min_rollout_idle_hours" {
		t.Errorf("after the environment: %+v", got)
	}
	if lo, hi, ok := Range("extract.concurrency"); !ok || lo != 1 || hi != 64 {
		t.Errorf("Range(extract.concurrency) = %d, %d, %v", lo, hi, ok)
	}
	if _, _, ok := Range("memories.version"); ok {
		t.Error("memories.version has no integer range")
	}
}
