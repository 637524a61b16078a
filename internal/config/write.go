package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// SetInFile sets one string key ("section.name") in the config file at
// path, creating the file when there is none, and leaves every other line
// as it was: comments, order, the user's formatting. The edit is checked
// before it is written: the new file must parse, hold value for key, and
// hold everything else exactly as before; otherwise nothing is written and
// the error says why. The file is replaced atomically. note, when not
// empty, is written as a comment on the line.
func SetInFile(path, key, value, note string) error {
	section, field, _ := strings.Cut(key, ".")
	k := findKey(key)
	if k == nil || k.kind != kindString {
		return fmt.Errorf("%s is not a string key", key)
	}
	if err := k.set(Default(), value); err != nil {
		return &Error{Key: key, Err: err}
	}
	before, err := os.ReadFile(path)
	mode := os.FileMode(0o600)
	switch {
	case errors.Is(err, os.ErrNotExist):
		before = nil
	case err != nil:
		return &Error{File: path, Err: err}
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	line := fmt.Sprintf("%s = %s", field, tomlValue(value))
	if note != "" {
		line += "  # " + strings.ReplaceAll(note, "\n", " ")
	}
	after := setLine(before, section, field, line)

	old, err := Parse(bytes.NewReader(before), path)
	if err != nil {
		return err
	}
	updated, err := Parse(bytes.NewReader(after), path)
	if err != nil {
		return fmt.Errorf("setting %s in %s would break it (%v); nothing was written", key, path, err)
	}
	if !sameExcept(old, updated, key) || k.get(updated) != value {
		return fmt.Errorf("cannot set %s in %s by editing one line; nothing was written", key, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(after); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var tableHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$`) })

// setLine puts line in place of field's assignment in [section], or
// right under the section's header, or in a new section at the end.
func setLine(text []byte, section, field, line string) []byte {
	lines := strings.Split(string(text), "\n")
	assign := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(field) + `\s*=`)
	header := -1
	for i, l := range lines {
		m := tableHeaderRE().FindStringSubmatch(l)
		if header >= 0 && (m != nil || strings.HasPrefix(strings.TrimSpace(l), "[[")) {
			break // the next table: no assignment in ours
		}
		if m != nil && m[1] == section {
			header = i
			continue
		}
		if header >= 0 && assign.MatchString(l) {
			lines[i] = line
			return []byte(strings.Join(lines, "\n"))
		}
	}
	if header >= 0 {
		lines = append(lines[:header+1], append([]string{line}, lines[header+1:]...)...)
		return []byte(strings.Join(lines, "\n"))
	}
	out := strings.TrimRight(string(text), "\n")
	if out != "" {
		out += "\n\n"
	}
	return []byte(out + "[" + section + "]\n" + line + "\n")
}

// sameExcept reports whether a and b agree on every entry but key.
func sameExcept(a, b *Config, key string) bool {
	ea, eb := a.Entries(), b.Entries()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Key == key {
			continue
		}
		if ea[i].Key != eb[i].Key || ea[i].Origin != eb[i].Origin || !reflect.DeepEqual(ea[i].Value, eb[i].Value) {
			return false
		}
	}
	return true
}

func findKey(name string) *key {
	for _, k := range keys() {
		if k.name == name {
			return &k
		}
	}
	return nil
}
