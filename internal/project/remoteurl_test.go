package project

import (
	"net/url"
	"testing"
)

// Remotes as git configs hold them, and the corners of net/url's reading
// that parseRemoteURL must keep: ports, users, escapes, IPv6 literals with
// zones, opaque and relative forms, and what url.Parse refuses.
var remoteURLCases = []string{
	"https://github.com/acme/service-7.git",
	"https://GitHub.com/Acme/Service.git",
	"ssh://git@github.com/acme/service-7.git",
	"ssh://git@github.com:22/acme/service-7.git",
	"git://git.example.org/x/y",
	"https://user:p%40ss@gitlab.example.com:8443/group/sub/repo.git",
	"https://user:p@ss@example.com/a/b",
	"https://us er@example.com/a",
	"https://example.com/a%20b/c%2Fd",
	"https://example.com/a%2",
	"https://exa%41mple.com/a",
	"https://ex%C3%A4mple.com/a",
	"https://example.com:80:90/a",
	"ssh://a:b:22/x",
	"postgres://h1:5432,h2:5433/db",
	"https://[::1]/a/b",
	"https://[::1]:8080/a/b",
	"https://[fe80::1%25en0]:22/a",
	"https://[fe80::1%25%65n0]/a",
	"https://[fe80::1%25%0a]/a",
	"https://[::ffff:192.0.2.1]/a",
	"https://[1:2:3:4:5:6:192.0.2.1]/a",
	"https://[1:2:3:4:5:6:7:192.0.2.1]/a",
	"https://[192.0.2.1]/a",
	"https://[::1",
	"https://a[::1]/x",
	"https://[::1]x/a",
	"https://[1::2::3]/a",
	"https://[1:2:3:4:5:6:7:8]/a",
	"https://[1:2:3:4:5:6:7:8:9]/a",
	"https://[12345::1]/a",
	"https://[::01.2.3.4]/a",
	"file:///srv/git/project.git",
	"file://localhost/srv/git/project.git",
	"file://",
	"file:relative/path",
	"https://example.com/a?q=1#frag",
	"https://example.com/a#%zz",
	"https://example.com/a?",
	"https://example.com/a??",
	"://example.com/a",
	"1https://example.com/a",
	"https://example.com/a\nb",
	"https://example.com/a#b\nc",
	"*",
	"a:b://c",
	"x/y://z",
	"//host/path",
	"///path://x",
	"https:////x",
	"https://exa mple.com/a",
	"https://example.com/ä",
	"https://ëxample.com/a",
	"HTTPS://example.com/a",
	"",
}

func TestParseRemoteURLAgreesWithNetURL(t *testing.T) {
	for _, raw := range remoteURLCases {
		sameAsNetURL(t, raw)
	}
}

func TestRemoteKeyOfURLs(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"https://GitHub.com/Acme/Service.git", prefixRemote + "github.com/acme/service"},
		{"ssh://git@github.com:22/acme/service-7.git", prefixRemote + "github.com/acme/service-7"},
		{"https://[::1]:8080/a/b", prefixRemote + "::1/a/b"},
		{"file:///srv/git/project.git", prefixRemote + "file:/srv/git/project"},
		{"https://example.com/a%2", ""},
		{"https://[192.0.2.1]/a", ""},
	} {
		if got := remoteKey(c.raw, "/base"); got != c.want {
			t.Errorf("remoteKey(%q) = %q, want %q", c.raw, got, c.want)
		}
	}
}

// FuzzParseRemoteURL checks parseRemoteURL against url.Parse on any
// input: the same strings refused, the same scheme, host name and path,
// which is all splitRemote reads of a URL.
func FuzzParseRemoteURL(f *testing.F) {
	for _, raw := range remoteURLCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sameAsNetURL(t, raw)
	})
}

func sameAsNetURL(t *testing.T, raw string) {
	t.Helper()
	scheme, hostname, path, ok := parseRemoteURL(raw)
	u, err := url.Parse(raw)
	if ok != (err == nil) {
		t.Fatalf("parseRemoteURL(%q) ok = %v, url.Parse error = %v", raw, ok, err)
	}
	if !ok {
		return
	}
	if scheme != u.Scheme || hostname != u.Hostname() || path != u.Path {
		t.Fatalf("parseRemoteURL(%q) = %q, %q, %q; url.Parse: %q, %q, %q",
			raw, scheme, hostname, path, u.Scheme, u.Hostname(), u.Path)
	}
}
