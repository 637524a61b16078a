// Package redacttest is the leak corpus of the redactor: secret families, each
// placed on every boundary a transcript puts text on (a line start, after a tab,
// after a \n escape inside JSON, inside a heredoc, in .env form, …), and
// look-alike strings that must be kept. The redactor's own tests and the
// end-to-end test of every output memctl writes use the same cases.
//
// Every secret is fake and assembled at run time from a seed, so the source
// holds no secret-shaped literal (secret scanners would flag it).
package redacttest

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// Family is one kind of secret.
type Family struct {
	Name string
	// Text is the secret as it appears on its own: a bare token
	// ("ghp_…"), or the assignment or header that makes a value secret
	// ("PGPASSWORD=…", "Authorization: Basic …").
	Text string
	// Secret is the part of Text that must never survive redaction.
	Secret string
}

// Boundary places a family's text somewhere in a transcript.
type Boundary struct {
	Name string
	Wrap func(text string) string
}

// Case is one family on one boundary.
type Case struct {
	Family, Boundary string
	Text             string // what a transcript or file holds
	Secret           string // must not survive
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexSet = "0123456789abcdef"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
)

// gen draws from a generator seeded by the family name, so each family's
// secret is stable from run to run and differs from every other family's.
type gen struct{ rng *rand.Rand }

func newGen(name string) *gen {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &gen{rng: rand.New(rand.NewPCG(h.Sum64(), 0x72656461637421))}
}

func (g *gen) s(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.rng.IntN(len(set))]
	}
	// A run with no digit or no letter could read as a word or a number;
	// real keys mix both, so make sure of it.
	if strings.ContainsAny(set, "0123456789") && n >= 2 {
		b[n/2] = "0123456789"[g.rng.IntN(10)]
		if strings.ContainsAny(set, "abcdef") {
			b[n/2+1] = "abcdef"[g.rng.IntN(6)]
		}
	}
	return string(b)
}

// mk draws one secret of a family: the text it stands in and the secret.
type mk func(g *gen) (text, secret string)

type familyDef struct {
	name string
	mk   mk
}

// Families returns the secret families, at least one for every built-in rule
// and for each prefix family a rule groups (GitHub's ghp_, gho_, ghs_, …).
func Families() []Family {
	defs := familyDefs()
	out := make([]Family, 0, len(defs))
	for _, d := range defs {
		f := Family{Name: d.name}
		f.Text, f.Secret = d.mk(newGen(d.name))
		out = append(out, f)
	}
	return out
}

func familyDefs() []familyDef {
	bare := func(prefix, set string, n int) mk {
		return func(g *gen) (string, string) { s := prefix + g.s(set, n); return s, s }
	}
	value := func(before, set string, n int, after string) mk {
		return func(g *gen) (string, string) { s := g.s(set, n); return before + s + after, s }
	}
	return []familyDef{
		{"github_classic", bare("gh"+"p_", alnum, 36)},
		{"github_oauth", bare("gh"+"o_", alnum, 36)},
		{"github_app", bare("gh"+"s_", alnum, 36)},
		{"github_user_to_server", bare("gh"+"u_", alnum, 36)},
		{"github_fine_grained", func(g *gen) (string, string) {
			s := "github_" + "pat_" + g.s(alnum, 22) + "_" + g.s(alnum, 59)
			return s, s
		}},
		{"gitlab_pat", bare("gl"+"pat-", b64url, 20)},
		{"gitlab_runner", bare("gl"+"rt-", b64url, 24)},
		{"gitlab_deploy", bare("gl"+"dt-", b64url, 24)},
		{"slack_bot", func(g *gen) (string, string) {
			s := "xo" + "xb-" + g.s("0123456789", 12) + "-" + g.s("0123456789", 13) + "-" + g.s(alnum, 24)
			return s, s
		}},
		{"slack_user", func(g *gen) (string, string) {
			s := "xo" + "xp-" + g.s("0123456789", 12) + "-" + g.s("0123456789", 13) + "-" + g.s(alnum, 32)
			return s, s
		}},
		{"slack_app", func(g *gen) (string, string) {
			s := "xa" + "pp-1-" + g.s(upper, 11) + "-" + g.s("0123456789", 13) + "-" + g.s(hexSet, 64)
			return s, s
		}},
		{"slack_webhook", func(g *gen) (string, string) {
			s := "T" + g.s(upper, 8) + "/B" + g.s(upper, 10) + "/" + g.s(alnum, 24)
			return "https://hooks.slack.com/services/" + s, s
		}},
		{"stripe_secret", bare("sk_"+"live_", alnum, 32)},
		{"stripe_restricted", bare("rk_"+"test_", alnum, 32)},
		{"stripe_webhook", bare("wh"+"sec_", alnum, 32)},
		{"openai_legacy", bare("s"+"k-", alnum, 48)},
		{"openai_project", bare("sk-"+"proj-", b64url, 120)},
		{"openai_service_account", bare("sk-"+"svcacct-", b64url, 100)},
		{"anthropic", func(g *gen) (string, string) {
			s := "sk-" + "ant-api03-" + g.s(b64url, 93) + "AA"
			return s, s
		}},
		{"aws_access_key_id", bare("AK"+"IA", upper, 16)},
		{"aws_secret_access_key", value("aws_secret_access_key = ", b64, 40, "")},
		{"google_api_key", bare("AI"+"za", b64url, 35)},
		{"google_oauth_secret", bare("GOC"+"SPX-", b64url, 28)},
		{"google_access_token", bare("ya"+"29.", b64url, 60)},
		{"digitalocean", bare("do"+"p_v1_", hexSet, 64)},
		{"npm", bare("np"+"m_", alnum, 36)},
		{"pypi", bare("py"+"pi-AgEIcHlwaS5vcmc", b64url, 70)},
		{"huggingface", bare("h"+"f_", alnum, 34)},
		{"sendgrid", func(g *gen) (string, string) {
			s := "S" + "G." + g.s(b64url, 22) + "." + g.s(b64url, 43)
			return s, s
		}},
		{"jwt", func(g *gen) (string, string) {
			s := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "ey" + "J" + g.s(b64url, 40) + "." + g.s(b64url, 43)
			return s, s
		}},
		{"azure_account_key", value("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=", b64, 86, "==;EndpointSuffix=core.windows.net")},
		{"azure_sas", value("https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig=", b64, 43, "%3D")},
		{"bearer", value("Authorization: Bearer ", b64url, 40, "")},
		{"basic_auth", value("Authorization: Basic ", b64, 32, "==")},
		{"twilio", value("twilio api:core:calls:list --api-key SK", hexSet, 32, "")},
		{"url_password", value("postgres://app:", alnum, 18, "@db.internal:5432/app")},
		{"codex_assignment", value("api_key = ", alnum, 24, "")},
		{"dotenv_token", value("DEPLOY_TOKEN=", alnum, 32, "")},
		{"dotenv_secret_key", value("DJANGO_SECRET_KEY=", b64url, 50, "")},
		{"yaml_password", value("db_password: ", alnum, 20, "")},
		{"yaml_block_password", value("database:\n  host: db.internal\n  password:\n    ", alnum, 20, "")},
		{"json_client_secret", value(`"client_secret": "`, b64url, 30, `"`)},
		{"cli_flag", value("mysql -h db --password ", alnum, 16, " app")},
		{"pgpassword", value("PGPASSWORD=", alnum, 14, "")},
		{"mysql_pwd", value("MYSQL_PWD=", alnum, 12, "")},
		{"env_pass", value("SMTP_PASS=", alnum, 12, "")},
		{"npm_auth_token", func(g *gen) (string, string) {
			s := g.s(hexSet, 8) + "-" + g.s(hexSet, 4) + "-" + g.s(hexSet, 4) + "-" + g.s(hexSet, 4) + "-" + g.s(hexSet, 12)
			return "//registry.npmjs.org/:_authToken=" + s, s
		}},
		{"private_key_block", func(g *gen) (string, string) {
			body := g.s(b64, 64)
			return "-----BEGIN RSA PRIVATE" + " KEY-----\n" + body + "\n" + g.s(b64, 64) + "\n" + g.s(b64, 20) + "==\n-----END RSA PRIVATE" + " KEY-----", body
		}},
		{"private_tag", value("<private>the door code is ", alnum, 12, "</private>")},

		// Configuration files that hold credentials by their structure.
		{"kubeconfig_client_key", value("users:\n- name: admin\n  user:\n    client-key-data: ", b64, 120, "=")},
		{"kubeconfig_client_cert", value("    client-certificate-data: ", b64, 120, "==")},
		{"kubeconfig_token", func(g *gen) (string, string) {
			s := g.s("abcdefghijklmnopqrstuvwxyz", 6) + "." + g.s("abcdefghijklmnopqrstuvwxyz0123456789", 16)
			return "users:\n- name: ci\n  user:\n    token: " + s, s
		}},
		{"docker_auths", func(g *gen) (string, string) {
			s := base64.StdEncoding.EncodeToString([]byte("alice:" + g.s(alnum, 18)))
			return `{"auths": {"https://index.docker.io/v1/": {"auth": "` + s + `"}}}`, s
		}},
		{"netrc_one_line", value("machine api.example.com login alice password ", alnum, 16, "")},
		{"netrc_multi_line", value("machine api.example.com\n  login alice\n  password ", alnum, 16, "")},
		// Passwords on command lines, in each tool's own syntax.
		{"mysql_p_glued", value("mysql -h db.internal -u root -p", alnum, 14, " app")},
		{"mysqladmin_p_spaced", value("mysqladmin -u root -p ", alnum, 14, " status")},
		{"sshpass", value("sshpass -p ", alnum, 14, " ssh deploy@web1 uptime")},
		{"curl_user", value("curl -u alice:", alnum, 16, " https://api.example.com/v1/items")},
		{"openssl_pass", value("openssl rsa -in key.pem -passin pass:", alnum, 16, " -out plain.pem")},
		// Vendor formats.
		{"aws_sts_key_id", bare("AS"+"IA", upper, 16)},
		{"age_secret_key", func(g *gen) (string, string) {
			const bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
			b := make([]byte, 58)
			for i := range b {
				b[i] = bech32[g.rng.IntN(len(bech32))]
			}
			s := "AGE-" + "SECRET-KEY-1" + string(b)
			return s, s
		}},
		{"fcm_server_key", func(g *gen) (string, string) {
			s := "AAAA" + g.s(b64url, 7) + ":APA91b" + g.s(b64url, 134)
			return s, s
		}},
		{"telegram_bot", func(g *gen) (string, string) {
			s := g.s("0123456789", 10) + ":AA" + g.s(b64url, 33)
			return s, s
		}},
		{"telegram_bot_url", func(g *gen) (string, string) {
			s := g.s("0123456789", 9) + ":AA" + g.s(b64url, 33)
			return "https://api.telegram.org/bot" + s + "/sendMessage", s
		}},
		{"postman", func(g *gen) (string, string) {
			s := "PM" + "AK-" + g.s(hexSet, 24) + "-" + g.s(hexSet, 34)
			return s, s
		}},
		{"notion", func(g *gen) (string, string) {
			s := "nt" + "n_" + g.s("0123456789", 11) + g.s(alnum, 35)
			return "NOTION_KEY=" + s, s
		}},
		{"datadog_app_key", value("DD_APP_KEY=", hexSet, 40, "")},
		// Values the assignment rules once let through.
		{"vault_token_env", value("VAULT_TOKEN=hv"+"s.", b64url, 90, "")},
		{"doppler_token_env", value("DOPPLER_TOKEN=dp"+".st.dev.", alnum, 40, "")},
		{"aws_sts_session_token", value(`"SessionToken": "`, b64, 200, `",`)},
		{"camel_case_secret", value(`{"clientSecret": "`, b64url, 32, `"}`)},
		{"toml_dotted_token", func(g *gen) (string, string) {
			s := g.s("abcdefghijklmnopqrstuvwxyz", 5) + "." + g.s(alnum, 40)
			return "[auth]\ntoken = \"" + s + "\"", s
		}},
		{"next_line_key", func(g *gen) (string, string) {
			s := g.s(alnum, 20)
			return "password: " + g.s(alnum, 10) + "\napi_key: " + s, s
		}},
		{"diff_pair", func(g *gen) (string, string) {
			s := g.s(alnum, 20)
			return "-password: " + g.s(alnum, 12) + "\n+password: " + s, s
		}},
	}
}

// jsonString is s as a JSON string body, without the quotes, the way
// encoding/json writes it (\n, \t, \u003c …).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Boundaries returns the places a secret is put. Those named json_* hold
// the text as a JSON string body (what a transcript line and a model request
// hold); the others hold it raw.
func Boundaries() []Boundary {
	pre := func(p string) func(string) string { return func(t string) string { return p + t } }
	around := func(p, s string) func(string) string { return func(t string) string { return p + t + s } }
	heredoc := func(t string) string { return "cat > .env <<'EOF'\n" + t + "\nEOF\n" }
	inJSON := func(f func(string) string) func(string) string {
		return func(t string) string { return `{"type":"function_call_output","output":"` + jsonString(f(t)) + `"}` }
	}
	return []Boundary{
		{"line_start", around("", "\n")},
		{"after_space", pre("value ")},
		{"after_tab", pre("\t")},
		{"after_cr", pre("100%\r")},
		{"crlf_line", around("ok\r\n", "\r\n")},
		{"double_quotes", around(`"`, `"`)},
		{"single_quotes", around(`'`, `'`)},
		{"backticks", around("`", "`")},
		{"after_equals", pre("=")},
		{"after_colon", pre("key:")},
		{"parens", around("(", ")")},
		{"brackets", around("[", "]")},
		{"braces", around("{", "}")},
		{"after_dollar", pre("$")},
		{"after_pipe", pre("|")},
		{"dotenv", pre("UPSTREAM=")},
		{"dotenv_export", pre("export UPSTREAM=")},
		{"yaml_value", pre("  upstream: ")},
		{"yaml_list", pre("  - ")},
		{"heredoc", heredoc},
		{"markdown_fence", around("```\n", "\n```")},
		{"url_userinfo", around("https://deploy:", "@git.example.com/acme/app.git")},
		{"ansi_colour", around("\x1b[32m", "\x1b[0m")},
		{"after_url_escape", pre("https://example.com/share?text=deploy%20notes%0A")},
		{"json_after_newline", inJSON(around("ok\n", "\ndone"))},
		{"json_line_start", inJSON(pre(""))},
		{"json_after_tab", inJSON(pre("ok\t"))},
		{"json_after_crlf", inJSON(around("ok\r\n", "\r\n"))},
		{"json_after_quote", inJSON(around(`"`, `"`))},
		{"json_heredoc", inJSON(heredoc)},
		{"json_dotenv_lines", inJSON(around("# .env\nNODE_ENV=production\n", "\nPORT=8080\n"))},
		{"json_angle_brackets", inJSON(around("<", ">"))},
		{"json_after_ampersand", inJSON(pre("a&"))},
		{"json_ansi_colour", inJSON(around("\x1b[32m", "\x1b[0m"))},
		{"json_in_json", inJSON(func(t string) string {
			// Tool-call arguments: a JSON document held in a JSON string.
			b, _ := json.Marshal(map[string]string{"cmd": "printf 'ok\n" + t + "\n'"})
			return string(b)
		})},
	}
}

// Cases is every family on every boundary. Each case has a secret of its
// own, so a leak is counted where it happened.
func Cases() []Case {
	var out []Case
	bs := Boundaries()
	for _, d := range familyDefs() {
		for _, b := range bs {
			text, secret := d.mk(newGen(d.name + "@" + b.Name))
			out = append(out, Case{Family: d.name, Boundary: b.Name, Text: b.Wrap(text), Secret: secret})
		}
	}
	return out
}

// JSONString returns s as the body of a JSON string, without the quotes, as
// encoding/json writes it: how text lies in a transcript line.
func JSONString(s string) string { return jsonString(s) }

// LookAlikes are strings shaped like secrets that are not: the redactor must
// return them unchanged, on every boundary.
func LookAlikes() []string {
	return []string{
		"commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
		"3f786850e387550fdab836ed7e6dc881de23001b",
		"019e1625-789d-76c0-80ab-3724b5ddb799",
		"aGVsbG8gd29ybGQsIHRoaXMgaXMgb3JkaW5hcnkgdGV4dCBpbiBiYXNlNjQ=",
		"we use the sk-learn estimator API and the sk-prefixed key format",
		`"integrity": "sha512-3Ygad7Hn0ZkLQ9ZbWgU0G1kQ3Yh1YfPvYwQxk0nVfJjK0Hc5bG3q9bLr0bYqK5gUo2Uj7c0q9vS2bX1w3nE4Q=="`,
		`checksum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`,
		"golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"TOKEN_LIMIT=128000",
		"max_tokens: 4096",
		"PWD=/home/dev/src/memctl",
		"OLDPWD=/home/dev",
		"export PATH=$HOME/go/bin:$PATH",
		"DB_PASSWORD=${DB_PASSWORD}",
		"the password policy requires 12 characters and a token expires after 1h",
		"AKIA is the prefix of AWS access key ids",
		"postgres://app@db.internal:5432/app",
		"https://github.com/memctl/memctl/blob/main/docs/security.md",
		"PASSWORD_MIN_LENGTH=12",
		// Near the families of redaction round 3.
		"mysql -h db.internal -u root -p app",
		"mysql -u root -p",
		"mysql -h db -P 3306 -u root -p$MYSQL_PASSWORD app",
		"mysqladmin -u root -p status",
		"sshpass -f ~/.ssh/deploy.pass ssh deploy@web1",
		"curl -u alice https://api.example.com/v1/items",
		`curl -u "$API_USER:$API_PASS" https://api.example.com/v1/items`,
		"docker run -u 1000:1000 alpine id",
		"openssl rsa -in key.pem -passin env:KEY_PASS -out plain.pem",
		"openssl rsa -in key.pem -passin file:/run/secrets/pass -out plain.pem",
		"ASIA is the prefix of temporary AWS access key ids",
		"region: ASIA_PACIFIC_SOUTHEAST",
		"age-keygen prints a line starting AGE-SECRET-KEY-1 to keep private",
		"example.com. 300 IN AAAA 2001:db8::1",
		"the bot token looks like 123456789:AA followed by 33 characters",
		"https://api.telegram.org/bot<token>/getMe",
		"Postman API keys start with PMAK-",
		"Notion tokens start with ntn_ and NOTION_KEY=$NOTION_KEY holds one",
		"DD_APP_KEY=${DD_APP_KEY}",
		"DD_SITE=datadoghq.eu",
		"a .netrc holds machine, login and password entries",
		"the machine needs a login password reset",
		"password required",
		"client-key-data: DATA+OMITTED",
		"certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lCQURBS0JnZ3Foa2pPUFFRREFqQWpN",
		`{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}`,
		`"oauth": "enabled"`,
		"VAULT_ADDR=https://vault.example.com:8200",
		"auth_token = settings.auth.token",
		`"SessionToken": null`,
		`{"inputTokens": 12034, "outputTokens": 532, "tokenizer": "cl100k_base"}`,
		"-  password_min_length: 8\n+  password_min_length: 12",
	}
}
