// Package uuidtext reads UUIDs written as text, as the thread ids of Codex
// and Claude Code sessions are. It accepts exactly what
// github.com/google/uuid's Parse accepts and reads the same bytes and
// time from them (the tests check both on every input), without that
// package's imports: it reads no network interface and starts no random
// source, so a program that only reads memory file names links none of
// that.
package uuidtext

import "encoding/binary"

// UUID is the 16 bytes of a UUID.
type UUID [16]byte

// Parse reads s in any form uuid.Parse takes:
// xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, that form after "urn:uuid:" (any
// case) or between two characters (as in {…}, which are not checked), or
// 32 hex digits. Hex digits may be of either case. ok is false for
// anything else.
func Parse(s string) (u UUID, ok bool) {
	switch len(s) {
	case 36:
	case 36 + 9:
		if !equalFoldASCII(s[:9], "urn:uuid:") {
			return u, false
		}
		s = s[9:]
	case 36 + 2:
		s = s[1:]
	case 32:
		for i := range u {
			if u[i], ok = hexByte(s[i*2], s[i*2+1]); !ok {
				return u, false
			}
		}
		return u, true
	default:
		return u, false
	}
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	for i, x := range [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34} {
		if u[i], ok = hexByte(s[x], s[x+1]); !ok {
			return u, false
		}
	}
	return u, true
}

// String is u in its canonical form, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
// in lower case.
func (u UUID) String() string {
	const digits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = digits[c>>4], digits[c&0xf]
		j += 2
	}
	return string(b[:])
}

// Version is the version nibble of u.
func (u UUID) Version() int { return int(u[6] >> 4) }

// gregorianToUnix is the time from 15 October 1582 (where a UUID's clock
// starts) to 1 January 1970, in the 100-nanosecond steps of that clock.
const gregorianToUnix = (2440587 - 2299160) * 86400 * 10000000

// UnixTime is the time u carries as seconds and nanoseconds since 1970, as
// uuid.UUID.Time().UnixTime() reads it: the 60-bit clock of versions 1 and
// 2 (and of any version but 6 and 7), the first 64 bits as they stand for
// version 6, the 48-bit millisecond clock of version 7.
func (u UUID) UnixTime() (sec, nsec int64) {
	var t int64
	switch u.Version() {
	case 6:
		t = int64(binary.BigEndian.Uint64(u[:8]))
	case 7:
		t = int64((binary.BigEndian.Uint64(u[:8])>>16)*10000 + gregorianToUnix)
	default:
		t = int64(binary.BigEndian.Uint32(u[0:4]))
		t |= int64(binary.BigEndian.Uint16(u[4:6])) << 32
		t |= int64(binary.BigEndian.Uint16(u[6:8])&0xfff) << 48
	}
	sec = t - gregorianToUnix
	nsec = (sec % 10000000) * 100
	sec /= 10000000
	return sec, nsec
}

// hexByte is the byte two hex digits spell.
func hexByte(hi, lo byte) (byte, bool) {
	h, okh := hexDigit(hi)
	l, okl := hexDigit(lo)
	return h<<4 | l, okh && okl
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// equalFoldASCII is strings.EqualFold for a with an ASCII b.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
