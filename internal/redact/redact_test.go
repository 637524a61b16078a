package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/memctl/memctl/internal/redact/internal/corpus"
)

type family struct {
	name     string
	in       string // text with a planted secret
	secret   string // must be gone from the output
	keep     string // must survive (key names, separators, users, hosts)
	nearMiss string // looks similar, must come out unchanged
}

func families() []family {
	pemBody := fake("MIIEpAIBAAKCAQEA", setB64, 48)
	return []family{
		{"private_key_block multi-line",
			"key:\n-----BEGIN RSA PRIVATE" + " KEY-----\n" + pemBody + "\n" + fake("", setB64, 60) + "\n-----END RSA PRIVATE" + " KEY-----\ndone\n",
			pemBody, "key:\n" + Token + "\ndone\n",
			"-----BEGIN CERTIFICATE-----\n" + pemBody + "\n-----END CERTIFICATE-----\n"},
		{"private_key_block json-escaped",
			`{"private_key": "-----BEGIN PRIVATE` + ` KEY-----\n` + pemBody + `\n-----END PRIVATE` + ` KEY-----\n", "x": 1}`,
			pemBody, `{"private_key": "` + Token + `\n", "x": 1}`,
			`{"public_key": "-----BEGIN PUBLIC KEY-----\n` + pemBody + `\n-----END PUBLIC KEY-----\n"}`},
		{"private_key_block openssh truncated",
			"-----BEGIN OPENSSH PRIVATE" + " KEY-----\n" + pemBody + "\n",
			pemBody, Token + "\n",
			"the docs say BEGIN OPENSSH PRIVATE KEY marks the file"},
		{"anthropic", "ANTHROPIC_API_KEY=" + fake("sk-"+"ant-api03-", setURL, 93) + "AA",
			fake("sk-"+"ant-api03-", setURL, 40), "ANTHROPIC_API_KEY=",
			"model claude-sonnet-4 via sk-ant-"},
		{"openai project", `client = OpenAI(api_key="` + fake("sk-"+"proj-", setURL, 120) + `")`,
			fake("sk-"+"proj-", setURL, 60), `client = OpenAI(api_key="`,
			"see sk-proj-prefix in the docs"},
		{"github classic", "git remote set-url origin https://x:" + fake("gh"+"p_", setAlnum, 36) + "@github.com/acme/app.git",
			fake("gh"+"p_", setAlnum, 36), "@github.com/acme/app.git",
			"ghp_short and the ghp_ prefix"},
		{"github fine-grained", "GH_TOKEN=" + fake("github_"+"pat_", setAlnum, 82),
			fake("github_"+"pat_", setAlnum, 82), "GH_TOKEN=",
			"github_pat_ tokens start like github_pat_11ABC"},
		{"gitlab", `private_token: "` + fake("gl"+"pat-", setURL, 20) + `"`,
			fake("gl"+"pat-", setURL, 20), "private_token",
			"glpat-short and global-pattern-matching"},
		{"slack token", "SLACK_BOT_TOKEN=" + "xo" + "xb-" + fake("", "0123456789", 12) + "-" + fake("", setAlnum, 24),
			"-" + fake("", setAlnum, 24), "SLACK_BOT_TOKEN=",
			"xoxb- tokens are bot tokens"},
		{"slack webhook", "POST https://hooks.slack.com/services/" + fake("T", setUpper, 8) + "/" + fake("B", setUpper, 10) + "/" + fake("", setAlnum, 24),
			fake("", setAlnum, 24), "https://hooks.slack.com/services/",
			"https://hooks.slack.com/services/ is the endpoint"},
		{"stripe", "stripe.api_key = '" + fake("sk_"+"live_", setAlnum, 24) + "'",
			fake("sk_"+"live_", setAlnum, 24), "stripe.api_key = '",
			"pk_live_" + fake("", setAlnum, 24)},
		{"google api key", "https://maps.googleapis.com/maps/api/geocode/json?key=" + fake("AI"+"za", setURL, 35),
			fake("AI"+"za", setURL, 35), "geocode/json?key=",
			"AIzaShort and FAIzaSy"},
		{"google oauth secret", `"web_secret": "` + fake("GOC"+"SPX-", setURL, 28) + `"`,
			fake("GOC"+"SPX-", setURL, 28), `"web_secret": "`,
			"GOCSPX- prefix"},
		{"aws secret access key", "aws_secret_access_key = " + fake("", setB64, 40),
			fake("", setB64, 40), "aws_secret_access_key = ",
			"aws_secret_access_key is read from ~/.aws/credentials"},
		{"aws secret json", `"SecretAccessKey": "` + fake("", setB64, 40) + `",`,
			fake("", setB64, 40), `"SecretAccessKey": "`,
			`"SecretAccessKey": "see below"`},
		{"jwt", "cookie: session=" + "eyJhbGciOiJIUzI1NiJ9." + fake("eyJ", setURL, 40) + "." + fake("", setURL, 43) + "; Path=/",
			fake("eyJ", setURL, 40), "cookie: session=",
			"eyJhbGciOiJIUzI1NiJ9 is just a header"},
		{"url password", "DATABASE_URL=postgres://app:" + fake("", setAlnum, 16) + "@db.internal:5432/app",
			fake("", setAlnum, 16), "postgres://app:",
			"https://example.com:8443/path?user=a@b.c"},
		{"url password placeholder kept", "", "", "", "postgres://app:${DB_PASSWORD}@db:5432/app"},
		{"dotenv secret", "STRIPE_WEBHOOK_SECRET=" + fake("", setAlnum, 32),
			fake("", setAlnum, 32), "STRIPE_WEBHOOK_SECRET=",
			"TOKEN_LIMIT=" + fake("", setAlnum, 32)},
		{"dotenv export", "export DEPLOY_TOKEN=" + fake("", setAlnum, 24),
			fake("", setAlnum, 24), "export DEPLOY_TOKEN=",
			"export PATH=/usr/local/bin:/usr/bin"},
		{"dotenv password", "DB_PASSWORD='" + fake("", setAlnum, 12) + "'",
			fake("", setAlnum, 12), "DB_PASSWORD='",
			"DB_PASSWORD=${DB_PASSWORD}"},
		{"yaml", "  db_password: " + fake("", setAlnum, 20),
			fake("", setAlnum, 20), "  db_password: ",
			"  db_password: ********"},
		{"json", `{"client_secret": "` + fake("", setURL, 30) + `", "grant_type": "client_credentials"}`,
			fake("", setURL, 30), `"grant_type": "client_credentials"`,
			`{"max_tokens": 4096, "token_count": 12, "secret_name": "prod-database"}`},
		{"json escaped", `"output":"{\"api_key\": \"` + fake("", setAlnum, 24) + `\"}"`,
			fake("", setAlnum, 24), `{\"api_key\": \"`,
			`"output":"{\"api_key\": null}"`},
		{"cli flag", "mysql --password " + fake("", setAlnum, 14) + " -h db",
			fake("", setAlnum, 14), "--password ",
			"mysql --password-file /run/secrets/db"},
		{"npm", "//registry.npmjs.org/:_authToken=" + fake("np"+"m_", setAlnum, 36),
			fake("np"+"m_", setAlnum, 36), "//registry.npmjs.org/:_authToken=",
			"npm_config_cache=/tmp/npm"},
		{"pypi", "password = " + fake("py"+"pi-AgEIcHlwaS5vcmc", setURL, 70),
			fake("py"+"pi-AgEIcHlwaS5vcmc", setURL, 70), "password = ",
			"pip install pypi-simple"},
		{"huggingface", "huggingface-cli login --token " + fake("h"+"f_", setAlnum, 34),
			fake("h"+"f_", setAlnum, 34), "huggingface-cli login --token ",
			"model = AutoModel.from_pretrained(hf_model_id)"},
		{"sendgrid", "sg = SendGridAPIClient('" + fake("S"+"G.", setURL, 22) + "." + fake("", setURL, 43) + "')",
			fake("", setURL, 43), "sg = SendGridAPIClient('",
			"SG.enabled = true"},
		{"twilio", `client = twilio.rest.Client("` + fake("S"+"K", setHex, 32) + `", api_secret)`,
			fake("S"+"K", setHex, 32), "client = twilio.rest.Client(",
			"SK" + fake("", setHex, 32) + " without any context"},
		{"azure account key", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + fake("", setB64, 86) + "==;EndpointSuffix=core.windows.net",
			fake("", setB64, 86), ";EndpointSuffix=core.windows.net",
			"AccountKey=<your key>"},
		{"azure sas", "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=" + fake("", setB64, 40) + "%3D",
			fake("", setB64, 40), "sv=2022-11-02&sp=r&sig=",
			"design=" + fake("", setB64, 40)},
		{"digitalocean", "doctl auth init -t " + fake("do"+"p_v1_", setHex, 64),
			fake("do"+"p_v1_", setHex, 64), "doctl auth init -t ",
			"dop_v1_ is the prefix"},
		{"basic auth", "Authorization: Basic " + fake("", setB64, 24) + "==",
			fake("", setB64, 24), "Authorization: Basic ",
			"Basic authentication is configured"},
		{"private tag multi-line", "note: <private>the vault code is 12345\nand nobody may know</private> (end)\n",
			"vault code", "note: " + Token + " (end)\n",
			"the <private> tag marks spans"},
		{"kubeconfig client key", "users:\n- name: admin\n  user:\n    client-key-data: " + fake("LS0t", setB64, 80) + "=",
			fake("LS0t", setB64, 80), "    client-key-data: ",
			"    client-key-data: DATA+OMITTED"},
		{"docker auth", `{"auths": {"ghcr.io": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("bob:"+fake("", setAlnum, 20))) + `"}}}`,
			base64.StdEncoding.EncodeToString([]byte("bob:" + fake("", setAlnum, 20))), `{"auths": {"ghcr.io": {"auth": "`,
			`{"auth": "required", "oauth": "enabled", "credsStore": "desktop"}`},
		{"netrc one line", "machine api.example.com login alice password " + fake("", setAlnum, 12),
			fake("", setAlnum, 12), "machine api.example.com login alice password ",
			"a .netrc holds machine, login and password entries"},
		{"netrc multi-line", "machine api.example.com\n  login alice\n  password " + fake("", setAlnum, 12) + "\n",
			fake("", setAlnum, 12), "  login alice\n  password ",
			"sudo: a password is required\npassword required\n"},
		{"mysql -p glued", "mysql -h db -u root -p" + fake("", setAlnum, 12) + " app",
			fake("", setAlnum, 12), "mysql -h db -u root -p",
			"mysql -h db -P 3306 -u root -p app"},
		{"mysqladmin -p spaced", "mysqladmin -u root -p " + fake("", setAlnum, 12) + " status",
			fake("", setAlnum, 12), " status",
			"mysqladmin -u root -p flush-privileges"},
		{"sshpass", "sshpass -p '" + fake("", setAlnum, 12) + "' ssh deploy@web1",
			fake("", setAlnum, 12), "' ssh deploy@web1",
			"sshpass -f ~/.ssh/deploy.pass ssh deploy@web1"},
		{"curl user", "curl -su alice:" + fake("", setAlnum, 12) + " https://api.example.com/v1",
			fake("", setAlnum, 12), "curl -su alice:",
			"curl -u alice https://api.example.com/v1 && docker run -u 1000:1000 alpine"},
		{"openssl pass", "openssl enc -aes-256-cbc -pass pass:" + fake("", setAlnum, 12) + " -in a.txt",
			fake("", setAlnum, 12), "-pass pass:",
			"openssl enc -aes-256-cbc -pass env:ENC_PASS -in a.txt"},
		{"aws temporary key id", `"AccessKeyId": "` + fake("AS"+"IA", setUpper, 16) + `"`,
			fake("AS"+"IA", setUpper, 16), `"AccessKeyId": "`,
			"region ASIA_PACIFIC and the ASIA prefix"},
		{"aws session token", `"SessionToken": "` + fake("IQoJb3JpZ2luX2Vj", setB64, 120) + `",`,
			fake("IQoJb3JpZ2luX2Vj", setB64, 120), `"SessionToken": "`,
			`{"sessionTokenTTL": 3600, "maxTokens": 4096, "tokenizer": "cl100k_base"}`},
		{"age identity", "# public key: age1…\n" + "AGE-" + "SECRET-KEY-1" + strings.Repeat("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 2)[:58],
			strings.Repeat("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 2)[:58], "# public key: age1…\n",
			"lines starting AGE-SECRET-KEY-1 are private"},
		{"fcm server key", `"Authorization": "key=AAAA` + fake("", setURL, 7) + ":APA91b" + fake("", setURL, 134) + `"`,
			fake("", setURL, 134), `"Authorization": "key=`,
			"example.com. 300 IN AAAA 2001:db8::1"},
		{"telegram bot url", "curl https://api.telegram.org/bot" + fake("", "0123456789", 10) + ":AA" + fake("", setURL, 33) + "/getMe",
			":AA" + fake("", setURL, 33), "https://api.telegram.org/bot",
			"https://api.telegram.org/bot<token>/getMe and 00:AA:BB:CC:DD:EE"},
		{"postman", "x-api-key: " + fake("PM"+"AK-", setHex, 24) + "-" + fake("", setHex, 34),
			fake("", setHex, 34), "x-api-key: ",
			"Postman keys start with PMAK-"},
		{"notion", "NOTION_KEY=" + fake("nt"+"n_", "0123456789", 11) + fake("", setAlnum, 35),
			fake("", setAlnum, 35), "NOTION_KEY=",
			"NOTION_KEY=$NOTION_KEY"},
		{"vault", "vault login " + fake("hv"+"s.", setURL, 90),
			fake("", setURL, 90), "vault login ",
			"VAULT_ADDR=https://vault.example.com:8200"},
		{"dotted token in an assignment", "DOPPLER_TOKEN=dp." + "st.dev." + fake("", setAlnum, 40),
			fake("", setAlnum, 40), "DOPPLER_TOKEN=",
			"auth_token = settings.auth.token"},
		{"datadog app key", "DD_APP_KEY=" + fake("", setHex, 40),
			fake("", setHex, 40), "DD_APP_KEY=",
			"CACHE_KEY=build-cache-v1 PRIMARY_KEY=customer_id"},
		{"escaped value keeps the next line's key", `"output":"password: ` + fake("", setAlnum, 10) + `\napi_key: ` + fake("", setHex, 24) + `"`,
			fake("", setHex, 24), `\napi_key: `,
			`"output":"api_key: null\nnext: 1"`},
		{"escaped diff pair", `"diff":"-password: ` + fake("", setAlnum, 10) + `\n+password: ` + fake("", setHex, 24) + `"`,
			fake("", setHex, 24), `\n+password: `,
			`"diff":"-  password_min_length: 8\n+  password_min_length: 12"`},
		{"private tag json-escaped", `{"t":"a \u003cprivate\u003ecode 9\u003c/private\u003e b"}`,
			"code 9", `{"t":"a ` + Token + ` b"}`,
			`{"t":"private matters"}`},
	}
}

func TestFamilies(t *testing.T) {
	r := Default()
	for _, f := range families() {
		t.Run(f.name, func(t *testing.T) {
			if f.in != "" {
				got := r.String(f.in)
				if strings.Contains(got, f.secret) {
					t.Errorf("secret survived:\n in  %q\n out %q", f.in, got)
				}
				if !strings.Contains(got, Token) {
					t.Errorf("no redaction in %q", got)
				}
				if !strings.Contains(got, f.keep) {
					t.Errorf("output %q lost %q", got, f.keep)
				}
			}
			if got := r.String(f.nearMiss); got != f.nearMiss {
				t.Errorf("near miss changed:\n in  %q\n out %q", f.nearMiss, got)
			}
		})
	}
}

func TestOrdinaryTextKept(t *testing.T) {
	keep := []string{
		"commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
		"session 019e1625-789d-76c0-80ab-3724b5ddb799 started",
		"/home/dev/.config/memctl/secrets/README.md and ./internal/redact/testdata/token_test.go",
		`data := base64.StdEncoding.EncodeToString([]byte("hello")) // aGVsbG8gd29ybGQgdGhpcyBpcyBmaW5lIGRhdGE=`,
		"the token expired, so reset your password in settings",
		"Your secret is safe with us; the password policy requires 12 characters.",
		"password: ****",
		"token: abc123",
		`{"type":"token_count","info":{"total_token_usage":{"input_tokens":12034,"output_tokens":532}}}`,
		`const tokenizer = new Tokenizer({ maxTokens: 4096 });`,
		"if err := validateToken(ctx, tok); err != nil {",
		"export PATH=$HOME/go/bin:$PATH",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"https://github.com/memctl/memctl/blob/main/docs/security.md#secrets",
		"ssh://git@github.com:22/memctl/memctl.git",
		"AKIA is the prefix of AWS access key ids",
		"Bearer tokens are sent in the Authorization header",
	}
	for _, s := range keep {
		if got := Default().String(s); got != s {
			t.Errorf("changed ordinary text:\n in  %q\n out %q", s, got)
		}
	}
}

// TestRealTranscriptsMostlyKept checks that real transcripts, which hold no live secrets,
// only lose what the Codex floor itself removes plus a handful of assignments in code.
func TestRealTranscriptsMostlyKept(t *testing.T) {
	for _, name := range []string{"codex-rollout.jsonl", "claude-session.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		full := strings.Count(string(Default().Bytes(b)), Token)
		floor := strings.Count(Codex(string(b)), Token)
		if full < floor || full > floor+15 {
			t.Errorf("%s: %d redactions, Codex floor %d; want floor..floor+15", name, full, floor)
		}
	}
}

func TestStreamingMatchesString(t *testing.T) {
	var inputs []string
	for _, f := range families() {
		inputs = append(inputs, f.in, f.nearMiss)
	}
	for _, v := range codexVectors {
		inputs = append(inputs, v.in)
	}
	all := strings.Join(inputs, "\n")
	inputs = append(inputs, all, all+"\n"+all)
	readers := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+eof": iotest.DataErrReader,
	}
	r := Default()
	for name, wrap := range readers {
		for i, in := range inputs {
			var out bytes.Buffer
			if err := r.Copy(&out, wrap(strings.NewReader(in))); err != nil {
				t.Fatalf("%s/%d: %v", name, i, err)
			}
			if want := r.String(in); out.String() != want {
				t.Errorf("%s/%d: Copy and String differ\n copy   %q\n string %q", name, i, out.String(), want)
			}
		}
	}
}

func TestCopyAcrossChunkBoundaries(t *testing.T) {
	r := Default()
	filler := strings.Repeat("ordinary line of text with nothing in it\n", 20000) // ~800 KB, several reads
	secret := fake("gh"+"p_", setAlnum, 36)
	in := filler + "token line " + secret + "\n" +
		filler + "a <private>first line\n" + filler[:160_000] + "last line</private> b\n" +
		filler + "-----BEGIN EC PRIVATE" + " KEY-----\n" + strings.Repeat(fake("", setB64, 64)+"\n", 3) + "-----END EC PRIVATE" + " KEY-----\n" +
		"password:\n   hunter2hunter2\n" +
		strings.Repeat("x", 700_000) + " " + secret + " " + strings.Repeat("y", 10) + "\n" // one line longer than a read
	var out bytes.Buffer
	if err := r.Copy(&out, iotest.HalfReader(strings.NewReader(in))); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, secret) || strings.Contains(got, "first line") || strings.Contains(got, "hunter2") || strings.Contains(got, "last line") ||
		strings.Contains(got, "BEGIN EC") {
		t.Fatal("a secret crossed a chunk boundary unredacted")
	}
	if got != r.String(in) {
		t.Fatal("Copy and String differ")
	}
	if !strings.Contains(got, "a "+Token+" b\n") {
		t.Error("multi-line private span not replaced whole")
	}
	if strings.Count(got, "ordinary line") != strings.Count(in, "ordinary line")-strings.Count(filler[:160_000], "ordinary line") {
		t.Error("the private span should have swallowed exactly its filler")
	}
}

func TestUnclosedSpans(t *testing.T) {
	tests := []struct{ in, want string }{
		// An opening tag never closed is left as text: a tag mentioned in prose must not
		// swallow the rest of a transcript.
		{"a <private>b\nc\nd", "a <private>b\nc\nd"},
		{"<private>a</private> and <private>b", Token + " and <private>b"},
		{"x\n-----BEGIN RSA PRIVATE" + " KEY-----\nQUJD\nnot key material here\n", "x\n" + Token + "\nnot key material here\n"},
		{"-----BEGIN RSA PRIVATE" + " KEY-----\nQUJD\n", Token + "\n"},
		{"a </private> b", "a </private> b"},
		// issue: a key block inside a unit that was waiting for a closing tag kept its body.
		{"see <private> docs\n-----BEGIN RSA PRIVATE" + " KEY-----\nQUJD\nRUZH\n-----END RSA PRIVATE" + " KEY-----\nafter\n",
			"see <private> docs\n" + Token + "\nafter\n"},
		{"password:\n-----BEGIN RSA PRIVATE" + " KEY-----\nQUJD\n-----END RSA PRIVATE" + " KEY-----\n",
			"password:\n" + Token + "\n"},
	}
	for _, tt := range tests {
		if got := Default().String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrivateWaitIsBounded(t *testing.T) {
	// A closing tag further away than maxJoinBytes is not paired with the opening one.
	far := "a <private>x\n" + strings.Repeat("filler line\n", maxJoinBytes/12+10) + "</private> b\n"
	if got := Default().String(far); got != far {
		t.Error("a span longer than maxJoinBytes was removed")
	}
}

func TestSplitPoint(t *testing.T) {
	b := []byte(strings.Repeat("a", 5000) + " " + strings.Repeat("b", 100))
	if got := splitPoint(b); got != 5001 {
		t.Errorf("splitPoint = %d, want 5001", got)
	}
	if got := splitPoint([]byte(strings.Repeat("a", 9000))); got != 9000 {
		t.Errorf("splitPoint without separators = %d, want 9000", got)
	}
}

func TestExtraPatterns(t *testing.T) {
	r, err := New([]string{`ACME-[0-9]{6}`, `(?i)internal\.corp/\S+`})
	if err != nil {
		t.Fatal(err)
	}
	in := "ticket ACME-123456 at internal.corp/wiki/x and " + fake("gh"+"p_", setAlnum, 36)
	want := "ticket " + Token + " at " + Token + " and " + Token
	if got := r.String(in); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var out bytes.Buffer
	if err := r.Copy(&out, strings.NewReader(in+"\n")); err != nil || out.String() != want+"\n" {
		t.Errorf("Copy = %q, %v", out.String(), err)
	}
	if Default().String("ACME-123456") != "ACME-123456" {
		t.Error("Default must not carry extra patterns")
	}
}

func TestBadExtraPattern(t *testing.T) {
	_, err := New([]string{`ok`, `a(b`, `x*`})
	if err == nil {
		t.Fatal("want error")
	}
	msg := err.Error()
	for _, want := range []string{"extra_patterns[1]", "missing closing )", "extra_patterns[2]", "empty string"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "extra_patterns[0]") {
		t.Errorf("error %q blames a good pattern", msg)
	}
}

func TestIdempotent(t *testing.T) {
	r := Default()
	check := func(s string) {
		once := r.String(s)
		if twice := r.String(once); twice != once {
			t.Errorf("not idempotent on %q:\n once  %q\n twice %q", s, once, twice)
		}
	}
	for _, f := range families() {
		check(f.in)
		check(f.nearMiss)
	}
	for _, v := range codexVectors {
		check(v.in)
	}
	check(string(genCorpus(t, 300_000, nil)))
}

func TestCorpusSecretsRemoved(t *testing.T) {
	var planted []corpus.Planted
	data := genCorpus(t, 5_000_000, &planted)
	var out bytes.Buffer
	if err := Default().Copy(&out, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if len(planted) < 30 {
		t.Fatalf("only %d secrets planted", len(planted))
	}
	seen := map[string]bool{}
	for _, p := range planted {
		seen[p.Family] = true
		if bytes.Contains(out.Bytes(), []byte(p.Secret)) {
			t.Errorf("%s secret %q survived", p.Family, p.Secret)
		}
	}
	if len(seen) < 55 { // every family corpus.Generate plants
		t.Errorf("corpus covered only %d families", len(seen))
	}
}

func TestConcurrentUse(t *testing.T) {
	r := Default()
	in := strings.Join([]string{"Bearer abcdefghijklmnopqrstuv", "x <private>a\nb</private> y", "DB_PASSWORD=" + fake("", setAlnum, 12)}, "\n")
	want := r.String(in)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				if got := r.String(in); got != want {
					t.Errorf("concurrent result differs: %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCopyErrors(t *testing.T) {
	if err := Default().Copy(failWriter{}, strings.NewReader("hello\n")); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error = %v", err)
	}
	err := Default().Copy(io.Discard, iotest.ErrReader(errors.New("boom")))
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("read error = %v", err)
	}
}

func TestBytesDoesNotModifyInput(t *testing.T) {
	in := []byte("token=" + fake("", setAlnum, 20))
	orig := string(in)
	out := Default().Bytes(in)
	if string(in) != orig || string(out) != "token="+Token {
		t.Errorf("in %q out %q", in, out)
	}
}

func TestRules(t *testing.T) {
	rules := Rules()
	names := map[string]bool{}
	for _, r := range rules {
		if r.Name == "" || r.Family == "" || r.Example == "" {
			t.Errorf("incomplete rule %+v", r)
		}
		if names[r.Name] {
			t.Errorf("duplicate rule %s", r.Name)
		}
		names[r.Name] = true
	}
	if len(rules) >= exoticBit {
		t.Fatalf("%d rules do not fit the 63-bit rule mask", len(rules))
	}
	if rules[2].Name != "codex_bearer" || rules[5].Name != "codex_assignment" {
		t.Error("Codex's four rules must run right after the structural ones, in Codex's order")
	}
}

// genCorpus builds transcript-like text from the testdata transcripts and this package's
// own source code, with planted fake secrets.
func genCorpus(tb testing.TB, size int, planted *[]corpus.Planted) []byte {
	tb.Helper()
	var real, code [][]byte
	for _, glob := range []string{"testdata/*.jsonl", "*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			if strings.HasSuffix(f, ".go") {
				code = append(code, corpus.SplitLines(b)...)
			} else {
				real = append(real, corpus.SplitLines(b)...)
			}
		}
	}
	var buf bytes.Buffer
	p, err := corpus.Generate(&buf, corpus.Options{Size: size, Seed: 42, Real: real, Code: code, SecretEvery: 8})
	if err != nil {
		tb.Fatal(err)
	}
	if planted != nil {
		*planted = p
	}
	return buf.Bytes()
}

// TestEveryEnvCredentialNameCounts: each name the env_credential rule
// anchors on is one its pattern takes, glued to a prefix as environment
// variables are.
func TestEveryEnvCredentialNameCounts(t *testing.T) {
	for _, ru := range builtinRules() {
		if ru.name != "env_credential" {
			continue
		}
		for _, a := range ru.anchors {
			in := "MY" + a + "=" + fake("", setAlnum, 12)
			if got := Default().String(in); got != "MY"+a+"="+Token {
				t.Errorf("%s: %q", a, got)
			}
		}
		return
	}
	t.Fatal("no env_credential rule")
}
