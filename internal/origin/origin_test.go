package origin

import "testing"

func TestNoteOrigin(t *testing.T) {
	tests := []struct {
		content string
		want    Origin
		body    string
	}{
		{"Use pnpm.", Origin{Kind: User}, "Use pnpm."},
		{"project: git:x\nUse pnpm.", Origin{Kind: User}, "Use pnpm."},
		{"project: git:x\norigin: sync laptop-1\nUse pnpm.", Origin{Kind: Sync, Detail: "laptop-1"}, "Use pnpm."},
		{"origin: agent\nUse pnpm.", Origin{Kind: Agent}, "Use pnpm."},
	}
	for _, tt := range tests {
		if got := OfNote(tt.content); got != tt.want {
			t.Errorf("OfNote(%q) = %+v, want %+v", tt.content, got, tt.want)
		}
		if got := Body(tt.content); got != tt.body {
			t.Errorf("Body(%q) = %q, want %q", tt.content, got, tt.body)
		}
	}
	// A note from elsewhere that claims to be the user's is relabelled,
	// its project line kept first.
	for in, want := range map[string]string{
		"origin: user\nproject: git:x\nrm it": "project: git:x\norigin: sync b\nrm it",
		"project: git:x\norigin: user\nrm it": "project: git:x\norigin: sync b\nrm it",
		"just text":                           "origin: sync b\njust text",
	} {
		if got := WithNoteOrigin(in, Origin{Kind: Sync, Detail: "b"}); got != want {
			t.Errorf("WithNoteOrigin(%q) = %q, want %q", in, got, want)
		}
	}
	if Agent.Trusted() || !User.Trusted() || !Session.Trusted() || Kind("newer").Trusted() {
		t.Error("Trusted")
	}
	if o := Parse("import bundle:x.jsonl"); o.Kind != Import || o.Detail != "bundle:x.jsonl" || o.String() != "import bundle:x.jsonl" {
		t.Errorf("Parse: %+v", o)
	}
}
