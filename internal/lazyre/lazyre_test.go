package lazyre

import (
	"sync"
	"testing"
)

// TestNewCompilesOnceOnFirstUse: the pattern is not compiled until the
// first call (a bad one panics only then), and every call, from any
// goroutine, gets the same expression.
func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	bad := New(`(unclosed`) // no panic yet: nothing is compiled
	re := New(`^a+$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = re() }()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("two calls compiled two expressions")
		}
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Error("the expression does not match as compiled")
	}
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile did not panic on first use")
		}
	}()
	bad()
}

// TestWordsBuildsOneSet: every call returns the same set of the list's
// words, whatever the spacing.
func TestWordsBuildsOneSet(t *testing.T) {
	set := Words(" go  npm\n\tmake ")
	if got := set(); len(got) != 3 || !got["go"] || !got["npm"] || !got["make"] {
		t.Fatalf("Words = %v, want go, npm and make", got)
	}
	set()["cargo"] = true
	if !set()["cargo"] {
		t.Error("a second call built another set")
	}
}
