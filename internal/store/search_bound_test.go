package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSearchTermsAreBounded: a query is searched for
// by at most MaxQueryTerms distinct words within its first MaxQueryBytes,
// and a query that was cut says so.
func TestSearchTermsAreBounded(t *testing.T) {
	var hundred []string
	for i := range 100 {
		hundred = append(hundred, fmt.Sprintf("w%d", i))
	}
	long := strings.Repeat("a", MaxQueryBytes-6) + " bcdefghij"
	for _, tt := range []struct {
		name   string
		query  string
		terms  []string
		prefix bool
		cut    bool
	}{
		{name: "a few words", query: "go test race", terms: []string{"go", "test", "race"}, prefix: true},
		{name: "repeated words count once", query: "test go test", terms: []string{"test", "go"}},
		{name: "in any case", query: "Go go", terms: []string{"Go"}},
		{name: "more than 64 distinct words", query: strings.Join(hundred, " "), terms: hundred[:MaxQueryTerms], cut: true},
		{name: "50,000 words", query: strings.Repeat("flaky parser test ", 50_000/3), terms: []string{"flaky", "parser", "test"}, cut: true},
		{name: "no half word at the byte bound", query: long, terms: []string{strings.Repeat("a", MaxQueryBytes-6)}, cut: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := SearchTerms(tt.query)
			if !reflect.DeepEqual(q.Terms, tt.terms) || q.Prefix != tt.prefix || q.Cut != tt.cut {
				t.Errorf("terms %.80q… prefix %v cut %v, want %.80q… %v %v", q.Terms, q.Prefix, q.Cut, tt.terms, tt.prefix, tt.cut)
			}
			if q.Cut != (q.Note() != "") {
				t.Errorf("note %q for cut=%v", q.Note(), q.Cut)
			}
			if q.Words != countWords(tt.query) || q.Bytes != len(tt.query) {
				t.Errorf("words %d bytes %d", q.Words, q.Bytes)
			}
		})
	}
	t.Run("one long word is cut on a rune boundary", func(t *testing.T) {
		q := SearchTerms(strings.Repeat("é", MaxQueryBytes))
		if len(q.Terms) != 1 || !utf8.ValidString(q.Terms[0]) || len(q.Terms[0]) > MaxQueryBytes || !q.Cut {
			t.Errorf("%d terms, cut %v", len(q.Terms), q.Cut)
		}
	})
}

// TestLongQueryFindsWhatItsBoundFinds: a 50,000-word query is answered
// as its first 64 distinct words are.
func TestLongQueryFindsWhatItsBoundFinds(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), FileName("v1")))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := seedOutputs(ctx, s, 200, newMemoryGen(3)); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("test build ", 25_000)
	got, err := s.Search(ctx, long, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Search(ctx, "test build test", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("long query: %d hits, want the %d of its bound", len(got), len(want))
	}
}
