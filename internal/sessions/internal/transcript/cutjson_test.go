package transcript

import (
	"fmt"
	"testing"
)

// TestParseToolOutputCutInTheMiddle: a JSON tool output whose middle was
// cut out to shorten it, with a marker of raw lines in its place or a cut
// through an escape, is no longer JSON; its exit code is still read from
// its tail and its text from its head and tail.
func TestParseToolOutputCutInTheMiddle(t *testing.T) {
	cases := []struct{ in, out string }{
		{"{\"output\":\"=== RUN TestA\\n--- PASS: Te\n[... omitted 120 of 400 lines ...]\n\nok  \\tpkg\\t0.2s\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":12.5}}",
			"0 \"=== RUN TestA\\n--- PASS: Te\\n[... omitted 120 of 400 lines ...]\\n\\nok  \\tpkg\\t0.2s\\n\""},
		{`{"output":"FAIL: test_x \…88 tokens truncated… 1 failed\n","metadata":{"exit_code":1,"duration_seconds":3}}`,
			"1 \"FAIL: test_x \\\\…88 tokens truncated… 1 failed\\n\""},
		{"{\"chunk_id\":\"ab12\",\"wall_time_seconds\":2.5,\"output\":\"Compiling\n[... omitted 9 of 20 lines ...]\nFinished\\n\",\"exit_code\":0,\"original_token_count\":9000}",
			"0 \"Compiling\\n[... omitted 9 of 20 lines ...]\\nFinished\\n\""},
		{"{\"chunk_id\":\"ab12\",\"wall_time_seconds\":2.5,\"output\":\"npm ERR! code E404\n[... omitted 3 of 9 lines ...]\n\",\"session_id\":3,\"exit_code\":1}",
			"1 \"npm ERR! code E404\\n[... omitted 3 of 9 lines ...]\\n\""},
		{"{\"output\":\"a cut that took the tail too\n[... omitted 3 of 9 lines ...]", "nil \"{\\\"output\\\":\\\"a cut that took the tail too\\n[... omitted 3 of 9 lines ...]\""},
	}
	for _, tc := range cases {
		out, code := ParseToolOutput(tc.in)
		got := "nil"
		if code != nil {
			got = fmt.Sprint(*code)
		}
		if got += fmt.Sprintf(" %q", out); got != tc.out {
			t.Errorf("ParseToolOutput(%q) = %s, want %s", tc.in, got, tc.out)
		}
	}
}
