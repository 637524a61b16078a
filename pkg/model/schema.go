package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrSchemaMismatch is wrapped by errors from ValidateJSON (and therefore by
// the AnswerError of Call) when the answer breaks the schema.
var ErrSchemaMismatch = errors.New("answer does not match schema")

// compiled caches compiled schemas by their text: a run makes many calls
// with the same one or two schemas.
var compiled sync.Map // string → *jsonschema.Schema

// noLoader refuses every external $ref: request schemas are self-contained,
// and validation must not read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %s not allowed", url)
}

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	key := string(schema)
	if s, ok := compiled.Load(key); ok {
		return s.(*jsonschema.Schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "memctl:///request-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	compiled.Store(key, s)
	return s, nil
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
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
	if err != nil {
		return fmt.Errorf("answer is not valid JSON: %w", err)
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("%w: %v", ErrSchemaMismatch, err)
	}
	return fmt.Errorf("%w: %s", ErrSchemaMismatch, describeValidation(ve))
}

// describeValidation flattens the validator's error tree into the leaf
// failures, each as "at <instance pointer>: <rule broken>".
func describeValidation(ve *jsonschema.ValidationError) string {
	out := ve.BasicOutput()
	var parts []string
	seen := map[string]bool{}
	add := func(u jsonschema.OutputUnit) {
		if u.Error == nil {
			return
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		msg := fmt.Sprintf("at %s: %s", loc, u.Error.String())
		if !seen[msg] {
			seen[msg] = true
			parts = append(parts, msg)
		}
	}
	for _, u := range out.Errors {
		add(u)
	}
	if len(parts) == 0 {
		add(*out)
	}
	if len(parts) == 0 {
		return strings.TrimSpace(ve.Error())
	}
	return strings.Join(parts, "; ")
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
		return nil, &AnswerError{Provider: provider, Answer: text, Err: fmt.Errorf("answer is not valid JSON: %s", truncate(string(text), 200))}
	}
	if err := ValidateJSON(schema, text); err != nil {
		return nil, &AnswerError{Provider: provider, Answer: text, Err: err}
	}
	return json.RawMessage(text), nil
}
