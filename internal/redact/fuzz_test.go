package redact

import (
	"bytes"
	"strings"
	"testing"
)

// plantedSecrets are fake secrets of several families; FuzzRedact puts one on its own
// line between two fuzzed strings, and it must never come out.
func plantedSecrets() []string {
	return []string{
		"Authorization: Bearer " + fake("", setURL, 32),
		fake("sk-", setAlnum, 40),
		fake("AKIA", setUpper, 16),
		fake("gh"+"p_", setAlnum, 36),
		fake("sk-"+"ant-api03-", setURL, 60),
		fake("xo"+"xb-", setAlnum, 30),
		fake("AI"+"za", setURL, 35),
		"eyJhbGciOiJIUzI1NiJ9." + fake("eyJ", setURL, 30) + "." + fake("", setURL, 30),
		fake("np"+"m_", setAlnum, 36),
		fake("do"+"p_v1_", setHex, 64),
	}
}

// FuzzRedact checks the invariants of the full redactor: no panic, a planted secret
// never survives whatever surrounds it, String and Copy agree, and redacting twice
// changes nothing more.
func FuzzRedact(f *testing.F) {
	f.Add("", uint8(0))
	f.Add("password:", uint8(3))
	f.Add("<private>", uint8(1))
	f.Add("-----BEGIN RSA PRIVATE KEY-----", uint8(2))
	f.Add("x://u:p@h token=abcdefghij Bearer", uint8(7))
	secrets := plantedSecrets()
	r := Default()
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		secret := secrets[int(k)%len(secrets)]
		in := s + "\n" + secret + "\n" + s
		once := r.String(in)
		// The bearer secret keeps its "Authorization: Bearer " prefix; check the token part.
		needle := secret[strings.LastIndexByte(secret, ' ')+1:]
		if strings.Contains(once, needle) {
			t.Fatalf("planted secret survived:\n in  %q\n out %q", in, once)
		}
		if twice := r.String(once); twice != once {
			t.Fatalf("not idempotent:\n in    %q\n once  %q\n twice %q", in, once, twice)
		}
		var buf bytes.Buffer
		if err := r.Copy(&buf, strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		if buf.String() != once {
			t.Fatalf("Copy and String differ:\n copy   %q\n string %q", buf.String(), once)
		}
		_ = r.String(s) // arbitrary input on its own must not panic
	})
}
