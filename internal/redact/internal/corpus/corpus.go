// Package corpus generates transcript-like text with planted secrets, for the
// redactor's benchmarks and end-to-end tests. All secrets are random and fake; they are
// assembled at run time so the source holds no secret-shaped literals.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Options controls Generate.
type Options struct {
	Size        int      // approximate number of bytes to write
	Seed        uint64   // same seed, same output
	Real        [][]byte // real transcript lines (JSONL), picked at random
	Code        [][]byte // source code lines, copied in runs
	SecretEvery int      // one planted secret per this many lines; 0 means 40
}

// Planted is one secret written into the corpus.
type Planted struct {
	Family string
	Secret string // the exact secret text; it must not survive redaction
}

// SplitLines splits text into lines without their newlines, dropping empty ones.
func SplitLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// Generate writes about opts.Size bytes to w and returns what it planted.
func Generate(w io.Writer, opts Options) ([]Planted, error) {
	if len(opts.Real) == 0 && len(opts.Code) == 0 {
		return nil, fmt.Errorf("corpus: no real or code lines to draw from")
	}
	every := opts.SecretEvery
	if every <= 0 {
		every = 40
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6d656d63746c))
	g := &gen{rng: rng}
	bw := bufio.NewWriterSize(w, 1<<20)
	var planted []Planted
	written, lines := 0, 0
	emit := func(s []byte) {
		// A bufio.Writer keeps its first error for Flush, which is checked.
		_, _ = bw.Write(s)
		_ = bw.WriteByte('\n')
		written += len(s) + 1
		lines++
	}
	for written < opts.Size {
		switch k := rng.IntN(100); {
		case lines%every == every-1:
			text, p := g.secret()
			if rng.IntN(3) == 0 {
				text = g.toolOutput(text)
			}
			emit([]byte(text))
			planted = append(planted, p...)
		case k < 55 && len(opts.Real) > 0:
			emit(opts.Real[rng.IntN(len(opts.Real))])
		case len(opts.Code) > 0:
			start := rng.IntN(len(opts.Code))
			n := 5 + rng.IntN(30)
			if rng.IntN(2) == 0 {
				var sb strings.Builder
				for i := start; i < start+n && i < len(opts.Code); i++ {
					sb.Write(opts.Code[i])
					sb.WriteByte('\n')
				}
				emit([]byte(g.toolOutput(sb.String())))
				continue
			}
			for i := start; i < start+n && i < len(opts.Code); i++ {
				emit(opts.Code[i])
			}
		default:
			emit(opts.Real[rng.IntN(len(opts.Real))])
		}
	}
	return planted, bw.Flush()
}

// toolOutput wraps text the way Codex records a tool result: one JSON line.
func (g *gen) toolOutput(text string) string {
	out, _ := json.Marshal(map[string]any{
		"timestamp": "2026-05-11T11:27:03.412Z",
		"type":      "response_item",
		"payload": map[string]any{
			"type":    "function_call_output",
			"call_id": fmt.Sprintf("call_%s", g.str(alnum, 24)),
			"output":  text,
		},
	})
	return string(out)
}

type gen struct{ rng *rand.Rand }

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hex    = "0123456789abcdef"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
)

func (g *gen) str(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.rng.IntN(len(set))]
	}
	return string(b)
}

// secret returns one line (or block) holding a fresh fake secret of a random family.
func (g *gen) secret() (string, []Planted) {
	one := func(family, text, secret string) (string, []Planted) {
		return text, []Planted{{Family: family, Secret: secret}}
	}
	switch g.rng.IntN(56) {
	case 0:
		s := g.str(b64url, 40)
		return one("bearer", "curl -H 'Authorization: Bearer "+s+"' https://api.example.com/v1/me", s)
	case 1:
		s := "sk-" + g.str(alnum, 48)
		return one("openai", "export OPENAI_API_KEY="+s, s)
	case 2:
		s := "AKIA" + g.str(upper, 16)
		return one("aws-id", "aws_access_key_id = "+s, s)
	case 3:
		s := g.str(alnum, 14)
		return one("assignment", "password: "+s, s)
	case 4:
		body := g.str(b64, 64)
		text := "-----BEGIN RSA PRIVATE" + " KEY-----\n" + body + "\n" + g.str(b64, 64) + "\n" + g.str(b64, 24) + "==\n-----END RSA PRIVATE" + " KEY-----"
		return one("pem", "Here is the key:\n"+text+"\nKeep it safe.", body)
	case 5:
		body := g.str(b64, 64)
		text := `{"private_key": "-----BEGIN PRIVATE` + ` KEY-----\n` + body + `\n-----END PRIVATE` + ` KEY-----\n", "client_email": "svc@proj.iam.gserviceaccount.com"}`
		return one("pem-json", text, body)
	case 6:
		s := "gh" + "p_" + g.str(alnum, 36)
		return one("github", "git remote set-url origin https://x:"+s+"@github.com/acme/app.git", s)
	case 7:
		s := "github_" + "pat_" + g.str(alnum, 22) + "_" + g.str(alnum, 59)
		return one("github-pat", "GH_TOKEN="+s+" gh pr list", s)
	case 8:
		s := "gl" + "pat-" + g.str(b64url, 20)
		return one("gitlab", `private_token: "`+s+`"`, s)
	case 9:
		s := "xo" + "xb-" + g.str("0123456789", 12) + "-" + g.str("0123456789", 13) + "-" + g.str(alnum, 24)
		return one("slack", "SLACK_BOT_TOKEN="+s, s)
	case 10:
		s := "T" + g.str(upper, 8) + "/B" + g.str(upper, 10) + "/" + g.str(alnum, 24)
		return one("slack-webhook", "POST https://hooks.slack.com/services/"+s, s)
	case 11:
		s := "sk_" + "live_" + g.str(alnum, 24)
		return one("stripe", "stripe.api_key = '"+s+"'", s)
	case 12:
		s := "AI" + "za" + g.str(b64url, 35)
		return one("google-api", "https://maps.googleapis.com/maps/api/geocode/json?key="+s, s)
	case 13:
		s := "GOC" + "SPX-" + g.str(b64url, 28)
		return one("google-oauth", `"client_id": "123.apps.googleusercontent.com", "web_secret": "`+s+`"`, s)
	case 14:
		s := "sk-" + "ant-api03-" + g.str(b64url, 93) + "AA"
		return one("anthropic", "ANTHROPIC_API_KEY="+s, s)
	case 15:
		s := "sk-" + "proj-" + g.str(b64url, 120)
		return one("openai-project", "client = OpenAI(api_key=\""+s+"\")", s)
	case 16:
		s := g.str(b64, 40)
		return one("aws-secret", "aws_secret_access_key = "+s, s)
	case 17:
		s := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + g.str(b64url, 40) + "." + g.str(b64url, 43)
		return one("jwt", "cookie: session="+s+"; Path=/", s)
	case 18:
		s := g.str(alnum, 16)
		return one("url-password", "DATABASE_URL=postgres://app:"+s+"@db.internal:5432/app", s)
	case 19:
		s := g.str(alnum, 32)
		return one("dotenv", "STRIPE_WEBHOOK_SECRET="+s, s)
	case 20:
		s := g.str(alnum, 20)
		return one("yaml", "  db_password: "+s, s)
	case 21:
		s := g.str(b64url, 30)
		return one("json", `{"client_secret": "`+s+`", "grant_type": "client_credentials"}`, s)
	case 22:
		s := "np" + "m_" + g.str(alnum, 36)
		return one("npm", "//registry.npmjs.org/:_authToken="+s, s)
	case 23:
		s := "py" + "pi-AgEIcHlwaS5vcmc" + g.str(b64url, 70)
		return one("pypi", "password = "+s, s)
	case 24:
		s := "h" + "f_" + g.str(alnum, 34)
		return one("huggingface", "huggingface-cli login --token "+s, s)
	case 25:
		s := "S" + "G." + g.str(b64url, 22) + "." + g.str(b64url, 43)
		return one("sendgrid", "sg = SendGridAPIClient('"+s+"')", s)
	case 26:
		s := "S" + "K" + g.str(hex, 32)
		return one("twilio", "client = twilio.rest.Client(\""+s+"\", api_secret)", s)
	case 27:
		s := g.str(b64, 86) + "=="
		return one("azure", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="+s+";EndpointSuffix=core.windows.net", s)
	case 28:
		s := "do" + "p_v1_" + g.str(hex, 64)
		return one("digitalocean", "doctl auth init -t "+s, s)
	case 30:
		s := g.str(b64, 120)
		return one("kubeconfig-key", "users:\n- name: admin\n  user:\n    client-key-data: "+s+"=", s)
	case 31:
		s := g.str(b64, 120)
		return one("kubeconfig-cert", "    client-certificate-data: "+s+"==", s)
	case 32:
		s := g.str("abcdefghijklmnopqrstuvwxyz", 6) + "." + g.str("abcdefghijklmnopqrstuvwxyz0123456789", 16)
		return one("kubeconfig-token", "users:\n- name: ci\n  user:\n    token: "+s, s)
	case 33:
		s := base64.StdEncoding.EncodeToString([]byte("alice:" + g.str(alnum, 18)))
		return one("docker-auths", `{"auths": {"https://index.docker.io/v1/": {"auth": "`+s+`"}}}`, s)
	case 34:
		s := g.str(alnum, 16)
		return one("netrc", "machine api.example.com login alice password "+s, s)
	case 35:
		s := g.str(alnum, 16)
		return one("netrc-lines", "machine api.example.com\n  login alice\n  password "+s+"\n", s)
	case 36:
		s := g.str(alnum, 14)
		return one("mysql-p", "mysql -h db.internal -u root -p"+s+" app", s)
	case 37:
		s := g.str(alnum, 14)
		return one("mysqladmin-p", "mysqladmin -u root -p "+s+" status", s)
	case 38:
		s := g.str(alnum, 14)
		return one("sshpass", "sshpass -p '"+s+"' ssh deploy@web1 uptime", s)
	case 39:
		s := g.str(alnum, 16)
		return one("curl-user", "curl -u alice:"+s+" https://api.example.com/v1/items", s)
	case 40:
		s := g.str(alnum, 16)
		return one("openssl-pass", "openssl rsa -in key.pem -passin pass:"+s+" -out plain.pem", s)
	case 41:
		s := "AS" + "IA" + g.str(upper, 16)
		return one("aws-sts-id", `"AccessKeyId": "`+s+`",`, s)
	case 42:
		s := "AGE-" + "SECRET-KEY-1" + g.str("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
		return one("age", "# created: 2026-05-11\n"+s, s)
	case 43:
		s := "AAAA" + g.str(b64url, 7) + ":APA91b" + g.str(b64url, 134)
		return one("fcm", `"Authorization": "key=`+s+`"`, s)
	case 44:
		s := g.str("0123456789", 10) + ":AA" + g.str(b64url, 33)
		return one("telegram", "curl https://api.telegram.org/bot"+s+"/getMe", s)
	case 45:
		s := "PM" + "AK-" + g.str(hex, 24) + "-" + g.str(hex, 34)
		return one("postman", "x-api-key: "+s, s)
	case 46:
		s := "nt" + "n_" + g.str("0123456789", 11) + g.str(alnum, 35)
		return one("notion", "NOTION_KEY="+s, s)
	case 47:
		s := g.str(hex, 40)
		return one("datadog-app-key", "DD_APP_KEY="+s, s)
	case 48:
		s := "hv" + "s." + g.str(b64url, 90)
		return one("vault", "export VAULT_TOKEN="+s, s)
	case 49:
		s := g.str(alnum, 40)
		return one("doppler", "DOPPLER_TOKEN=dp"+".st.dev."+s, s)
	case 50:
		s := g.str(b64, 200)
		return one("sts-session-token", `"SessionToken": "`+s+`",`, s)
	case 51:
		s := g.str(b64url, 32)
		return one("camel-case", `{"clientSecret": "`+s+`"}`, s)
	case 52:
		s := g.str("abcdefghijklmnopqrstuvwxyz", 5) + "." + g.str(alnum, 40)
		return one("toml-dotted", "[auth]\ntoken = \""+s+"\"", s)
	case 53:
		s := g.str(alnum, 20)
		return one("next-line-key", "password: "+g.str(alnum, 10)+"\napi_key: "+s, s)
	case 54:
		s := g.str(alnum, 20)
		return one("diff-pair", "-password: "+g.str(alnum, 12)+"\n+password: "+s, s)
	default:
		s := g.str(alnum, 20)
		return one("private-tag", "note: <private>the vault code is "+s+"\nand nobody may know</private> (end)", s)
	}
}
