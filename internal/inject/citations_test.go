package inject

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader hands out its chunks one Read at a time, so tests control
// exactly where the input is split.
type chunkReader struct{ chunks []string }

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func strip(t *testing.T, r io.Reader) (string, []string) {
	t.Helper()
	var out strings.Builder
	bodies, err := StripCitations(&out, r)
	if err != nil {
		t.Fatalf("StripCitations: %v", err)
	}
	return out.String(), bodies
}

func TestStripCitations(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		visible string
		bodies  []string
	}{
		{"no block", "plain answer\n", "plain answer\n", nil},
		{"empty input", "", "", nil},
		{"no whitespace trimming", "Hello <oai-mem-citation>x</oai-mem-citation> world", "Hello  world", []string{"x"}},
		{"multiple citations", "1<oai-mem-citation>x</oai-mem-citation>2<oai-mem-citation>y</oai-mem-citation>3", "123", []string{"x", "y"}},
		{"auto-close at EOF", "answer\n<oai-mem-citation>\n<rollout_ids>\nabc\n", "answer\n", []string{"\n<rollout_ids>\nabc\n"}},
		{"partial open tag preserved at EOF", "answer <oai-mem-cit", "answer <oai-mem-cit", nil},
		{"lone angle bracket at EOF", "a <", "a <", nil},
		{"partial close tag at EOF stays in body", "<oai-mem-citation>ab</oai-mem", "", []string{"ab</oai-mem"}},
		{"near miss open tag is text", "x <oai-mem-citatio> y", "x <oai-mem-citatio> y", nil},
		{"no nesting", "<oai-mem-citation>a<oai-mem-citation>b</oai-mem-citation>c</oai-mem-citation>", "c</oai-mem-citation>", []string{"a<oai-mem-citation>b"}},
		{"empty block", "a<oai-mem-citation></oai-mem-citation>b", "ab", []string{""}},
		{"open tag only", "<oai-mem-citation>", "", []string{""}},
		{"close tag outside block is text", "a</oai-mem-citation>b", "a</oai-mem-citation>b", nil},
		{"repeated prefix before tag", "<<oai-mem-<oai-mem-citation>z</oai-mem-citation>", "<<oai-mem-", []string{"z"}},
		{"multibyte text around block", "héllo €<oai-mem-citation>ü</oai-mem-citation>😀", "héllo €😀", []string{"ü"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(how string, r io.Reader) {
				t.Helper()
				visible, bodies := strip(t, r)
				if visible != tt.visible || !reflect.DeepEqual(bodies, tt.bodies) {
					t.Errorf("%s: got visible %q bodies %q; want %q %q", how, visible, bodies, tt.visible, tt.bodies)
				}
			}
			check("whole", strings.NewReader(tt.in))
			check("one byte at a time", iotest.OneByteReader(strings.NewReader(tt.in)))
			// Every two-chunk split exercises a tag cut at each position.
			for i := 1; i < len(tt.in); i++ {
				check("split at "+string(rune('0'+i%10)), &chunkReader{chunks: []string{tt.in[:i], tt.in[i:]}})
			}
		})
	}
}

func TestStripCitationsPartialOpenTagIsBuffered(t *testing.T) {
	var out strings.Builder
	var p citationParser
	if err := p.push(&out, []byte("Hello <oai-mem-")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Hello " {
		t.Fatalf("after first chunk visible = %q, want the tag prefix held back", out.String())
	}
	if err := p.push(&out, []byte("citation>secret</oai-mem-citation>!")); err != nil {
		t.Fatal(err)
	}
	if err := p.finish(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Hello !" || !reflect.DeepEqual(p.bodies, []string{"secret"}) {
		t.Fatalf("got %q %q", out.String(), p.bodies)
	}
}

func TestStripCitationsLargeInputStreams(t *testing.T) {
	text := strings.Repeat("line of visible text\n", 20000) // ~420 KB, many read chunks
	in := text + "<oai-mem-citation>body</oai-mem-citation>" + text
	visible, bodies := strip(t, strings.NewReader(in))
	if visible != text+text || len(bodies) != 1 || bodies[0] != "body" {
		t.Fatalf("got %d visible bytes, bodies %q", len(visible), bodies)
	}
}

func TestStripCitationsBoundsBody(t *testing.T) {
	in := "<oai-mem-citation>" + strings.Repeat("x", maxBodyBytes+100)
	visible, bodies := strip(t, strings.NewReader(in))
	if visible != "" || len(bodies) != 1 || len(bodies[0]) != maxBodyBytes {
		t.Fatalf("got visible %q, %d bodies of %d bytes", visible, len(bodies), len(bodies[0]))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStripCitationsReportsErrors(t *testing.T) {
	if _, err := StripCitations(failWriter{}, strings.NewReader("text")); err == nil || err.Error() != "disk full" {
		t.Errorf("write error: got %v", err)
	}
	r := iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("ab")))
	if _, err := StripCitations(io.Discard, r); !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("read error: got %v", err)
	}
}

func TestStripCitationsString(t *testing.T) {
	visible, bodies := StripCitationsString("a<oai-mem-citation>b</oai-mem-citation>c")
	if visible != "ac" || !reflect.DeepEqual(bodies, []string{"b"}) {
		t.Fatalf("got %q %q", visible, bodies)
	}
}

const (
	uuidA = "019c6e27-e55b-73d1-87d8-4e01f1f75043"
	uuidB = "0194b7a2-5c1e-7d3f-9a10-2b6c8e4f1a77"
)

func TestParseCitations(t *testing.T) {
	tests := []struct {
		name   string
		bodies []string
		want   Citations
		ok     bool
	}{
		{
			name: "legacy thread_ids with an invalid uuid skipped",
			bodies: []string{"<memory_citation>\n<citation_entries>\nMEMORY.md:1-2|note=[summary]\n</citation_entries>\n" +
				"<thread_ids>\n" + uuidA + "\nnot-a-uuid\n</thread_ids>\n</memory_citation>"},
			want: Citations{
				Entries:    []Entry{{Path: "MEMORY.md", LineStart: 1, LineEnd: 2, Note: "summary"}},
				RolloutIDs: []string{uuidA, "not-a-uuid"},
				ThreadIDs:  []string{uuidA},
			},
			ok: true,
		},
		{
			name:   "rollout_ids alone",
			bodies: []string{"\n<rollout_ids>\n" + uuidB + "\n</rollout_ids>\n"},
			want:   Citations{RolloutIDs: []string{uuidB}, ThreadIDs: []string{uuidB}},
			ok:     true,
		},
		{
			name: "entries and duplicate ids de-duplicated across bodies",
			bodies: []string{
				"<citation_entries>\nMEMORY.md:234-236|note=[first]\n\n  rollout_summaries/x.md:10-12|note=[ second ]  \n</citation_entries>\n<rollout_ids>\n" + uuidA + "\n" + uuidB + "\n" + uuidA + "\n</rollout_ids>",
				"<citation_entries>\nskills/a/SKILL.md:1-1|note=[third]\n</citation_entries>\n<rollout_ids>\n" + uuidB + "\n</rollout_ids>",
			},
			want: Citations{
				Entries: []Entry{
					{Path: "MEMORY.md", LineStart: 234, LineEnd: 236, Note: "first"},
					{Path: "rollout_summaries/x.md", LineStart: 10, LineEnd: 12, Note: "second"},
					{Path: "skills/a/SKILL.md", LineStart: 1, LineEnd: 1, Note: "third"},
				},
				RolloutIDs: []string{uuidA, uuidB},
				ThreadIDs:  []string{uuidA, uuidB},
			},
			ok: true,
		},
		{
			name:   "split at the last note marker and the last colon",
			bodies: []string{"<citation_entries>\na|note=[b.md:1-2|note=[real]\nC:/x/y.md:3-4|note=[drive]\n</citation_entries>"},
			want: Citations{Entries: []Entry{
				{Path: "a|note=[b.md", LineStart: 1, LineEnd: 2, Note: "real"},
				{Path: "C:/x/y.md", LineStart: 3, LineEnd: 4, Note: "drive"},
			}},
			ok: true,
		},
		{
			name: "malformed entries skipped",
			bodies: []string{"<citation_entries>\n" +
				"MEMORY.md:1-2|note=[no close bracket\n" +
				"MEMORY.md:1|note=[no range dash]\n" +
				"MEMORY.md 1-2|note=[no colon]\n" +
				"MEMORY.md:a-2|note=[not a number]\n" +
				"MEMORY.md:-1-2|note=[negative]\n" +
				"MEMORY.md:1-2\n" +
				"MEMORY.md: 5 - 7 |note=[spaces are trimmed]\n" +
				"MEMORY.md:+3-4|note=[plus sign]\n" +
				"</citation_entries>"},
			want: Citations{Entries: []Entry{
				{Path: "MEMORY.md", LineStart: 5, LineEnd: 7, Note: "spaces are trimmed"},
				{Path: "MEMORY.md", LineStart: 3, LineEnd: 4, Note: "plus sign"},
			}},
			ok: true,
		},
		{
			name:   "rollout_ids wins over thread_ids",
			bodies: []string{"<thread_ids>\n" + uuidA + "\n</thread_ids><rollout_ids>\n" + uuidB + "\n</rollout_ids>"},
			want:   Citations{RolloutIDs: []string{uuidB}, ThreadIDs: []string{uuidB}},
			ok:     true,
		},
		{
			name:   "only the first entries section counts",
			bodies: []string{"<citation_entries>\na.md:1-1|note=[x]\n</citation_entries><citation_entries>\nb.md:2-2|note=[y]\n</citation_entries>"},
			want:   Citations{Entries: []Entry{{Path: "a.md", LineStart: 1, LineEnd: 1, Note: "x"}}},
			ok:     true,
		},
		{
			name:   "uuids are canonicalised for thread ids",
			bodies: []string{"<rollout_ids>\n{" + strings.ToUpper(uuidA) + "}\n</rollout_ids>"},
			want:   Citations{RolloutIDs: []string{"{" + strings.ToUpper(uuidA) + "}"}, ThreadIDs: []string{uuidA}},
			ok:     true,
		},
		{name: "no citation", bodies: []string{"just text"}, ok: false},
		{name: "no bodies", bodies: nil, ok: false},
		{name: "empty sections", bodies: []string{"<citation_entries>\n</citation_entries><rollout_ids>\n\n</rollout_ids>"}, ok: false},
		{name: "unterminated section ignored", bodies: []string{"<rollout_ids>\n" + uuidA}, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseCitations(tt.bodies)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseCitations = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestStripThenParseDocumentedExample(t *testing.T) {
	reply := "Done: the deploy now uses the new runner.\n\n<oai-mem-citation>\n<citation_entries>\n" +
		"MEMORY.md:234-236|note=[short reason]\n" +
		"rollout_summaries/2026-02-17T21-23-02-LN3m-example.md:10-12|note=[short reason]\n" +
		"</citation_entries>\n<rollout_ids>\n" + uuidA + "\n</rollout_ids>\n</oai-mem-citation>"
	visible, bodies := StripCitationsString(reply)
	if visible != "Done: the deploy now uses the new runner.\n\n" {
		t.Fatalf("visible = %q", visible)
	}
	c, ok := ParseCitations(bodies)
	if !ok || len(c.Entries) != 2 || c.Entries[1].LineEnd != 12 || !reflect.DeepEqual(c.ThreadIDs, []string{uuidA}) {
		t.Fatalf("got %+v %v", c, ok)
	}
}

// FuzzStripCitations checks that how the input is split into reads never
// changes the result, and that stripping only removes bytes.
func FuzzStripCitations(f *testing.F) {
	f.Add("Hello <oai-mem-citation>x</oai-mem-citation> world")
	f.Add("<oai-mem-citation>a<oai-mem-citation>b</oai-mem-cit")
	f.Add("a <oai-mem-")
	f.Fuzz(func(t *testing.T, in string) {
		visible, bodies := strip(t, strings.NewReader(in))
		v1, b1 := strip(t, iotest.OneByteReader(strings.NewReader(in)))
		if visible != v1 || !reflect.DeepEqual(bodies, b1) {
			t.Fatalf("one-byte reads differ: %q %q vs %q %q", visible, bodies, v1, b1)
		}
		removed := len(in) - len(visible)
		for _, b := range bodies {
			removed -= len(b)
		}
		if removed < 0 || len(bodies) == 0 && visible != in {
			t.Fatalf("accounting: visible %q bodies %q from %q", visible, bodies, in)
		}
		if strings.Contains(visible, CitationOpen) {
			t.Fatalf("open tag left visible: %q", visible)
		}
	})
}

func BenchmarkStripCitations(b *testing.B) {
	reply := strings.Repeat("Some visible answer text with <angle> brackets.\n", 20000) +
		"<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[x]\n</citation_entries>\n</oai-mem-citation>"
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := StripCitations(io.Discard, strings.NewReader(reply)); err != nil {
			b.Fatal(err)
		}
	}
}
