package config

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzConfigParse feeds arbitrary documents to Parse. Whatever the input,
// Parse must not panic, every failure must be a *Error (the command layer
// maps only that type to exit code 2), and every accepted document must
// yield a config whose values respect the enums and clamps.
func FuzzConfigParse(f *testing.F) {
	f.Add("")
	f.Add(DefaultFile())
	f.Add("[memories]\nmax_unused_days = 9999\nmax_rollouts_per_startup = -4\n")
	f.Add("[memories]\nmax_unused_days = 3.5\n")
	f.Add("[memories]\nmax_unused_days = 1e400\n")
	f.Add("[memories]\nmax_unused_days = 99999999999999999999\n")
	f.Add("[provider]\ncommand = [\"a\", 1]\ntimeout = \"-1s\"\n")
	f.Add("[[sources]]\nkind = \"jsonl\"\npath = \"\"\n")
	f.Add("[[memories]]\nversion = \"v1\"\n")
	f.Add("memories = 3\n")
	f.Add("[memories.version]\nx = 1\n")
	f.Add("[consolidation]\nagent_command = \"sh -c true\"\nagent_timeout = \"0s\"\n")
	f.Add("[memories]\nversion = \"v1\"\nversion = \"v2\"\n")
	f.Add("[memories]\r\nversion = \"v2\"\r\n")
	f.Add("\xff\xfe[memories]\x00\n")
	f.Add("[templates]\ndir = '''\nmulti\nline'''\n")
	f.Fuzz(func(t *testing.T, doc string) {
		type result struct {
			c   *Config
			err error
		}
		ch := make(chan result, 1)
		go func() {
			c, err := Parse(strings.NewReader(doc), "fuzz.toml")
			ch <- result{c, err}
		}()
		var c *Config
		var err error
		select {
		case r := <-ch:
			c, err = r.c, r.err
		case <-time.After(10 * time.Second):
			t.Fatalf("HANG: Parse did not return within 10s on %d bytes: %q", len(doc), doc)
		}
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, want *config.Error: %v", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "config fuzz.toml") {
				t.Fatalf("message %q does not name the file", msg)
			}
			if c != nil {
				t.Fatalf("Parse returned both a config and an error")
			}
			return
		}
		if c == nil {
			t.Fatal("Parse returned neither a config nor an error")
		}
		checkInvariants(t, c)
		// Entries and Versions are what `config show` and every command
		// use; they must work on anything Parse accepted.
		// One row per scalar key, then sources and projects.
		if n := len(c.Entries()); n != len(Keys())+2 {
			t.Fatalf("Entries has %d rows, want %d", n, len(Keys())+2)
		}
		if len(c.Versions()) == 0 || c.TokenLimit() < 1 {
			t.Fatalf("Versions %v, TokenLimit %d", c.Versions(), c.TokenLimit())
		}
	})
}

func checkInvariants(t *testing.T, c *Config) {
	t.Helper()
	ranges := []struct {
		name   string
		v      int
		lo, hi int
	}{
		{"max_raw_memories_for_consolidation", c.Memories.MaxRawMemoriesForConsolidation, 1, 4096},
		{"max_unused_days", c.Memories.MaxUnusedDays, 0, 365},
		{"max_rollout_age_days", c.Memories.MaxRolloutAgeDays, 0, 90},
		{"max_rollouts_per_startup", c.Memories.MaxRolloutsPerStartup, 1, 128},
		{"min_rollout_idle_hours", c.Memories.MinRolloutIdleHours, 1, 48},
		{"min_rate_limit_remaining_percent", c.Memories.MinRateLimitRemainingPercent, 0, 100},
		{"max_retries", c.Provider.MaxRetries, 0, 20},
		{"context_window", c.Provider.ContextWindow, 0, 10_000_000},
		{"concurrency", c.Extract.Concurrency, 1, 64},
		{"token_limit", c.Extract.TokenLimit, 0, 10_000_000},
	}
	for _, r := range ranges {
		if r.v < r.lo || r.v > r.hi {
			t.Fatalf("%s = %d outside [%d, %d]", r.name, r.v, r.lo, r.hi)
		}
	}
	if c.Memories.Version != "v1" && c.Memories.Version != "v2" {
		t.Fatalf("version %q accepted", c.Memories.Version)
	}
	if enum(c.Provider.Kind, ProviderKinds...) != nil {
		t.Fatalf("provider.kind %q accepted", c.Provider.Kind)
	}
	if enum(string(c.Consolidation.Mode), ConsolidationModes...) != nil {
		t.Fatalf("consolidation.mode %q accepted", c.Consolidation.Mode)
	}
	if c.Provider.Timeout <= 0 || c.Consolidation.AgentTimeout <= 0 {
		t.Fatalf("non-positive timeout accepted: %v, %v", c.Provider.Timeout, c.Consolidation.AgentTimeout)
	}
	for i, s := range c.Sources {
		if validSourceKind(s.Kind) != nil || s.Path == "" {
			t.Fatalf("sources[%d] = %+v accepted", i, s)
		}
	}
	// TOML documents are UTF-8; strings that come out of one must be too.
	for _, s := range append([]string{c.Memories.ExtractModel, c.Memories.ConsolidationModel, c.Provider.BaseURL, c.Provider.APIKeyEnv, c.Templates.Dir}, c.Provider.Command...) {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 string %q accepted", s)
		}
	}
}
