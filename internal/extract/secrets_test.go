package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/redact"
	"github.com/memctl/memctl/internal/scan"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// plantedSecrets has one fake secret per family of docs/security.md. The
// strings are assembled at run time so the source holds no secret-shaped
// literal.
func plantedSecrets() map[string]string {
	rep := strings.Repeat
	return map[string]string{
		"bearer":         "Bearer " + "abcDEF123456ghiJKL789",
		"openai":         "sk-" + rep("A1b2C3d4", 3),
		"openai_project": "sk-" + "proj-" + rep("Xy9_Zw8-", 6),
		"anthropic":      "sk-" + "ant-api03-" + rep("Qr7Ts6Uv", 6),
		"aws_id":         "AKIA" + "Q2W3E4R5T6Y7U8I9",
		"aws_secret":     "aws_secret_access_key = " + rep("wJalrXUtnFEMIK7MDENGbPxRfiCY", 1) + "EXAMPLEKEY12",
		"github":         "gh" + "p_" + rep("a1B2c3D4e5", 4),
		"github_pat":     "github_" + "pat_" + rep("11ABCDEFG0", 6),
		"gitlab":         "gl" + "pat-" + "x7Yz9Ab3Cd5Ef7Gh9Ij1",
		"slack":          "xo" + "xb-" + "123456789012-1234567890123-" + rep("AbCd", 6),
		"slack_webhook":  "https://hooks.slack.com/services/" + "T0001/B0002/" + rep("XyZ1", 6),
		"stripe":         "sk_" + "live_" + rep("51Hq", 7),
		"google":         "AI" + "za" + "SyD-" + rep("abc12", 6) + "xyz",
		"google_oauth":   "GOC" + "SPX-" + rep("q1W2e3R4", 3) + "t5Y6",
		"jwt":            "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + rep("Sf1KxwRJ", 5),
		"url_password":   "postgres://app:" + "S3cr3tPassw0rd" + "@db.internal:5432/app",
		"env":            "DATABASE_PASSWORD=" + "c0rrectH0rseBattery",
		"yaml":           "db_password: " + "Tr0ub4dor&3xyz",
		"json":           `"client_secret": "` + "9f8e7d6c5b4a3f2e1d0c" + `"`,
		"npm":            "np" + "m_" + rep("Ab1Cd2Ef3G", 4),
		"pypi":           "pypi-" + "AgEIcHlwaS5vcmc" + rep("Qw3Er5Ty7U", 6),
		"huggingface":    "h" + "f_" + rep("AbCdEfGhIj", 4),
		"sendgrid":       "S" + "G." + rep("aB3dE", 5) + "x." + rep("Fg7Hi9Jk1Lm", 4),
		"azure":          "AccountKey=" + rep("Zm9vYmFyYmF6", 7) + "abcd==",
		"digitalocean":   "dop_" + "v1_" + rep("0123456789abcdef", 4),
		"private_key":    "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQy\n-----END OPENSSH " + "PRIVATE KEY-----",
		"private_span":   "<private>my home address is 12 Elm Street</private>",
	}
}

// secretValue is the part of a planted line that must never be stored.
func secretValue(family, line string) string {
	switch family {
	case "bearer":
		return strings.TrimPrefix(line, "Bearer ")
	case "aws_secret", "env", "yaml":
		i := strings.LastIndexAny(line, "= ")
		return line[i+1:]
	case "json":
		return strings.Trim(strings.TrimPrefix(line, `"client_secret": `), `"`)
	case "url_password":
		return "S3cr3tPassw0rd"
	case "azure":
		return strings.TrimPrefix(line, "AccountKey=")
	case "private_key":
		return "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
	case "private_span":
		return "12 Elm Street"
	}
	return line
}

// TestNoPlantedSecretReachesTheDatabase extracts a transcript full of
// secrets, offline and through a model that copies its input into every
// field, and then reads the raw database files: no secret may be in them.
func TestNoPlantedSecretReachesTheDatabase(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o700)
	secrets := plantedSecrets()
	red := redact.Default().String
	var session jsonlSession
	session.add(map[string]any{"type": "session", "id": "5ec0e75e-0000-4000-8000-000000000001", "cwd": "/src/app", "source": "cli"})
	session.add(map[string]any{"type": "message", "role": "user", "text": "deploy the app with " + secrets["github"]})
	i := 0
	for family, line := range secrets {
		i++
		id := "c" + family
		session.add(map[string]any{"type": "message", "role": "user", "text": "use this: " + line})
		session.add(map[string]any{"type": "tool_call", "id": id, "name": "shell", "command": "deploy --verbose # " + line})
		session.add(map[string]any{"type": "tool_result", "id": id, "output": "error: auth failed for " + line, "exit_code": 1})
	}
	session.add(map[string]any{"type": "message", "role": "assistant", "text": "Deployed with the given credentials.", "final": true})
	session.write(t, filepath.Join(src, "t.jsonl"))

	for _, tc := range bothExtractors {
		t.Run(tc.name, func(t *testing.T) {
			dbPath := filepath.Join(dir, tc.name+".sqlite")
			st, err := store.Open(context.Background(), dbPath)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := scan.Run(context.Background(), st, scan.Options{
				Sources: []sessions.Source{{Kind: sessions.KindJSONL, Path: src}},
				Policy:  store.UpsertPolicy{GenerateMemories: true},
				Redact:  red,
			}); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), st, RunOptions{Version: "v1", Provider: tc.provider, ProviderName: model.Kind(tc.name),
				Filter: store.CandidateFilter{AllWindows: true, InteractiveOnly: true}, MaxClaims: 5, Redact: red})
			if err != nil || res.Succeeded != 1 {
				t.Fatalf("extract: %+v %v", res, err)
			}
			st.Close() // checkpoints the WAL into the main file
			raw, err := os.ReadFile(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			if wal, err := os.ReadFile(dbPath + "-wal"); err == nil {
				raw = append(raw, wal...)
			}
			if !strings.Contains(string(raw), "[REDACTED_SECRET]") {
				t.Fatal("nothing was redacted: the test planted nothing that reached the store")
			}
			for family, line := range secrets {
				if v := secretValue(family, line); strings.Contains(string(raw), v) {
					t.Errorf("%s secret %q reached the database", family, v)
				}
			}
		})
	}
}

// echoProvider is a model that copies its whole input into its answer, the
// worst case for secrets in model output.
// bothExtractors are the two ways a memory is made: the offline
// extractor, and a model (one that echoes what it was given, the worst
// case for a secret).
var bothExtractors = []struct {
	name     string
	provider model.Provider
}{
	{"heuristic", nil},
	{"echoing model", echoProvider{}},
}

// jsonlSession collects the records of a JSON Lines session, all
// stamped with the time of the first, a day ago.
type jsonlSession struct {
	ts    string
	lines []string
}

func (s *jsonlSession) add(v map[string]any) {
	if s.ts == "" {
		s.ts = time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	}
	v["timestamp"] = s.ts
	b, _ := json.Marshal(v)
	s.lines = append(s.lines, string(b))
}

func (s *jsonlSession) write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(s.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

type echoProvider struct{}

func (echoProvider) Name() string { return "echo" }

func (echoProvider) Call(_ context.Context, req model.Request) (model.Response, error) {
	all := strings.Join(req.Input, "\n")
	b, _ := json.Marshal(map[string]any{"raw_memory": all, "rollout_summary": all, "rollout_slug": "echo"})
	return model.Response{JSON: b}, nil
}
