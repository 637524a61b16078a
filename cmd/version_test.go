package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
)

func TestRunVersion(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(ttyName(tty), func(t *testing.T) {
			ios := newTestIO(tty)
			if err := runVersion(context.Background(), &VersionOptions{IO: ios.IOStreams}); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("memctl %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if got := ios.out.String(); got != want {
				t.Errorf("stdout %q, want %q", got, want)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		ios := newTestIO(false)
		if err := runVersion(context.Background(), &VersionOptions{IO: ios.IOStreams, JSON: true}); err != nil {
			t.Fatal(err)
		}
		var doc versionJSON
		if err := json.Unmarshal(ios.out.Bytes(), &doc); err != nil || doc.Version != version() || doc.SchemaVersion < 1 || doc.Go != runtime.Version() {
			t.Errorf("%+v %v", doc, err)
		}
	})
	t.Run("reads no config", func(t *testing.T) {
		ios := newTestIO(false)
		f := newTestFactory(t, ios.IOStreams, nil)
		writeConfig(t, f, "not toml at all [[[")
		if err := execCmd(t, f, newVersionCmd(f, nil), nil); err != nil {
			t.Errorf("version read the broken config: %v", err)
		}
	})
}
