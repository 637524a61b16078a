package transcript

import "testing"

// The shells agents wrap a command in are not what the agent ran: the
// command line inside is.
func TestShellJoinUnwrapsShells(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "go test ./..."}, "go test ./..."},
		{[]string{"/bin/zsh", "-c", "ls -la"}, "ls -la"},
		{[]string{"powershell.exe", "-NoLogo", "-NoProfile", "-Command", "Get-Content -Raw README.md"}, "Get-Content -Raw README.md"},
		{[]string{`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, "-Command", "Get-ChildItem"}, "Get-ChildItem"},
		{[]string{"pwsh", "-NoProfile", "-ExecutionPolicy", "Bypass", "-c", "type README.md"}, "type README.md"},
		// a script file, not an inline command: left as it is
		{[]string{"powershell.exe", "-File", "build.ps1"}, "powershell.exe -File build.ps1"},
		{[]string{"powershell.exe", "build.ps1", "-Command", "x"}, "powershell.exe build.ps1 -Command x"},
		{[]string{"rg", "foo bar"}, "rg 'foo bar'"},
	}
	for _, tc := range tests {
		if got := ShellJoin(tc.argv); got != tc.want {
			t.Errorf("ShellJoin(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}
