package config

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2/unstable"
)

// kind is a key's type in the TOML file.
type kind int

const (
	kindString   kind = iota
	kindInt           // an integer; floats and strings are refused
	kindBool          // true or false
	kindStrings       // an array of strings
	kindDuration      // a string such as "10m"
)

// fileType is the Go type a value of this kind is strictly decoded into
// (a pointer, so the decoder leaves absent keys alone).
func (k kind) fileType() reflect.Type {
	switch k {
	case kindInt:
		return reflect.TypeFor[*int64]()
	case kindBool:
		return reflect.TypeFor[*bool]()
	case kindStrings:
		return reflect.TypeFor[*[]string]()
	}
	return reflect.TypeFor[*string]() // kindString, kindDuration
}

// sourcesKey is the array of tables that lists transcript folders, and
// sourceFields the keys of one entry; both are strings.
const sourcesKey = "sources"

var sourceFields = []string{"kind", "path"}

// projectsKey is the array of tables that overrides project identities
// (docs/projects.md), and projectFields the keys of one entry; all strings.
const projectsKey = "projects"

var projectFields = []string{"path", "name", "key"}

// arrayTables are the file's arrays of tables, with the string keys of
// one entry.
var arrayTables = []struct {
	key    string
	fields []string
}{{sourcesKey, sourceFields}, {projectsKey, projectFields}}

// fileShape is the type a config file is strictly decoded into, generated
// from the key table: one struct per section with a field per key, and the
// [[sources]] and [[projects]] tables. An unknown key or section and a value of the wrong
// type are so the decoder's own errors, with their lines.
var fileShape = sync.OnceValue(func() reflect.Type {
	var sections []reflect.StructField
	var fields []reflect.StructField
	flush := func(section string) {
		if section == "" {
			return
		}
		sections = append(sections, reflect.StructField{
			Name: fmt.Sprintf("S%d", len(sections)),
			Type: reflect.PointerTo(reflect.StructOf(fields)),
			Tag:  reflect.StructTag(fmt.Sprintf("toml:%q", section)),
		})
		fields = nil
	}
	cur := ""
	for _, k := range keys() {
		section, field, _ := strings.Cut(k.name, ".")
		if section != cur {
			flush(cur)
			cur = section
		}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("K%d", len(fields)),
			Type: k.kind.fileType(),
			Tag:  reflect.StructTag(fmt.Sprintf("toml:%q", field)),
		})
	}
	flush(cur)
	for _, at := range arrayTables {
		var entry []reflect.StructField
		for i, f := range at.fields {
			entry = append(entry, reflect.StructField{
				Name: fmt.Sprintf("K%d", i), Type: kindString.fileType(), Tag: reflect.StructTag(fmt.Sprintf("toml:%q", f)),
			})
		}
		sections = append(sections, reflect.StructField{
			Name: fmt.Sprintf("S%d", len(sections)),
			Type: reflect.SliceOf(reflect.StructOf(entry)),
			Tag:  reflect.StructTag(fmt.Sprintf("toml:%q", at.key)),
		})
	}
	return reflect.StructOf(sections)
})

// keyLines maps the dotted name of every key in a TOML document
// ("memories.max_unused_days") to the line it is on, from go-toml's own
// parser, for messages about values the decoder accepted but a key's
// rules refuse (an enum, a duration). The document has already been
// decoded, so it parses.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
		case unstable.KeyValue:
			addKeyValue(&p, lines, table, e)
		}
	}
	return lines
}

// addKeyValue records the line of a key-value under prefix and, for an
// inline table ("memories = { version = \"v2\" }"), of the keys inside it.
func addKeyValue(p *unstable.Parser, lines map[string]int, prefix []string, e *unstable.Node) {
	parts := append(append([]string{}, prefix...), keyParts(e.Key())...)
	name := strings.Join(parts, ".")
	if _, seen := lines[name]; !seen {
		it := e.Key()
		it.Next()
		lines[name] = p.Shape(it.Node().Raw).Start.Line
	}
	if v := e.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			addKeyValue(p, lines, parts, it.Node())
		}
	}
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// typeError says why the value at path in the loosely decoded document
// does not fit its key, in the words of the key's kind; nil when path is
// not a key of the table or its value fits.
func typeError(raw map[string]any, path []string) error {
	var k kind
	var v any
	switch {
	case len(path) == 1 && path[0] == sourcesKey:
		return fmt.Errorf("want [[%s]] tables, got %s", sourcesKey, tomlType(raw[sourcesKey]))
	case len(path) == 1:
		return fmt.Errorf("want a [%s] table, got %s", path[0], tomlType(raw[path[0]]))
	case len(path) == 2 && path[0] == sourcesKey:
		// A [[sources]] field: every one is a string; go-toml does not say
		// which entry, so the first that does not fit is described.
		list, _ := raw[sourcesKey].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			if err := kindString.check(m[path[1]]); m[path[1]] != nil && err != nil {
				return err
			}
		}
		return nil
	case len(path) == 2:
		found := false
		for _, key := range keys() {
			if key.name == path[0]+"."+path[1] {
				k, found = key.kind, true
			}
		}
		sec, ok := raw[path[0]].(map[string]any)
		if !found || !ok {
			return nil
		}
		v = sec[path[1]]
	default:
		return nil
	}
	return k.check(v)
}

// check reports a value a file holds that is not of this kind.
func (k kind) check(v any) error {
	switch k {
	case kindInt:
		switch x := v.(type) {
		case int64:
			return nil
		case float64:
			return fmt.Errorf("want an integer, got %v", x)
		}
		return fmt.Errorf("want an integer, got %s", tomlType(v))
	case kindBool:
		if _, ok := v.(bool); ok {
			return nil
		}
		return fmt.Errorf("want true or false, got %s", tomlType(v))
	case kindStrings:
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array of strings, got %s", tomlType(v))
		}
		for i, e := range list {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("want an array of strings, element %d is %s", i, tomlType(e))
			}
		}
		return nil
	case kindDuration:
		if _, ok := v.(string); ok {
			return nil
		}
		return fmt.Errorf("want a duration string such as \"10m\", got %s", tomlType(v))
	}
	if _, ok := v.(string); ok {
		return nil
	}
	return fmt.Errorf("want a string, got %s", tomlType(v))
}

// tomlType names the TOML type of a loosely decoded value.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
