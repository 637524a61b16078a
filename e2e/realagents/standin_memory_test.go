package realagents

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// memoryFacts are the facts of the scripted sessions (Next) a memctl
// request may carry: the stand-in's memory answers repeat those it was
// sent, so a test sees that the transcript reached the model and the
// model's answer reached the memory.
var memoryFacts = []string{"calc.sh", "sh test.sh", "make test-fast", "set -eu"}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// memoryAnswer answers one of memctl's structured requests, told apart by
// the properties of its schema: a Phase 1 extraction (rollout_summary;
// v1 adds raw_memory) or a Phase 2 consolidation (memory_summary_md; v1
// adds memory_md and skills). text is everything the request carried.
// It returns nil for a schema it does not know.
func memoryAnswer(schema map[string]any, text string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	has := func(k string) bool { _, ok := props[k]; return ok }
	var facts []string
	for _, f := range memoryFacts {
		if strings.Contains(text, f) {
			facts = append(facts, f)
		}
	}
	bullets := ""
	for _, f := range facts {
		bullets += "- `" + f + "` came up in the session.\n"
	}
	switch {
	case has("rollout_summary"):
		slug := "standin-session"
		if len(facts) > 0 {
			slug = "standin-" + strings.NewReplacer(".", "-", " ", "-").Replace(facts[0])
		}
		ans := map[string]any{
			"rollout_summary": "# A session the stand-in read\n\n" + bullets,
			"rollout_slug":    slug,
		}
		if has("raw_memory") {
			ans["raw_memory"] = "---\ndescription: a coding session the stand-in model read\ntask: fix-calc\ntask_group: calc\ntask_outcome: success\nkeywords: calc, test\n---\n\n" +
				"### Task 1: Fix the failing test\n\ntask: make test.sh pass\ntask_outcome: success\n\nReusable knowledge:\n" + bullets
		}
		return ans
	case has("memory_summary_md"):
		ids := uuidRE.FindAllString(text, -1)
		sort.Strings(ids)
		ids = compactStrings(ids)
		var lines strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&lines, "- thread_id=%s\n", id)
		}
		summary := "v1\n## User Profile\nA developer working on calc.\n## User preferences\n" + bullets +
			"## General Tips\nRun the tests with sh test.sh.\n## What's in Memory\n" + lines.String()
		ans := map[string]any{"memory_summary_md": summary}
		if has("memory_md") {
			ans["memory_md"] = "# Memory\n\n## calc\n\n" + bullets + "\nFrom the sessions:\n" + lines.String()
			ans["skills"] = []any{}
		}
		return ans
	}
	return nil
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// structuredOutputTool finds the tool Claude Code adds for --json-schema
// (StructuredOutput, whose input schema is the request's schema).
func structuredOutputTool(tools []json.RawMessage) (map[string]any, bool) {
	for _, raw := range tools {
		var t struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name == "StructuredOutput" {
			return t.InputSchema, true
		}
	}
	return nil, false
}

// MemctlRequests are the requests that asked for one of memctl's
// structured answers (what the nested CLI sent).
func (r *recorder) MemctlRequests() []Request {
	var out []Request
	for _, q := range r.Requests() {
		if strings.Contains(q.Body, "StructuredOutput") || strings.Contains(q.Body, `"json_schema"`) {
			out = append(out, q)
		}
	}
	return out
}
