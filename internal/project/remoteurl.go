package project

import "strings"

// A remote written as a URL (scheme://…) is read by hand, as net/url's
// Parse reads it: summary resolves the project on every agent session,
// and net/url links net/netip (for bracketed IPv6 hosts) into a program
// that never touches the network. The tests check the two agree on every
// input.

// parseRemoteURL reads raw as url.Parse does and returns the scheme (in
// lower case), the host name as URL.Hostname gives it (no port, no
// brackets) and the unescaped path; ok is false for any string url.Parse
// refuses.
func parseRemoteURL(raw string) (scheme, hostname, path string, ok bool) {
	rest, frag, _ := strings.Cut(raw, "#")
	if _, ok := unescapeURL(frag, escapeOther); !ok || hasControlByte(rest) {
		return "", "", "", false
	}
	if rest == "*" {
		return "", "", "*", true
	}
	if scheme, rest, ok = urlScheme(rest); !ok {
		return "", "", "", false
	}
	scheme = strings.ToLower(scheme)
	if strings.HasSuffix(rest, "?") && strings.Count(rest, "?") == 1 {
		rest = rest[:len(rest)-1]
	} else {
		rest, _, _ = strings.Cut(rest, "?")
	}
	if !strings.HasPrefix(rest, "/") {
		if scheme != "" {
			return scheme, "", "", true // scheme:opaque, no host and no path
		}
		if segment, _, _ := strings.Cut(rest, "/"); strings.Contains(segment, ":") {
			return "", "", "", false
		}
	}
	host := ""
	if (scheme != "" || !strings.HasPrefix(rest, "///")) && strings.HasPrefix(rest, "//") {
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if host, ok = urlAuthority(scheme, authority); !ok {
			return "", "", "", false
		}
	}
	if path, ok = unescapeURL(rest, escapeOther); !ok {
		return "", "", "", false
	}
	return scheme, urlHostname(host), path, true
}

// urlScheme splits scheme: off s when s starts with one
// ([a-zA-Z][a-zA-Z0-9+.-]*:); ok is false when s starts with ':'.
func urlScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", s, true
			}
		case c == ':':
			if i == 0 {
				return "", "", false
			}
			return s[:i], s[i+1:], true
		default:
			return "", s, true
		}
	}
	return "", s, true
}

// urlAuthority reads [userinfo@]host[:port] and returns the host (with its
// port) unescaped.
func urlAuthority(scheme, authority string) (host string, ok bool) {
	at := strings.LastIndexByte(authority, '@')
	if host, ok = urlHost(scheme, authority[at+1:]); !ok || at < 0 {
		return host, ok
	}
	userinfo := authority[:at]
	for i := 0; i < len(userinfo); i++ {
		if !userinfoByte(userinfo[i]) {
			return "", false
		}
	}
	// A user and password split at the first ':' unescape as the whole
	// does: an escape never spans a ':', which is no hex digit.
	if _, ok := unescapeURL(userinfo, escapeOther); !ok {
		return "", false
	}
	return host, true
}

// userinfoByte reports a byte a URL's userinfo may hold: letters, digits,
// -._:~!$&'()*+,;=%@ (nothing outside ASCII).
func userinfoByte(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	return strings.ContainsRune("-._:~!$&'()*+,;=%@", rune(c))
}

// urlHost reads host[:port], or [IPv6 literal][:port].
func urlHost(scheme, host string) (string, bool) {
	switch open := strings.LastIndexByte(host, '['); {
	case open > 0:
		return "", false
	case open == 0:
		end := strings.LastIndexByte(host, ']')
		if end < 0 {
			return "", false
		}
		colonPort := host[end+1:]
		if !validOptionalPort(colonPort) {
			return "", false
		}
		name := host[1:end]
		var literal string
		if zone := strings.Index(name, "%25"); zone >= 0 {
			addr, ok := unescapeURL(name[:zone], escapeHost)
			if !ok {
				return "", false
			}
			zonePart, ok := unescapeURL(name[zone:], escapeZone)
			if !ok {
				return "", false
			}
			literal = addr + zonePart
		} else {
			var ok bool
			if literal, ok = unescapeURL(name, escapeHost); !ok {
				return "", false
			}
		}
		if !isIPv6Literal(literal) {
			return "", false
		}
		return "[" + literal + "]" + colonPort, true
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		// More than one ':' before the port: http and https take the
		// first as the port's (and refuse the rest), other schemes the
		// last, as net/url does under this module's Go version.
		if scheme != "http" && scheme != "https" {
			i = strings.LastIndexByte(host, ':')
		}
		if !validOptionalPort(host[i:]) {
			return "", false
		}
	}
	return unescapeURL(host, escapeHost)
}

// urlHostname is host without its port and brackets, as URL.Hostname
// gives it.
func urlHostname(host string) string {
	if colon := strings.LastIndexByte(host, ':'); colon >= 0 && validOptionalPort(host[colon:]) {
		host = host[:colon]
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return host
}

// validOptionalPort reports "" or ':' and digits.
func validOptionalPort(port string) bool {
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// hasControlByte reports an ASCII control character in s.
func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// escapeMode is the part of a URL being unescaped: a host and an IPv6
// zone take fewer characters and escapes than the rest.
type escapeMode int

const (
	escapeOther escapeMode = iota
	escapeHost
	escapeZone
)

// unescapeURL decodes the %XX escapes of s, false when one is malformed
// or mode refuses a character or escape, as net/url's unescape does.
func unescapeURL(s string, mode escapeMode) (string, bool) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			if mode != escapeOther && c < 0x80 && !hostByte(c) && c != '+' {
				return "", false
			}
			i++
			continue
		}
		if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
			return "", false
		}
		if mode == escapeHost && unhex(s[i+1]) < 8 && s[i:i+3] != "%25" {
			return "", false
		}
		if v := unhex(s[i+1])<<4 | unhex(s[i+2]); mode == escapeZone && s[i:i+3] != "%25" && v != ' ' && (v >= 0x80 || !hostByte(v)) {
			return "", false
		}
		n++
		i += 3
	}
	if n == 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s) - 2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// hostByte reports an ASCII byte a URL's host (or IPv6 zone) may hold
// as it is: letters, digits and !"$&'()*+,-.:;<=>[]_~.
func hostByte(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	return strings.ContainsRune(`!"$&'()*+,-.:;<=>[]_~`, rune(c))
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// isIPv6Literal reports what net/url allows between brackets: an address
// netip.ParseAddr reads as IPv6 (with an optional %zone), IPv4-mapped
// ones included, and no IPv4 address.
func isIPv6Literal(s string) bool {
	if i := strings.IndexAny(s, ".:%"); i < 0 || s[i] != ':' {
		return false // IPv4, a zone without an address, or no address
	}
	if i := strings.IndexByte(s, '%'); i >= 0 {
		if s[i+1:] == "" {
			return false
		}
		s = s[:i]
	}
	fields := 0 // 16-bit fields read, an embedded IPv4 address counting 2
	ellipsis := false
	if strings.HasPrefix(s, "::") {
		ellipsis, s = true, s[2:]
		if s == "" {
			return true
		}
	}
	for fields < 8 {
		off := 0
		for off < len(s) && isHexDigit(s[off]) {
			off++
		}
		if off == 0 || off > 4 {
			return false
		}
		if off < len(s) && s[off] == '.' {
			if !ellipsis && fields != 6 || fields > 6 || !isIPv4(s) {
				return false
			}
			s, fields = "", fields+2
			break
		}
		fields++
		if s = s[off:]; s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		if s = s[1:]; s[0] == ':' {
			if ellipsis {
				return false
			}
			ellipsis, s = true, s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return false
	}
	if fields < 8 {
		return ellipsis
	}
	return !ellipsis
}

// isIPv4 reports four dotted decimal fields of at most 255, without
// leading zeros, as netip reads an IPv4 address.
func isIPv4(s string) bool {
	fields := strings.Split(s, ".")
	if len(fields) != 4 {
		return false
	}
	for _, f := range fields {
		if f == "" || len(f) > 1 && f[0] == '0' || len(f) > 3 {
			return false
		}
		v := 0
		for i := 0; i < len(f); i++ {
			if f[i] < '0' || f[i] > '9' {
				return false
			}
			v = v*10 + int(f[i]-'0')
		}
		if v > 255 {
			return false
		}
	}
	return true
}
