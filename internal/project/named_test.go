package project

import (
	"reflect"
	"testing"
)

func TestNamedKeyFirstThenEveryNameOncePerKey(t *testing.T) {
	store := []Known{{Key: "git:a", Name: "workspace"}, {Key: "", Name: "loose"}, {Key: "git:c", Name: "git:a"}}
	index := []Known{{Key: "git:b", Name: "workspace"}, {Key: "git:a", Name: "workspace"}}
	for _, tc := range []struct {
		arg  string
		want []Known
	}{
		{"git:a", []Known{{Key: "git:a", Name: "workspace"}}}, // a key wins over a name equal to it
		{"workspace", []Known{{Key: "git:a", Name: "workspace"}, {Key: "git:b", Name: "workspace"}}},
		{"loose", nil}, // no key: never named
		{"nothing", nil},
	} {
		if got := Named(tc.arg, store, index); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Named(%q) = %v, want %v", tc.arg, got, tc.want)
		}
	}
}
