package redact

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
)

// The rule table. Order matters: rules run pass by pass on the output of the previous
// pass, like Codex does, so Codex's four patterns come first and memctl's own families
// refine what is left. Every rule names the literals ("anchors") that any match must
// start with; the scanner looks for those literals first and a rule's regular expression
// only runs where one of its anchors was seen.
//
// Patterns never use \b: Go's \b is ASCII-only while Codex (Rust regex) is Unicode-aware,
// so boundaries are checked in code (see boundary) with Unicode word characters, reading
// an escape sequence before a match as the character it stands for (see escapedBefore).

// ws is Unicode White_Space as a Go class, standing in for Rust's Unicode-aware \s.
// Go's own \s is ASCII-only and even leaves out \v.
const ws = `\t\n\v\f\r\x{85}\p{Zs}\x{2028}\x{2029}`

// boundary is a condition on the text just before a match.
type boundary uint8

const (
	anyBefore   boundary = iota
	wordBefore           // Unicode \b before a word character: the previous rune is not a word rune
	alnumBefore          // the previous byte is not an ASCII letter or digit ('_', '-', quotes are fine)
	queryBefore          // the previous byte is '?' or '&' (URL query parameters)
	// identBefore is alnumBefore, or the hump of a camelCase name: a lower-case
	// letter or digit before an upper-case one, so the Token of "sessionToken"
	// and the Secret of "clientSecret" start a key word.
	identBefore
)

// kind says how the engine treats a rule.
type kind uint8

const (
	kindAnchored   kind = iota // the match starts at an anchor hit
	kindLine                   // anchors only gate the line; the pattern scans the whole line
	kindPrivateTag             // <private>…</private> spans, handled structurally
)

// spec is the source form of a rule.
type spec struct {
	name, family, example string
	kind                  kind
	anchors               []string
	fold                  bool // anchors match ASCII case-insensitively (the pattern carries its own (?i))
	before                boundary
	wordAfter             bool   // Unicode \b after the match (match ends in a word character)
	pattern               string // Go regexp; must match starting at the anchor for kindAnchored
	tmpl                  string // replacement template for the whole match (regexp.Expand syntax)
	group                 int    // submatch replaced by Token when tmpl is empty; 0 is the whole match
	keepPlaceholders      bool   // leave values such as $VAR, <token>, ******** alone
	// need is a word (matched ignoring ASCII case) that every match of a
	// kindLine rule contains: a line without it is not searched at all,
	// which spares a case-insensitive scan of long lines.
	need string
	// assignment marks a rule whose anchor starts a key that a ':' or '='
	// follows (key: value, KEY=value, "key": "value"): an anchor hit is
	// tried only when assignmentAhead finds one, so the "token" of "tokens"
	// or "token budget" compiles and runs no expression (see assignmentAhead).
	assignment bool
	// settle, when set, judges a match by what a regular expression cannot
	// say (the context before it, the shape of the value) and may shorten it
	// by moving loc[1] back: false rejects the match. esc is the redactor's
	// escape reading (see boundaryOK).
	settle func(u []byte, loc []int, esc bool) bool
}

// codexSpecs are Codex's four patterns, in Codex's newest order (codex-memories.md 6.6).
var codexSpecs = []spec{
	{
		name: "codex_bearer", family: "Bearer token (Codex)",
		example: "Authorization: Bearer abcdefghijklmnop1234",
		anchors: []string{"bearer"}, fold: true, before: wordBefore,
		// Case-insensitivity is scoped to the word: a global (?i) would fold the token
		// class and let U+212A KELVIN SIGN count as a token character.
		pattern: `(?i:bearer)[ \t]+[A-Za-z0-9._~+/-]{16,}=*`,
		tmpl:    "Bearer " + Token,
	},
	{
		name: "codex_openai_key", family: "OpenAI-style key (Codex)",
		example: "sk-abcdefghijklmnopqrstuvwx",
		anchors: []string{"sk-"},
		pattern: `sk-[A-Za-z0-9]{20,}`,
	},
	{
		name: "codex_aws_access_key_id", family: "AWS access key id (Codex)",
		example: "AKIA0123456789ABCDEF",
		anchors: []string{"AKIA"}, before: wordBefore, wordAfter: true,
		pattern: `AKIA[0-9A-Z]{16}`,
	},
	{
		name: "codex_assignment", family: "key/secret/token/password assignment (Codex)",
		example: `password = "hunter2hunter2"`,
		anchors: []string{"api", "token", "secret", "password"}, fold: true, before: wordBefore, assignment: true,
		pattern: `(?i)(api[_-]?key|token|secret|password)([` + ws + `]*[:=][` + ws + `]*)(["']?)([^` + ws + `"']{8,})`,
		tmpl:    "${1}${2}${3}" + Token,
		settle:  codexValueOwnLine,
	},
}

// pem matches the armour lines of private keys: PKCS#1/#8, EC, OpenSSH, encrypted, PGP.
const (
	pemBeginPat = `-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`
	pemEndPat   = `-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`
)

// memctlSpecs are the families memctl adds on top of Codex's floor.
var memctlSpecs = []spec{
	{
		name: "anthropic_key", family: "Anthropic API key",
		example: "sk-ant-api03-<93 chars>",
		anchors: []string{"sk-ant-"}, before: alnumBefore,
		pattern: `sk-ant-[A-Za-z0-9_-]{20,}`,
	},
	{
		name: "openai_project_key", family: "OpenAI project/service/admin key",
		example: "sk-proj-<~150 chars>",
		anchors: []string{"sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"}, before: alnumBefore,
		pattern: `sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}`,
	},
	{
		name: "github_token", family: "GitHub token",
		example: "ghp_<36 alphanumerics>, github_pat_<82 chars>",
		anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, before: alnumBefore,
		pattern: `gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}`,
	},
	{
		name: "gitlab_token", family: "GitLab token",
		example: "glpat-<20 chars>",
		anchors: []string{
			"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glimt-",
			"glffct-", "glft-", "gloas-", "glagent-",
		},
		before:  alnumBefore,
		pattern: `gl(?:pat|dt|rt|ptt|soat|cbt|imt|ffct|ft|oas|agent)-[A-Za-z0-9_-]{20,}`,
	},
	{
		name: "slack_token", family: "Slack token",
		example: "xoxb-123456789012-1234567890123-<24 chars>",
		anchors: []string{"xoxa-", "xoxb-", "xoxe-", "xoxe.", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		before:  alnumBefore,
		pattern: `(?:xox[abeoprs](?:\.xox[a-z])?|xapp)-[A-Za-z0-9-]{20,}`,
	},
	{
		name: "slack_webhook", family: "Slack webhook URL",
		example: "https://hooks.slack.com/services/T000/B000/<24 chars>",
		anchors: []string{"hooks.slack.com/"},
		pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{20,})`,
		group:   1,
	},
	{
		name: "stripe_key", family: "Stripe secret/restricted key, webhook secret",
		example: "sk_live_<24+ chars>, rk_test_…, whsec_…",
		anchors: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"}, before: alnumBefore,
		pattern: `(?:[sr]k_(?:live|test)|whsec)_[A-Za-z0-9]{16,}`,
	},
	{
		name: "google_api_key", family: "Google API key",
		example: "AIza<35 chars>",
		anchors: []string{"AIza"}, before: alnumBefore,
		pattern: `AIza[0-9A-Za-z_-]{35}`,
	},
	{
		name: "google_oauth", family: "Google OAuth client secret / access token",
		example: "GOCSPX-<28 chars>, ya29.<token>",
		anchors: []string{"GOCSPX-", "ya29."}, before: alnumBefore,
		pattern: `GOCSPX-[0-9A-Za-z_-]{20,}|ya29\.[0-9A-Za-z_-]{20,}`,
	},
	{
		name: "digitalocean_token", family: "DigitalOcean token",
		example: "dop_v1_<64 hex>",
		anchors: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, before: alnumBefore,
		pattern: `do[opr]_v1_[a-f0-9]{64}`,
	},
	{
		name: "npm_token", family: "npm token",
		example: "npm_<36 alphanumerics>",
		anchors: []string{"npm_"}, before: alnumBefore,
		pattern: `npm_[A-Za-z0-9]{36}`,
	},
	{
		name: "pypi_token", family: "PyPI token",
		example: "pypi-AgEIcHlwaS5vcmc<50+ chars>",
		anchors: []string{"pypi-AgEI"}, before: alnumBefore,
		pattern: `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`,
	},
	{
		name: "huggingface_token", family: "Hugging Face token",
		example: "hf_<34 alphanumerics>",
		anchors: []string{"hf_"}, before: alnumBefore,
		pattern: `hf_[A-Za-z0-9]{30,}`,
	},
	{
		name: "sendgrid_key", family: "SendGrid API key",
		example: "SG.<22 chars>.<43 chars>",
		anchors: []string{"SG."}, before: alnumBefore,
		pattern: `SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`,
	},
	{
		name: "jwt", family: "JSON Web Token",
		example: "eyJhbGciOi….eyJzdWIiOi….<signature>",
		anchors: []string{"eyJ"}, before: alnumBefore,
		pattern: `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
	},
	{
		name: "azure_key", family: "Azure connection string key",
		example: "AccountKey=<88 base64>;  SharedAccessKey=<44 base64>",
		anchors: []string{"accountkey=", "sharedaccesskey="}, fold: true, before: alnumBefore,
		pattern: `(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/=]{20,})`,
		group:   1,
	},
	{
		name: "azure_sas", family: "Azure connection string key",
		example: "?sv=2022-11-02&…&sig=<url-encoded base64>",
		anchors: []string{"sig="}, before: queryBefore,
		pattern: `sig=([A-Za-z0-9%+/=]{30,})`,
		group:   1,
	},
	{
		name: "aws_secret_access_key", family: "AWS secret access key",
		example: "aws_secret_access_key = <40 base64 chars>",
		anchors: []string{
			"aws_secret", "aws-secret", "awssecret",
			"secret_access", "secret-access", "secretaccess",
		},
		fold: true, before: alnumBefore,
		pattern: `(?i)(?:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)(\\*["']?[ \t]*[:=][ \t]*\\*["']?)([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		group:   2,
	},
	{
		name: "url_credentials", family: "password in URL",
		example: "postgres://app:s3cretpass@db:5432/app",
		anchors: []string{"://"},
		// The password run stops at the last '@' of the authority, so passwords with a raw '@' go whole.
		pattern:          `://([^\s:/?#@"'<>\\]*):([^\s/?#"'<>\\]+)@`,
		group:            2,
		keepPlaceholders: true,
	},
	{
		name: "key_value", family: ".env / YAML / JSON secret assignment",
		example: `GITHUB_TOKEN=…, db_password: …, "api_key": "…", export AWS_SECRET_KEY=…`,
		anchors: []string{
			"secret", "token", "passw", "passphrase", "_pwd", "api_key", "api-key", "apikey",
			"app_key", "app-key", "appkey", "access_key", "access-key", "accesskey",
			"private_key", "private-key", "privatekey",
			"credential", "auth_token", "auth-token", "authtoken",
		},
		fold: true, before: identBefore, assignment: true,
		// The key must end at the keyword (optionally "_key"), so TOKEN_LIMIT, max_tokens or
		// secret_name do not count; it may start at a camelCase hump (SessionToken,
		// clientSecret). Then an optional closing quote (JSON, also \"-escaped), '=' or
		// ':', an optional opening quote, and a value of at least 8 characters. The value
		// may start on the next line ("password:\n    …" in YAML), also when the line break
		// is a \n escape, as it is in a transcript, unless that line starts with a key of
		// its own (see keyValueSettle).
		pattern: `(?i)(?:secret|token|passw(?:or)?d|passphrase|_pwd|api[_-]?key|app[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth[_-]?token)` +
			`((?:[_-]?key)?\\*["']?[ \t]*[:=](?:[ \t]|\\+[nrt])*\\*["']?)([^\s"'\\,;<>(){}\[\]\x00-\x1f` + "`" + `]{8,})`,
		group:            2,
		keepPlaceholders: true,
		settle:           keyValueSettle,
	},
	{
		name: "env_credential", family: "credential in an environment variable",
		example: "PGPASSWORD=…, MYSQL_PWD=…, SMTP_PASS=…, NPMTOKEN=…, *_SECRET: …, DD_APP_KEY=…",
		// Environment variable names glue words together (PGPASSWORD, NPMTOKEN),
		// which key_value's boundary rules out, and their values are often short,
		// so for names in capitals that end in a credential word any prefix counts
		// and four characters are enough. A name ending in _KEY counts when the
		// word before says what kind of key (APP_KEY, SERVICE_KEY); PRIMARY_KEY or
		// CACHE_KEY do not.
		anchors: []string{
			"PASSWORD", "PASSWD", "PASSPHRASE", "_PASS", "_PWD", "TOKEN", "SECRET", "_AUTH",
			"APP_KEY", "API_KEY", "APPLICATION_KEY", "SECRET_KEY", "ACCESS_KEY", "PRIVATE_KEY", "MASTER_KEY",
			"ENCRYPTION_KEY", "SIGNING_KEY", "CLIENT_KEY", "SERVER_KEY", "LICENSE_KEY", "ACCOUNT_KEY",
			"SERVICE_KEY", "WRITE_KEY", "INGEST_KEY", "ADMIN_KEY", "SDK_KEY", "AUTH_KEY",
		},
		pattern: `(?:PASSWORD|PASSWD|PASSPHRASE|_PASS|_PWD|TOKEN|SECRET|_AUTH|(?:APP|API|APPLICATION|SECRET|ACCESS|PRIVATE|MASTER|` +
			`ENCRYPTION|SIGNING|CLIENT|SERVER|LICENSE|ACCOUNT|SERVICE|WRITE|INGEST|ADMIN|SDK|AUTH)_KEY)` +
			`(\\*["']?[ \t]*[:=][ \t]*\\*["']?)([^\s"'\\,;<>(){}\[\]\x00-\x1f` + "`" + `]{4,})`,
		group:            2,
		keepPlaceholders: true,
	},
	{
		name: "cli_flag", family: "secret passed as a command-line flag",
		example: "--password s3cretpass, --token=…",
		anchors: []string{
			"--password", "--passwd", "--token", "--api-key", "--apikey", "--secret",
			"--client-secret", "--auth-token",
		},
		fold:             true,
		pattern:          `(?i)--(?:password|passwd|token|api-?key|secret|client-secret|auth-token)(?:[ \t]+|=)([^\s"'-][^\s"']{7,})`,
		group:            1,
		keepPlaceholders: true,
	},
	{
		name: "aws_temporary_key_id", family: "AWS temporary access key id",
		example: "ASIA<16 upper-case letters and digits> (aws sts)",
		anchors: []string{"ASIA"}, before: wordBefore, wordAfter: true,
		pattern: `ASIA[0-9A-Z]{16}`,
	},
	{
		name: "age_secret_key", family: "age identity",
		example: "AGE-SECRET-KEY-1<58 bech32 characters>",
		anchors: []string{"AGE-SECRET-KEY-1"}, before: alnumBefore,
		pattern: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`,
	},
	{
		name: "fcm_server_key", family: "Firebase Cloud Messaging server key",
		example: "AAAA<7 chars>:APA91b<134 chars>",
		kind:    kindLine, anchors: []string{":APA91b"}, before: alnumBefore,
		pattern: `AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}`,
	},
	{
		name: "telegram_bot_token", family: "Telegram bot token",
		example: "123456789:AA<33 chars>, also in api.telegram.org/bot…/ URLs",
		kind:    kindLine, anchors: []string{":AA"}, before: alnumBefore,
		pattern: `(?:bot)?([0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)`,
		group:   1,
	},
	{
		name: "postman_key", family: "Postman API key",
		example: "PMAK-<24 hex>-<34 hex>",
		anchors: []string{"PMAK-"}, before: alnumBefore,
		pattern: `PMAK-[0-9a-f]{24}-[0-9a-f]{34}`,
	},
	{
		name: "notion_token", family: "Notion integration token",
		example: "ntn_<46 chars>, secret_<43 chars>",
		anchors: []string{"ntn_", "secret_"}, before: alnumBefore, wordAfter: true,
		pattern: `ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}`,
	},
	{
		name: "vault_token", family: "HashiCorp Vault token",
		example: "hvs.<24+ chars>, hvb.…, hvr.…",
		anchors: []string{"hvs.", "hvb.", "hvr."}, before: alnumBefore,
		pattern: `hv[sbr]\.[A-Za-z0-9_-]{24,}`,
	},
	{
		name: "doppler_token", family: "Doppler token",
		example: "dp.st.<config>.<40+ chars>, dp.pt.…, dp.ct.…",
		anchors: []string{"dp.st.", "dp.ct.", "dp.pt.", "dp.sa.", "dp.scim.", "dp.audit."}, before: alnumBefore,
		pattern: `dp\.(?:st|ct|pt|sa|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}`,
	},
	{
		name: "kubeconfig_data", family: "kubeconfig client key / certificate",
		example: "client-key-data: <base64>, client-certificate-data: <base64>",
		anchors: []string{"client-key-data", "client-certificate-data"}, before: alnumBefore,
		pattern: `client-(?:key|certificate)-data(\\*["']?[ \t]*:[ \t]*\\*["']?)([A-Za-z0-9+/=]{16,})`,
		group:   2,
	},
	{
		name: "docker_auth", family: "Docker registry credentials (config.json auths)",
		example: `"auth": "<base64 of user:password>"`,
		anchors: []string{`auth"`, `auth\`}, before: alnumBefore,
		pattern: `auth(\\*"[ \t]*:[ \t]*\\*")([A-Za-z0-9+/=]{8,})`,
		group:   2,
		settle:  dockerAuthIsUserPassword,
	},
	{
		name: "netrc_password", family: ".netrc password",
		example: "machine api.example.com login alice password …, or a line of its own: password …",
		// Anchored at the password keyword; netrcSettle reads the entry before it.
		anchors:          []string{"password"},
		pattern:          `password[ \t]+(` + openQuote + `)(` + wordValue + `+)`,
		group:            2,
		keepPlaceholders: true,
		settle:           netrcSettle,
	},
	{
		name: "mysql_password", family: "password on a command line (mysql, sshpass, curl, openssl)",
		example: "mysql -u root -p…, mysqldump -p…",
		anchors: []string{"mysql", "mariadb"}, before: wordBefore,
		pattern:          `(?:mysql[a-z]*|mariadb(?:-[a-z]+)?)` + shellArgs + `[ \t]+-p(` + openQuote + `)(` + shellFlagValue + `)`,
		group:            2,
		keepPlaceholders: true,
	},
	{
		name: "mysqladmin_password", family: "password on a command line (mysql, sshpass, curl, openssl)",
		example: "mysqladmin -u root -p … status",
		anchors: []string{"mysqladmin", "mariadb-admin"}, before: wordBefore,
		pattern:          `(?:mysqladmin|mariadb-admin)` + shellArgs + `[ \t]+-p[ \t]+(` + openQuote + `)(` + shellFlagValue + `)`,
		group:            2,
		keepPlaceholders: true,
		settle:           notMysqladminCommand,
	},
	{
		name: "sshpass_password", family: "password on a command line (mysql, sshpass, curl, openssl)",
		example: "sshpass -p … ssh host",
		anchors: []string{"sshpass"}, before: wordBefore,
		pattern:          `sshpass` + shellArgs + `[ \t]+-p[ \t]*(` + openQuote + `)(` + shellFlagValue + `)`,
		group:            2,
		keepPlaceholders: true,
	},
	{
		name: "curl_user_password", family: "password on a command line (mysql, sshpass, curl, openssl)",
		example: "curl -u user:… , --user user:…, -U proxyuser:…",
		anchors: []string{"curl"}, before: wordBefore,
		pattern:          `curl` + shellArgs + `[ \t]+(?:-[A-Za-z]*[uU]|--user|--proxy-user)(?:[ \t]+|=)?` + openQuote + `[^\s:"'\\]*:(` + shellValue + `+)`,
		group:            1,
		keepPlaceholders: true,
	},
	{
		name: "openssl_pass", family: "password on a command line (mysql, sshpass, curl, openssl)",
		example:          "openssl … -passin pass:…, -passout pass:…",
		anchors:          []string{"-pass"},
		pattern:          `-pass(?:in|out|word)?[ \t]+` + openQuote + `pass:(` + shellValue + `+)`,
		group:            1,
		keepPlaceholders: true,
	},
	{
		name: "twilio_key", family: "Twilio account SID / API key",
		example: "twilio … SK<32 hex>",
		kind:    kindLine, anchors: []string{"twilio"}, fold: true,
		before: wordBefore, wordAfter: true,
		pattern: `(?:AC|SK)[0-9a-fA-F]{32}`,
	},
	{
		name: "basic_auth", family: "HTTP Basic credentials",
		example: "Authorization: Basic dXNlcjpwYXNzd29yZA==",
		kind:    kindLine, anchors: []string{"authorization"}, fold: true,
		before: wordBefore, need: "basic",
		pattern: `(?i:basic)[ \t]+([A-Za-z0-9+/]{12,}={0,2})`,
		group:   1,
	},
}

// shellWord is one word of a command line, raw or inside JSON-escaped text
// (where its quotes arrive as \" and a line break as \n, which ends it).
const shellWord = `(?:[^\s|;&\\]|\\+["'])+`

// openQuote is the quote a value may open with, raw or escaped (\" in a
// JSON string, \\\" two levels deep).
const openQuote = `(?:\\*["'])?`

// wordValue is a character of a value that ends at white space, a quote, a
// backslash (a JSON escape) or a control character (a terminal's colour).
const wordValue = `[^\s"'\\\x00-\x1f]`

// shellValue is a character of an unquoted value on a command line, which
// also ends where the shell's syntax does (;&|<> and the closing brackets a
// command sits in).
const shellValue = `[^\s"'\\\x00-\x1f;&|<>)\]}` + "`" + `]`

// shellFlagValue is a flag's value: it does not start with '-', which
// would be the next flag.
const shellFlagValue = `[^-\s"'\\\x00-\x1f;&|<>)\]}` + "`" + `]` + shellValue + `*`

// shellArgs are the words between a command and the flag a rule looks for:
// as few as needed, never past a pipe, a ';' or a '&'.
const shellArgs = `(?:[ \t]+` + shellWord + `)*?`

// structuralSpecs run before everything else and may span lines.
func structuralSpecs() []spec {
	return []spec{
		{
			name: "private_tag", family: "<private> span",
			example: "<private>anything, across lines</private>",
			kind:    kindPrivateTag, anchors: privateAnchors, fold: true,
		},
		{
			name: "private_key_block", family: "private key block",
			example: "-----BEGIN RSA PRIVATE KEY-----…-----END RSA PRIVATE KEY----- (also JSON-escaped)",
			anchors: []string{"-----BEGIN"},
			// One line: a whole block with literal \n escapes, or a block cut short. Blocks
			// spread over real lines are handled by the engine's PEM state.
			pattern: pemBeginPat + `(?:.*?` + pemEndPat + `|[A-Za-z0-9+/=\\ \t:,.-]*)`,
		},
	}
}

// rule is a compiled spec.
type rule struct {
	spec
	// The regular expressions are compiled on first use, each on its own:
	// a rule whose anchors never occur costs nothing, and one whose anchor
	// occurs with no secret after it (the "token" of "tokens") compiles
	// only the anchored form. memctl summary redacts on every agent turn.
	reOnce, areOnce sync.Once
	reC             *regexp.Regexp // unanchored, for scanning a whole line
	areC            *regexp.Regexp // anchored at the start, for matching at an anchor hit
	// exotic is set for case-folding rules whose keywords contain k or s: Unicode case
	// folding maps U+212A KELVIN SIGN to k and U+017F LONG S to s, which the ASCII
	// anchor scan cannot see, so lines containing those runes are scanned in full.
	exotic bool
}

// compile makes r the rule of s.
func compile(r *rule, s spec) {
	r.spec = s
	if s.fold && s.kind == kindAnchored {
		for _, a := range s.anchors {
			if strings.ContainsAny(strings.ToLower(a), "ks") {
				r.exotic = true
			}
		}
	}
}

// hasRegexp reports whether the rule matches with a regular expression.
func (r *rule) hasRegexp() bool { return r.pattern != "" }

// re is the unanchored expression.
func (r *rule) re() *regexp.Regexp {
	r.reOnce.Do(func() { r.reC = regexp.MustCompile(r.pattern) })
	return r.reC
}

// are is the expression anchored at the start.
func (r *rule) are() *regexp.Regexp {
	r.areOnce.Do(func() { r.areC = regexp.MustCompile(`^(?:` + r.pattern + `)`) })
	return r.areC
}

// compileAll makes the rules of specs, in one array: the summary makes
// them before every agent session.
func compileAll(specs ...[]spec) []*rule {
	n := 0
	for _, group := range specs {
		n += len(group)
	}
	rules := make([]rule, n)
	out := make([]*rule, 0, n)
	for _, group := range specs {
		for _, s := range group {
			r := &rules[len(out)]
			compile(r, s)
			out = append(out, r)
		}
	}
	return out
}

var (
	// builtinRules are built on first use: a process that redacts nothing
	// pays nothing for them.
	builtinRules = sync.OnceValue(func() []*rule { return compileAll(structuralSpecs(), codexSpecs, memctlSpecs) })
	// codexRules are Codex's four, in the middle of builtinRules.
	codexRules = sync.OnceValue(func() []*rule {
		n := len(structuralSpecs())
		return builtinRules()[n : n+len(codexSpecs)]
	})

	pemBeginRe = lazyre.New(pemBeginPat)
	pemEndRe   = lazyre.New(pemEndPat)
	// assignKeyRe recognises Codex's assignment keyword at the end of a line, for
	// joining "password:\n  value" into one unit the way Codex's \s* would.
	assignKeyRe = lazyre.New(`(?i)(?:api[_-]?key|token|secret|password)$`)
)

// Rule describes one built-in redaction rule.
type Rule struct {
	Name    string // stable identifier, e.g. "github_token"
	Family  string // the secret family the rule belongs to
	Example string // the shape of text it catches
}

// Rules lists the built-in rules in the order they run.
func Rules() []Rule {
	out := make([]Rule, 0, len(builtinRules()))
	for _, r := range builtinRules() {
		out = append(out, Rule{Name: r.name, Family: r.family, Example: r.example})
	}
	return out
}

// codeRefRe matches values that are code, not secrets: dotted references such as
// config.apiKey, process.env.API_TOKEN or creds.extra?.apiKey, and environment
// variable names in capitals.
var codeRefRe = lazyre.New(`^(?:[A-Za-z_$][A-Za-z0-9_$]*(?:[?!]?\.[A-Za-z_$][A-Za-z0-9_$]*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$`)

// hasRandomPart reports whether a value shaped like a code reference has a
// part, between dots or underscores, that reads as generated rather than
// written: twelve characters or more mixing letters and digits. Tokens such
// as hvs.CAESI… (Vault) or dp.st.dev.… (Doppler) are dotted too, and are
// secrets.
func hasRandomPart(v []byte) bool {
	for _, part := range bytes.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '_' }) {
		if len(part) < 12 {
			continue
		}
		letter, digit := false, false
		for _, c := range part {
			letter = letter || isASCIILetter(c)
			digit = digit || '0' <= c && c <= '9'
		}
		if letter && digit {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether a matched value is a stand-in rather than a secret:
// shell or template references, angle-bracket placeholders, masks, earlier redactions.
func isPlaceholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '[':
		return true
	}
	if strings.Contains(string(v), "REDACTED") || codeRefRe().Match(v) && !hasRandomPart(v) {
		return true
	}
	switch strings.ToLower(string(v)) {
	case "undefined", "null", "nil", "none", "true", "false":
		return true
	}
	// Masks: one repeated character such as ******** or xxxxxxxx.
	same := true
	for _, c := range v[1:] {
		if c != v[0] {
			same = false
			break
		}
	}
	return same
}
