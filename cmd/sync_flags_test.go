package cmd

import (
	"context"
	"reflect"
	"testing"
)

// TestNewSyncCmd: argv and config → the options runSync receives; the
// flag wins over sync.* of the config, which wins over the default.
func TestNewSyncCmd(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		argv         []string
		want         SyncOptions
		wantErr      string
	}{
		{name: "from the config", config: "[sync]\nremote = \"/srv/memory.git\"\nbranch = \"memory\"\nconflict = \"union\"\n",
			want: SyncOptions{Remote: "/srv/memory.git", Branch: "memory", Conflict: "union"}},
		{name: "flags over the config", config: "[sync]\nremote = \"/srv/memory.git\"\n", argv: []string{"--remote", "/tmp/x.git", "--conflict", "fail", "--json"},
			want: SyncOptions{Remote: "/tmp/x.git", Branch: "main", Conflict: "fail", JSON: true}},
		{name: "no remote", wantErr: "no sync remote: pass --remote or set remote under [sync] in the config"},
		{name: "an unknown policy", argv: []string{"--remote", "x", "--conflict", "ours"}, wantErr: `--conflict: invalid value "ours": want one of: fail, union`},
		{name: "an empty branch", argv: []string{"--remote", "x", "--branch", ""}, wantErr: "--branch must not be empty"},
		{name: "no arguments", argv: []string{"x"}, wantErr: "takes no arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios := newTestIO(false)
			f := newTestFactory(t, ios.IOStreams, nil)
			writeConfig(t, f, tt.config)
			var got *SyncOptions
			err := execCmd(t, f, newSyncCmd(f, func(_ context.Context, o *SyncOptions) error { got = o; return nil }), nil, tt.argv...)
			wantParsed(t, err, tt.wantErr, got, tt.want)
		})
	}
}

func TestNewExportImportAndTeamCmds(t *testing.T) {
	ios := newTestIO(false)
	f := newTestFactory(t, ios.IOStreams, nil)
	var exp *ExportOptions
	runExp := func(_ context.Context, o *ExportOptions) error { exp = o; return nil }
	for _, tt := range []struct {
		argv    []string
		want    ExportOptions
		wantErr string
	}{
		{argv: []string{"-o", "m.jsonl", "--project", "git:github.com/acme/app"}, want: ExportOptions{Output: "m.jsonl", Project: "git:github.com/acme/app"}},
		{argv: []string{"--to", "claude-md", "--repo", "/src/app"}, want: ExportOptions{To: "claude-md", Repo: "/src/app"}},
		{argv: []string{"--json"}, wantErr: "--json needs --output"},
		{argv: []string{"--to", "agents-md", "-o", "x"}, wantErr: "--to and --output cannot be used together"},
		{argv: []string{"--to", "cursor"}, wantErr: `--to: invalid value "cursor": want one of: agents-md, claude-md, codex`},
	} {
		exp = nil
		err := execCmd(t, f, newExportCmd(f, runExp), nil, tt.argv...)
		wantError(t, err, tt.wantErr)
		if tt.wantErr == "" {
			if g := flagValues(exp); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("%v: options %+v, want %+v", tt.argv, g, tt.want)
			}
		} else if exitCode(err) != ExitUsage {
			t.Errorf("%v: exit %d", tt.argv, exitCode(err))
		}
	}
	var imp *ImportOptions
	if err := execCmd(t, f, newImportCmd(f, func(_ context.Context, o *ImportOptions) error { imp = o; return nil }), nil, "-"); err != nil || imp.File != "-" {
		t.Errorf("import -: %+v %v", imp, err)
	}
	if err := execCmd(t, f, newImportCmd(f, nil), nil); exitCode(err) != ExitUsage {
		t.Errorf("import without a file: %v", err)
	}
	var prop *TeamProposeOptions
	err := execCmd(t, f, newTeamProposeCmd(f, func(_ context.Context, o *TeamProposeOptions) error { prop = o; return nil }), []string{"team"},
		"--author", "Ada", "--repo", "/src/app", "0199", "0200")
	if err != nil || !reflect.DeepEqual(flagValues(prop), TeamProposeOptions{IDs: []string{"0199", "0200"}, Repo: "/src/app", Author: "Ada"}) {
		t.Errorf("team propose: %+v %v", flagValues(prop), err)
	}
	if err := execCmd(t, f, newTeamProposeCmd(f, nil), []string{"team"}); exitCode(err) != ExitUsage {
		t.Errorf("team propose without an id: %v", err)
	}
}
