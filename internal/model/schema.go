package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/textcut"
)

// ErrSchemaMismatch is wrapped by errors from ValidateJSON (and therefore by
// the AnswerError of Call) when the answer breaks the schema.
var ErrSchemaMismatch = errors.New("answer does not match schema")

// compiled caches parsed schemas by their text: a run makes many calls
// with the same one or two schemas.
var compiled sync.Map // string → *schemaNode

// compileSchema parses a request schema. Only the keywords structured
// outputs use are supported; any other keyword (and every $ref) makes the
// schema invalid, so nothing is ever accepted unchecked.
//
// memctl validates with this small checker instead of a library, measured
// (docs/benchmarks.md, "Schema validation"): santhosh-tekuri/jsonschema,
// which reports every failure with its location as this checker does,
// compiles its meta-schemas in its package init, 28 ms and 1.7 MB (median
// of 3, GODEBUG=inittrace=1) in every memctl process, summary and cite
// included, which is several times a whole `memctl summary`; the
// google/jsonschema-go already linked (through the MCP SDK, init 0.2 ms)
// stops at the first failure and names schema paths, not the answer's.
// This checker costs 47 µs an answer against 13 µs for google's (medians),
// nothing next to the model call that produced the answer.
func compileSchema(schema json.RawMessage) (*schemaNode, error) {
	key := string(schema)
	if s, ok := compiled.Load(key); ok {
		return s.(*schemaNode), nil
	}
	var raw any
	if err := json.Unmarshal(schema, &raw); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	n, err := parseSchemaNode(raw, "#")
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	compiled.Store(key, n)
	return n, nil
}

// ValidateJSON checks answer against the JSON schema. The error wraps
// ErrSchemaMismatch and names each failing location and rule, e.g.
// "answer does not match schema: at /rollout_slug: got number, want null or
// string". A schema that does not compile, or an answer that is not JSON, is
// reported as such.
func ValidateJSON(schema json.RawMessage, answer []byte) error {
	s, err := compileSchema(schema)
	if err != nil {
		return err
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.UseNumber()
	if err := dec.Decode(&inst); err != nil {
		return fmt.Errorf("answer is not valid JSON: %w", err)
	}
	var problems []string
	s.validate(inst, "", &problems)
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrSchemaMismatch, strings.Join(problems, "; "))
}

// schemaObject decodes a request schema for the SDKs, which take it as a
// map. Every structured call needs one, and it must be an object schema.
func schemaObject(schema json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, errors.New("request has no schema")
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return nil, fmt.Errorf("request schema is not a JSON object: %w", err)
	}
	if _, err := compileSchema(schema); err != nil {
		return nil, err
	}
	return m, nil
}

// checkAnswer turns raw answer text into validated JSON.
func checkAnswer(provider string, schema json.RawMessage, text []byte) (json.RawMessage, error) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return nil, &AnswerError{Provider: provider, Err: errors.New("empty answer")}
	}
	if !json.Valid(text) {
		return nil, &AnswerError{Provider: provider, Answer: text, Err: fmt.Errorf("answer is not valid JSON: %s", textcut.Head(string(text), 200))}
	}
	if err := ValidateJSON(schema, text); err != nil {
		return nil, &AnswerError{Provider: provider, Answer: text, Err: err}
	}
	return json.RawMessage(text), nil
}
