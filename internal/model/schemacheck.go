package model

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// schemaNode is one parsed (sub)schema of the supported subset.
type schemaNode struct {
	types      []string // allowed JSON types; nil = any
	properties map[string]*schemaNode
	required   []string
	additional *schemaNode // nil with noAdditional false = any extra allowed
	noAdd      bool        // additionalProperties: false
	items      *schemaNode
	enum       []any
	minimum    *float64
	maximum    *float64
	minLength  *int
	maxLength  *int
	minItems   *int
	maxItems   *int
	pattern    *regexp.Regexp
}

var knownTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// ignoredKeywords carry no constraint.
var ignoredKeywords = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "default": true, "examples": true, "$comment": true}

func parseSchemaNode(raw any, at string) (*schemaNode, error) {
	if b, ok := raw.(bool); ok {
		if b {
			return &schemaNode{}, nil
		}
		return nil, fmt.Errorf("%s: the schema false is not supported", at)
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", at)
	}
	n := &schemaNode{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		var err error
		switch k {
		case "type":
			n.types, err = parseTypes(v, at)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: must be an object", at)
			}
			n.properties = map[string]*schemaNode{}
			for name, sub := range props {
				if n.properties[name], err = parseSchemaNode(sub, at+"/properties/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/required: must be an array of strings", at)
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s/required: must be an array of strings", at)
				}
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				n.noAdd = !b
			} else if n.additional, err = parseSchemaNode(v, at+"/additionalProperties"); err != nil {
				return nil, err
			}
		case "items":
			if n.items, err = parseSchemaNode(v, at+"/items"); err != nil {
				return nil, err
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/enum: must be an array", at)
			}
			n.enum = list
		case "const":
			n.enum = []any{v}
		case "minimum", "maximum":
			f, ok := v.(float64)
			if !ok {
				return nil, fmt.Errorf("%s/%s: must be a number", at, k)
			}
			if k == "minimum" {
				n.minimum = &f
			} else {
				n.maximum = &f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			f, ok := v.(float64)
			if !ok || f < 0 || f != math.Trunc(f) {
				return nil, fmt.Errorf("%s/%s: must be a non-negative integer", at, k)
			}
			i := int(f)
			switch k {
			case "minLength":
				n.minLength = &i
			case "maxLength":
				n.maxLength = &i
			case "minItems":
				n.minItems = &i
			default:
				n.maxItems = &i
			}
		case "pattern":
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s/pattern: must be a string", at)
			}
			if n.pattern, err = regexp.Compile(s); err != nil {
				return nil, fmt.Errorf("%s/pattern: %w", at, err)
			}
		default:
			if ignoredKeywords[k] {
				continue
			}
			return nil, fmt.Errorf("%s: keyword %q is not supported", at, k)
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func parseTypes(v any, at string) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case string:
		out = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s/type: must be a string or an array of strings", at)
			}
			out = append(out, s)
		}
	default:
		return nil, fmt.Errorf("%s/type: must be a string or an array of strings", at)
	}
	for _, t := range out {
		if !knownTypes[t] {
			return nil, fmt.Errorf("%s/type: unknown type %q", at, t)
		}
	}
	return out, nil
}

// jsonType names the JSON type of a decoded value (numbers as json.Number).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeAllowed(got string, allowed []string) bool {
	for _, a := range allowed {
		if a == got || (a == "number" && got == "integer") {
			return true
		}
	}
	return false
}

func pointer(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

// validate appends one message per broken rule, at JSON pointer at.
func (n *schemaNode) validate(v any, at string, problems *[]string) {
	fail := func(format string, args ...any) {
		*problems = append(*problems, fmt.Sprintf("at %s: ", pointer(at))+fmt.Sprintf(format, args...))
	}
	got := jsonType(v)
	if n.types != nil && !typeAllowed(got, n.types) {
		want := append([]string(nil), n.types...)
		sort.Strings(want)
		shown := got
		if got == "integer" {
			shown = "number"
		}
		fail("got %s, want %s", shown, strings.Join(want, " or "))
		return
	}
	if n.enum != nil {
		ok := false
		for _, e := range n.enum {
			if equalJSON(e, v) {
				ok = true
				break
			}
		}
		if !ok {
			fail("value is not one of the allowed values")
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				fail("missing property '%s'", r)
			}
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		var extra []string
		for _, k := range names {
			child := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if p, ok := n.properties[k]; ok {
				p.validate(x[k], child, problems)
				continue
			}
			switch {
			case n.noAdd:
				extra = append(extra, "'"+k+"'")
			case n.additional != nil:
				n.additional.validate(x[k], child, problems)
			}
		}
		if len(extra) > 0 {
			fail("additional properties %s not allowed", strings.Join(extra, ", "))
		}
	case []any:
		if n.minItems != nil && len(x) < *n.minItems {
			fail("minItems: got %d, want %d", len(x), *n.minItems)
		}
		if n.maxItems != nil && len(x) > *n.maxItems {
			fail("maxItems: got %d, want %d", len(x), *n.maxItems)
		}
		if n.items != nil {
			for i, e := range x {
				n.items.validate(e, fmt.Sprintf("%s/%d", at, i), problems)
			}
		}
	case string:
		l := utf8.RuneCountInString(x)
		if n.minLength != nil && l < *n.minLength {
			fail("minLength: got %d, want %d", l, *n.minLength)
		}
		if n.maxLength != nil && l > *n.maxLength {
			fail("maxLength: got %d, want %d", l, *n.maxLength)
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			fail("does not match pattern %q", n.pattern.String())
		}
	case json.Number:
		f, _ := x.Float64()
		if n.minimum != nil && f < *n.minimum {
			fail("minimum: got %s, want %s", x, trimFloat(*n.minimum))
		}
		if n.maximum != nil && f > *n.maximum {
			fail("maximum: got %s, want %s", x, trimFloat(*n.maximum))
		}
	}
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", f), "0"), ".")
}

func equalJSON(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(normalizeJSONNumber(b))
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

func normalizeJSONNumber(v any) any {
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		return f
	}
	return v
}
