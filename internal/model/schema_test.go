package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// v2Schema is the Phase 1 (v2) output schema from codex-memories.md 6.7.
const v2Schema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "rollout_summary": {"type": "string"},
    "rollout_slug": {"type": "string"}
  },
  "required": ["rollout_summary", "rollout_slug"]
}`

func TestValidateJSON(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		answer   string
		wantErr  []string // substrings; nil = valid
		mismatch bool     // wraps ErrSchemaMismatch
	}{
		{name: "v1 valid", schema: v1Schema, answer: goodAnswer},
		{name: "v1 null slug", schema: v1Schema, answer: `{"rollout_summary":"s","rollout_slug":null,"raw_memory":""}`},
		{name: "v2 valid", schema: v2Schema, answer: `{"rollout_summary":"s","rollout_slug":"fix-ci"}`},
		{
			name: "missing property", schema: v1Schema, answer: `{"rollout_summary":"s","rollout_slug":null}`,
			wantErr: []string{"answer does not match schema", "at /: missing property 'raw_memory'"}, mismatch: true,
		},
		{
			name: "wrong type names the property", schema: v1Schema, answer: `{"rollout_summary":"s","rollout_slug":7,"raw_memory":"m"}`,
			wantErr: []string{"at /rollout_slug: got number, want null or string"}, mismatch: true,
		},
		{
			name: "v2 refuses null slug", schema: v2Schema, answer: `{"rollout_summary":"s","rollout_slug":null}`,
			wantErr: []string{"at /rollout_slug: got null, want string"}, mismatch: true,
		},
		{
			name: "extra property", schema: v2Schema, answer: `{"rollout_summary":"s","rollout_slug":"x","mood":"happy"}`,
			wantErr: []string{"additional properties 'mood' not allowed"}, mismatch: true,
		},
		{
			name: "several failures all named", schema: v1Schema, answer: `{"rollout_summary":1,"rollout_slug":false}`,
			wantErr: []string{"/rollout_summary", "/rollout_slug", "raw_memory"}, mismatch: true,
		},
		{
			name: "not an object", schema: v1Schema, answer: `["a"]`,
			wantErr: []string{"got array, want object"}, mismatch: true,
		},
		{name: "answer not JSON", schema: v1Schema, answer: `{"rollout_summary":`, wantErr: []string{"answer is not valid JSON"}},
		{name: "schema not JSON", schema: `{"type":`, answer: `{}`, wantErr: []string{"schema is not valid JSON"}},
		{name: "schema invalid", schema: `{"type":"strange"}`, answer: `{}`, wantErr: []string{"invalid schema"}},
		{name: "external ref refused", schema: `{"$ref":"file:///etc/passwd"}`, answer: `{}`, wantErr: []string{"invalid schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateJSON(json.RawMessage(tt.schema), []byte(tt.answer))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if got := errors.Is(err, ErrSchemaMismatch); got != tt.mismatch {
				t.Errorf("errors.Is(ErrSchemaMismatch) = %v, want %v", got, tt.mismatch)
			}
		})
	}
}

func TestValidateJSONCachesCompiledSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":3}}}`)
	for range 3 {
		if err := ValidateJSON(schema, []byte(`{"n":4}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := compiled.Load(string(schema)); !ok {
		t.Error("schema not cached")
	}
	err := ValidateJSON(schema, []byte(`{"n":2}`))
	if err == nil || !strings.Contains(err.Error(), "at /n: minimum: got 2, want 3") {
		t.Errorf("err = %v", err)
	}
}

func TestSingleObject(t *testing.T) {
	tests := []struct {
		out, want, err string
	}{
		{out: "  {\"a\":1}\n", want: `{"a":1}`},
		{out: "", err: "no answer on stdout"},
		{out: "not json", err: "stdout is not a JSON object"},
		{out: `[1,2]`, err: "stdout is not a JSON object"},
		{out: `{"a":1}{"b":2}`, err: "more than one JSON value"},
		{out: `{"a":1} trailing`, err: "more than one JSON value"},
	}
	for _, tt := range tests {
		got, err := singleObject([]byte(tt.out))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("singleObject(%q) err = %v, want %q", tt.out, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("singleObject(%q) = %s, %v", tt.out, got, err)
		}
	}
}
