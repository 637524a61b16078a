package extract

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/memversion"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestParseOutput(t *testing.T) {
	slug := "fix-lock"
	tests := []struct {
		name    string
		version memversion.Version
		answer  string
		want    Output
		wantErr string
	}{
		{"v1 complete", memversion.V1, `{"rollout_summary":"# s","rollout_slug":"fix-lock","raw_memory":"---\nm"}`,
			Output{RawMemory: "---\nm", RolloutSummary: "# s", RolloutSlug: &slug}, ""},
		{"v1 null slug", memversion.V1, `{"rollout_summary":"s","rollout_slug":null,"raw_memory":"m"}`,
			Output{RawMemory: "m", RolloutSummary: "s"}, ""},
		{"v1 missing slug tolerated", memversion.V1, `{"rollout_summary":"s","raw_memory":"m"}`,
			Output{RawMemory: "m", RolloutSummary: "s"}, ""},
		{"v1 all empty", memversion.V1, `{"rollout_summary":"","rollout_slug":"","raw_memory":""}`,
			Output{RolloutSlug: new(string)}, ""},
		{"v1 unknown field", memversion.V1, `{"rollout_summary":"s","rollout_slug":null,"raw_memory":"m","extra":1}`, Output{}, "unknown field"},
		{"v1 wrong type", memversion.V1, `{"rollout_summary":3,"rollout_slug":null,"raw_memory":"m"}`, Output{}, "cannot unmarshal"},
		{"v1 slug wrong type", memversion.V1, `{"rollout_summary":"s","rollout_slug":7,"raw_memory":"m"}`, Output{}, "cannot unmarshal"},
		{"v1 missing raw_memory", memversion.V1, `{"rollout_summary":"s","rollout_slug":null}`, Output{}, "missing raw_memory"},
		{"v1 missing summary", memversion.V1, `{"rollout_slug":null,"raw_memory":"m"}`, Output{}, "missing rollout_summary"},
		{"v1 null summary", memversion.V1, `{"rollout_summary":null,"rollout_slug":null,"raw_memory":"m"}`, Output{}, "missing rollout_summary"},
		{"v1 not an object", memversion.V1, `["s"]`, Output{}, "cannot unmarshal"},
		{"v1 trailing data", memversion.V1, `{"rollout_summary":"s","rollout_slug":null,"raw_memory":"m"} {}`, Output{}, "after the JSON object"},
		{"v1 broken json", memversion.V1, `{"rollout_summary":"s"`, Output{}, "parse memory output"},
		{"v2 complete", memversion.V2, `{"rollout_summary":"s","rollout_slug":"fix-lock"}`,
			Output{RolloutSummary: "s", RolloutSlug: &slug}, ""},
		{"v2 raw_memory is unknown", memversion.V2, `{"rollout_summary":"s","rollout_slug":"x","raw_memory":"m"}`, Output{}, "unknown field"},
		{"v2 null slug", memversion.V2, `{"rollout_summary":"s","rollout_slug":null}`, Output{}, "rollout_slug"},
		{"v2 missing slug", memversion.V2, `{"rollout_summary":"s"}`, Output{}, "rollout_slug"},
		{"unknown version", "v3", `{}`, Output{}, "unknown memory version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutput(tt.version, []byte(tt.answer), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v (slug %v), want %+v", got, got.RolloutSlug, tt.want)
			}
		})
	}
}

func TestParseOutputRedacts(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED_SECRET]") }
	for _, v := range memversion.All() {
		answer := `{"rollout_summary":"key sk-secret here","rollout_slug":"slug-sk-secret"`
		if v == memversion.V1 {
			answer += `,"raw_memory":"raw sk-secret"`
		}
		got, err := ParseOutput(v, []byte(answer+"}"), redact)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{got.RawMemory, got.RolloutSummary, got.Slug()} {
			if strings.Contains(s, "sk-secret") {
				t.Errorf("%s: %q not redacted", v, s)
			}
		}
		if got.RolloutSummary != "key [REDACTED_SECRET] here" || got.Slug() != "slug-[REDACTED_SECRET]" {
			t.Errorf("%s: got %+v", v, got)
		}
		if v == memversion.V1 && got.RawMemory != "raw [REDACTED_SECRET]" {
			t.Errorf("raw memory = %q", got.RawMemory)
		}
	}
}

func TestParseOutputV2Truncation(t *testing.T) {
	// 3-byte runes so the 4,500-byte halves fall inside a rune.
	long := strings.Repeat("€", 4000) // 12,000 bytes
	answer, _ := json.Marshal(map[string]string{"rollout_summary": long, "rollout_slug": "s"})
	got, err := ParseOutput(memversion.V2, answer, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := got.RolloutSummary
	if !utf8.ValidString(s) {
		t.Fatal("truncated summary is not valid UTF-8")
	}
	head, tail, ok := strings.Cut(s, "…")
	if !ok {
		t.Fatalf("no marker in %q…", s[:40])
	}
	marker, tail, _ := strings.Cut(tail, "…")
	// Head: longest rune-aligned prefix within 4,500 bytes; tail: runes
	// starting at or after byte 12,000-4,500.
	if len(head) != 4500 || len(tail) != 4500 {
		t.Fatalf("head %d bytes, tail %d bytes", len(head), len(tail))
	}
	if marker != "1000 chars truncated" {
		t.Fatalf("marker %q", marker)
	}

	// Redaction happens first: a summary that only fits after redaction
	// is not cut.
	exact := strings.Repeat("a", MaxSummaryBytesV2-10) + "sk-0123456789abcdef"
	answer, _ = json.Marshal(map[string]string{"rollout_summary": exact, "rollout_slug": "s"})
	got, err = ParseOutput(memversion.V2, answer, func(s string) string { return strings.ReplaceAll(s, "sk-0123456789abcdef", "[X]") })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.RolloutSummary, "truncated") || !strings.HasSuffix(got.RolloutSummary, "[X]") {
		t.Fatalf("summary cut although it fits after redaction: …%q", got.RolloutSummary[len(got.RolloutSummary)-20:])
	}

	// v1 has no cap.
	answer, _ = json.Marshal(map[string]any{"rollout_summary": long, "rollout_slug": nil, "raw_memory": "m"})
	got, err = ParseOutput(memversion.V1, answer, nil)
	if err != nil || got.RolloutSummary != long {
		t.Fatalf("v1 summary changed (err %v)", err)
	}
}

func TestHasOutput(t *testing.T) {
	tests := []struct {
		out    Output
		v1, v2 bool
	}{
		{Output{}, false, false},
		{Output{RolloutSummary: "s"}, false, true},
		{Output{RawMemory: "m"}, false, false},
		{Output{RawMemory: "m", RolloutSummary: "s"}, true, true},
		{Output{RawMemory: " ", RolloutSummary: " "}, true, true}, // exact emptiness, no trimming
	}
	for _, tt := range tests {
		if got := tt.out.HasOutput(memversion.V1); got != tt.v1 {
			t.Errorf("%+v v1: got %v", tt.out, got)
		}
		if got := tt.out.HasOutput(memversion.V2); got != tt.v2 {
			t.Errorf("%+v v2: got %v", tt.out, got)
		}
	}
}

func TestSchema(t *testing.T) {
	for _, tt := range []struct {
		version  memversion.Version
		required []string
		props    []string
	}{
		{memversion.V1, []string{"rollout_summary", "rollout_slug", "raw_memory"}, []string{"raw_memory", "rollout_slug", "rollout_summary"}},
		{memversion.V2, []string{"rollout_summary", "rollout_slug"}, []string{"rollout_slug", "rollout_summary"}},
	} {
		raw := Schema(tt.version)
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("%s: %v", tt.version, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: type %q additionalProperties %v", tt.version, s.Type, s.AdditionalProperties)
		}
		if !reflect.DeepEqual(s.Required, tt.required) {
			t.Errorf("%s: required %v", tt.version, s.Required)
		}
		var props []string
		for k := range s.Properties {
			props = append(props, k)
		}
		if len(props) != len(tt.props) {
			t.Errorf("%s: properties %v", tt.version, props)
		}
		for _, p := range tt.props {
			if _, ok := s.Properties[p]; !ok {
				t.Errorf("%s: property %s missing", tt.version, p)
			}
		}
		// Round trip: re-encoding the decoded schema gives equivalent JSON.
		var a, b any
		_ = json.Unmarshal(raw, &a)
		again, _ := json.Marshal(a)
		_ = json.Unmarshal(again, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: schema does not survive a round trip", tt.version)
		}
	}
	if Schema("v9") != nil {
		t.Error("unknown version should give no schema")
	}
	var v1slug map[string]any
	_ = json.Unmarshal(Schema(memversion.V1), &v1slug)
	if got := v1slug["properties"].(map[string]any)["rollout_slug"].(map[string]any)["type"]; !reflect.DeepEqual(got, []any{"string", "null"}) {
		t.Errorf("v1 rollout_slug type = %v", got)
	}
}

// compileSchema turns one of our schemas into a validator.
func compileSchema(t *testing.T, version memversion.Version) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(Schema(version))))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("memory_stage1_"+version.String()+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("memory_stage1_" + version.String() + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaAgreesWithParser(t *testing.T) {
	answers := []struct {
		version memversion.Version
		answer  string
	}{
		{memversion.V1, `{"rollout_summary":"s","rollout_slug":null,"raw_memory":"m"}`},
		{memversion.V1, `{"rollout_summary":"s","rollout_slug":"x","raw_memory":"m"}`},
		{memversion.V1, `{"rollout_summary":"s","rollout_slug":"x","raw_memory":"m","x":1}`},
		{memversion.V1, `{"rollout_summary":1,"rollout_slug":"x","raw_memory":"m"}`},
		{memversion.V2, `{"rollout_summary":"s","rollout_slug":"x"}`},
		{memversion.V2, `{"rollout_summary":"s","rollout_slug":null}`},
		{memversion.V2, `{"rollout_summary":"s","rollout_slug":"x","raw_memory":""}`},
	}
	for _, a := range answers {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(a.answer))
		if err != nil {
			t.Fatal(err)
		}
		schemaOK := compileSchema(t, a.version).Validate(inst) == nil
		_, perr := ParseOutput(a.version, []byte(a.answer), nil)
		if schemaOK != (perr == nil) {
			t.Errorf("%s %s: schema valid %v, parser error %v", a.version, a.answer, schemaOK, perr)
		}
	}
}

func TestOutputJSONRoundTrip(t *testing.T) {
	slug := "a-b"
	for _, v := range memversion.All() {
		in := Output{RolloutSummary: "# t\n<x> & y", RolloutSlug: &slug}
		if v == memversion.V1 {
			in.RawMemory = "---\nd"
		}
		b, err := in.JSON(v)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ParseOutput(v, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Errorf("%s: %+v != %+v", v, in, out)
		}
	}
}
