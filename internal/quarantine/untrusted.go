package quarantine

import (
	"regexp"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/lazyre"
)

// Text that did not come from the user's own sessions or the user at the
// command line (a note an agent wrote over MCP, memory from another
// machine or a bundle, a team file of a repository) has no session to
// vouch for any command or URL in it. It is held whole for the user's
// review when a line has, besides what Strong holds everywhere, one of
// these shapes, whatever the language around them:
//
//   - a destructive git or CI action (a forced push, a hard reset,
//     deleted branches or workflows, hooks or CI switched off);
//   - a credential's path (~/.ssh, ~/.aws/credentials, .netrc, …), or the
//     environment read next to a way out (a URL, a network tool);
//   - a URL to fetch or post to: in an imperative clause or next to a
//     word for instructions, as a Markdown image (which a viewer fetches
//     by itself), carrying a credential or a shell substitution, posted
//     to, or pointing at a script or a rules file;
//   - a command that runs code it was not shown: a pipe into a shell or
//     an interpreter, eval, inline interpreter code, a decoder, sudo,
//     removal of what cannot come back, persistence in the user's shell
//     or scheduler, a raw socket; and a command ordered to run that
//     installs a named package or reaches the network.
//
// Ordinary memory passes: "run `go test ./...` before pushing" orders a
// command that is none of these, and "the API is at https://…/docs"
// names a URL without ordering anything.

// Reasons only text from an untrusted origin is held for.
const (
	// ReasonDestructive: a destructive git or CI action.
	ReasonDestructive = "destructive_action"
	// ReasonCredentialPath: a path to credentials or keys.
	ReasonCredentialPath = "credential_path"
)

var (
	destructiveRe = lazyre.New(`(?i)` +
		`\bgit\b[^\n|;&]{0,80}?\bpush\b[^\n|;&]{0,160}?(?:\s--force(?:-with-lease|-if-includes)?\b|\s-[a-z]*f[a-z]*\b|\s--delete\b|\s-d\b|\s--mirror\b|\s\+[\w/.-]+|\s:[\w][\w/.-]*)` +
		`|\bgit\s+(?:-\S+\s+)*reset\b[^\n|;&]{0,80}--hard\b` +
		`|\bgit\s+(?:-\S+\s+)*clean\s+-[a-z]*f` +
		`|\bgit\s+(?:-\S+\s+)*branch\s+(?:[^\n|;&]{0,40}\s)?(?:-d\b|-D\b|--delete\b)` +
		`|\bgit\s+(?:-\S+\s+)*(?:filter-branch|filter-repo)\b|\bgit\s+update-ref\s+-d\b|\bgit\s+reflog\s+expire\b|\bgit\s+stash\s+clear\b` +
		`|\bgit\s+(?:-\S+\s+)*checkout\s+(?:-f\b|--\s+\.)|\bgit\s+tag\s+(?:-d|--delete)\b` +
		`|\bgit\s+(?:-\S+\s+)*config\b[^\n|;&]{0,40}core\.hookspath` +
		`|\bgh\s+(?:repo|release|secret|variable|workflow|run|cache|ruleset)\s+(?:delete|disable|remove|cancel)\b` +
		`|\bgh\s+api\b[^\n|;&]{0,120}(?:-x\s*delete|--method[= ]delete)` +
		`|\b(?:rm|del|unlink|git\s+rm|remove-item|rmdir)\b[^\n|;&]{0,80}\.github/workflows` +
		`|\b(?:rm|chmod|unlink)\b[^\n|;&]{0,40}\.git/hooks` +
		`|--no-verify\b|\bhusky(?:_skip_hooks)?=\s*["']?(?:0|1|true)|\bpre-commit\s+uninstall\b` +
		`|\[(?:skip ci|ci skip|no ci|skip actions|actions skip)\]|\bskip_ci\s*=` +
		`|\bforce[- ]push(?:ed|es|ing)?\b`)
	// A negation just before a destructive action makes it a rule
	// against it ("never `git push --force` to main").
	forbidsRe = lazyre.New(`(?i)(?:\bnever|\bdon'?t|\bdo not|\bnot|\bno|\bavoid|\bnie|\bniemals|\bjamais|\bnunca|(?:^|\s)никогда|(?:^|\s)не|不要|禁止|别)\s*(?:(?:run|use|ever|do)\s+)?$`)

	credentialRe = lazyre.New(`(?i)~/\.ssh\b|\$\{?home\}?/\.ssh\b|\.ssh/(?:id_|authorized_keys|config\b)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b` +
		`|\.aws/(?:credentials|config)\b|\.netrc\b|\.git-credentials\b|\.kube/config\b|\.docker/config\.json|/etc/(?:shadow|passwd|sudoers)\b` +
		`|\.pypirc\b|\.npmrc\b|\.config/gh/hosts\.yml|\.gnupg\b|\.keychain(?:-db)?\b|\.password-store\b|\.vault-token\b` +
		`|gcloud/(?:credentials|application_default_credentials)|\.azure/(?:accesstokens|msal_token_cache)`)
	envReadRe   = lazyre.New(`(?i)\bos\.environ\b|\bprocess\.env\b|\bos\.getenv\b|\bgetenv\s*\(|\bprintenv\b|\$\(\s*env\s*\)|\benv\s*\||\bENV\[|%ENV\b|\$env:|(?:^|[\s/'"=@<])\.env\b`)
	envSampleRe = lazyre.New(`(?i)\.env\.(?:example|sample|template|dist|defaults)\b`)

	markdownImageRe = lazyre.New(`!\[[^\]\n]*\]\(\s*<?(https?://[^\s)>]+)`)
	markdownLinkRe  = lazyre.New(`\[[^\]\n]*\]\(\s*<?(https?://[^\s)>]+)`)
	// What a URL carries when it is a way out for secrets: a shell
	// substitution, a credential's name in its query, a key's path.
	urlCarriesRe = lazyre.New(`(?i)\$\(|\$\{|\$[A-Z_]{3,}|%24%28|%24%7b|` + "`" +
		`|[?&][^=&#]*(?:token|secret|passw|pwd|api[_-]?key|access[_-]?key|auth|session|cookie|credential|private|ssh|aws|env)[^=&#]*=` +
		`|\.ssh|\.aws|id_rsa|credentials|\.env\b|environ`)
	urlScriptRe = lazyre.New(`(?i)\.(?:sh|bash|zsh|ps1|psm1|py|pl|rb|bat|cmd|exe|msi|pkg|dmg|deb|rpm|apk|jar|vbs|scr)$`)
	// A long opaque value in a URL is data on its way out.
	opaqueDataRe = lazyre.New(`[=/][A-Za-z0-9+_%-]{40,}={0,2}(?:[&#]|$)`)
	urlRulesRe   = lazyre.New(`(?i)(?:rules|instructions?|prompts?|system|jailbreak|agents\.md|claude\.md|\.cursorrules|copilot-instructions)`)
	postRe       = lazyre.New(`-X\s*["']?(?i:post|put)\b|--request[= ]["']?(?i:post|put)\b|\s-d\s|\s-d["'@$]|--data\b|--data-\w+\b|\s-F\s|--form\b|--upload-file\b|\s-T\s|--post-data\b|--post-file\b` +
		`|(?i:\brequests\.(?:post|put)\s*\(|\.post\s*\(|method\s*:\s*["']post|-method\s+post\b|\b(?:http|https|xh)\s+(?:post|put)\b|\binvoke-restmethod\b)`)

	pipeIntoRe = lazyre.New(`(?i)\|\s*` + runAs + `(?:/usr)?(?:/local)?(?:/bin/)?(?:(?:ba|z|da|k|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node|nodejs|php|pwsh|powershell|iex|invoke-expression|osascript|lua|deno|bun|tclsh|source)\b`)
	evalRe     = lazyre.New(`(?i)\beval\s*[("'$` + "`" + `]|\bexec\s*\(\s*(?:compile|__import__|base64|bytes|requests|urllib)|(?:^|[\s;&|(])(?:source|\.)\s+<\(|\b(?:ba|z|da|k)?sh\s+-c\s+["']?[^"'\n]*\$\(|\biex\s*\(|\binvoke-expression\b`)
	inlineRe   = lazyre.New(`(?i)\b(?:python[0-9.]*|node|nodejs|perl|ruby|deno|bun)\s+(?:-[a-z]+\s+)*-(?:c|e|-eval)\b|\bphp\s+-r\b|\b(?:pwsh|powershell)(?:\.exe)?\s+[^\n]{0,40}-(?:enc|encodedcommand|command|c)\b`)
	decodeRe   = lazyre.New(`(?i)\bbase64\s+(?:-[a-z]*\s+)*(?:-d\b|-D\b|--decode\b)|\bxxd\s+-r|\bopenssl\s+(?:enc|base64)\b[^\n|]*\s-d\b|frombase64string|\batob\s*\(|\bb64decode\b`)
	privRe     = lazyre.New(`(?i)(?:^|[\s;&|(` + "`" + `])(?:sudo|doas)\s+\S|(?:^|[\s;&|(` + "`" + `])su\s+-`)
	wipeRe     = lazyre.New(`(?i)\brm\s+(?:-[a-z]+\s+)*-[a-z]*r[a-z]*\s+(?:-[a-z]+\s+)*(?:/(?:\s|$|\*)|/(?:etc|usr|bin|boot|lib|var|home|opt|root|users)\b|~|\$\{?home\b|\*|\.\.|\.git\b|\.github\b)|\bmkfs\b|\bdd\s+[^\n]*of=/dev/|\bchmod\s+(?:-r\s+)?(?:0?777|[ugoa]*\+s)\b|\bchown\s+-r\s+\S+\s+(?:/|~)`)
	persistRe  = lazyre.New(`(?i)>>?\s*(?:~|\$home|\$\{home\})?/?\S*\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv)\b|\bcrontab\b|\blaunchctl\s+(?:load|bootstrap)\b|\bsystemctl\s+(?:--user\s+)?enable\b|authorized_keys`)
	socketRe   = lazyre.New(`(?i)\b(?:nc|ncat|netcat|socat|telnet)\s+\S|/dev/tcp/|/dev/udp/`)
	installRe  = lazyre.New(`(?i)\b(?:pip3?|pipx|uv\s+pip|npm|pnpm|yarn|bun|gem|cargo|go|brew|apt|apt-get|dnf|yum|apk|choco|winget|composer)\s+(?:install|i|add|get)\b([^\n|;&` + "`" + `]*)|\b(?:npx|pnpx|bunx|uvx)\s+(\S+)`)
	netToolRe  = lazyre.New(`(?i)\b(?:curl|wget|scp|sftp|rsync|ssh|ftp|iwr|irm|invoke-webrequest|invoke-restmethod)\b`)
)

// The verbs that put a URL in an imperative clause (fetch it, read it,
// follow it), and those that make a backticked command an order (run
// it), in the languages of the word classes; and the adverbs that may
// stand before them ("please", "first", "always").
var (
	fetchVerb = sync.OnceValue(func() *class {
		return newClass(
			"fetch", "download", "visit", "open", "browse", "navigate", "go", "load", "retrieve", "read", "get", "curl", "wget", "pull",
			"install", "follow", "obey", "apply", "import", "source", "include", "post", "send", "upload", "submit",
			"lade", "ladet", "lies", "lest", "öffne", "öffnet", "besuche", "besucht", "hole", "holt", "rufe", "ruft", "folge", "folgt", "befolge", "befolgt",
			"sende", "sendet", "schicke", "schickt", "herunterladen", "befolgen", "öffnen", "lesen",
			"télécharge", "téléchargez", "lis", "lisez", "ouvre", "ouvrez", "visite", "visitez", "récupère", "récupérez", "suis", "suivez",
			"consulte", "consultez", "envoie", "envoyez", "charge", "chargez", "applique", "appliquez",
			"descarga", "descargue", "lee", "lea", "abre", "abra", "visita", "obtén", "sigue", "siga", "consulta", "consulte", "envía", "envia", "aplica", "carga",
			"scarica", "leggi", "apri", "segui", "invia", "baixe", "leia", "visite", "envie",
			"скачай", "скачайте", "загрузи", "загрузите", "открой", "откройте", "прочитай", "прочитайте", "прочти", "прочтите",
			"зайди", "зайдите", "перейди", "перейдите", "следуй", "следуйте", "отправь", "отправьте", "посети", "посетите", "изучи", "примени",
			"下载", "访问", "打开", "读取", "获取", "按照", "遵循", "遵照", "发送", "浏览", "加载", "阅读", "ダウンロード", "開いて", "アクセス", "従って", "読んで",
		)
	})
	followVerb = sync.OnceValue(func() *class {
		return newClass(
			"follow", "obey", "befolge", "befolgt", "befolgen", "folge", "suis", "suivez", "suivre", "respecte", "respectez",
			"sigue", "siga", "seguir", "segui", "obedece", "следуй", "следуйте", "следовать", "выполни", "выполните", "соблюдай",
			"按照", "遵循", "遵照", "服从", "遵守", "従って", "従う",
		)
	})
	runVerb = sync.OnceValue(func() *class {
		return newClass(
			"run", "execute", "exec", "invoke", "type", "paste", "enter",
			"führe", "führt", "starte", "startet", "ausführen", "tippe", "exécute", "exécutez", "lance", "lancez", "tape", "tapez",
			"ejecuta", "ejecute", "corre", "lanza", "escribe", "esegui", "lancia", "digite", "rode",
			"выполни", "выполните", "запусти", "запустите", "введи", "введите",
			"运行", "执行", "输入", "実行",
		)
	})
	leadAdverb = sync.OnceValue(func() *class {
		return newClass(
			"please", "kindly", "always", "first", "then", "now", "next", "also", "just", "immediately",
			"bitte", "immer", "zuerst", "dann", "jetzt", "sofort", "auch",
			"toujours", "d'abord", "abord", "puis", "maintenant", "ensuite", "aussi",
			"favor", "por", "siempre", "primero", "luego", "ahora", "después", "también",
			"sempre", "prima", "poi", "ora", "primeiro", "depois", "agora",
			"пожалуйста", "всегда", "сначала", "затем", "потом", "теперь", "сейчас", "также",
			"请", "先", "首先", "然后", "现在", "总是", "务必",
		)
	})
)

// Untrusted returns the reason a line of text from an untrusted origin
// is held back for review, or "": what Strong holds everywhere, then the
// shapes above.
func Untrusted(line string) string {
	if r := Strong(line); r != "" {
		return r
	}
	l := fold(normalise(line))
	if l == "" {
		return ""
	}
	if destructive(l) {
		return ReasonDestructive
	}
	noPub := publicKeyRe().ReplaceAllString(l, "")
	if credentialRe().MatchString(noPub) {
		return ReasonCredentialPath
	}
	if envReadRe().MatchString(envSampleRe().ReplaceAllString(l, "")) && (remoteURL(l) || toolSinkRe().MatchString(l) && remoteTarget(l) || verbSinkRe().MatchString(l) && emailRe().MatchString(l)) {
		return ReasonExfiltration
	}
	if r := urlShape(line, l); r != "" {
		return r
	}
	if runsUnseenCode(l) {
		return ReasonUnverifiedCommand
	}
	if ordersRisky(line, l) {
		return ReasonUnverifiedCommand
	}
	return ""
}

// destructive reports a destructive git or CI action that no negation
// just before it turns into a rule against it.
func destructive(l string) bool {
	for _, loc := range destructiveRe().FindAllStringIndex(l, -1) {
		start := loc[0]
		// A command is forbidden as a whole: look before its first word.
		if i := strings.LastIndexAny(l[:start], "`\"'"); i >= 0 && !strings.ContainsAny(l[i+1:start], "`\"'") && strings.TrimSpace(l[i+1:start]) == "" {
			start = i
		}
		if !forbidsRe().MatchString(l[:start]) {
			return true
		}
	}
	return false
}

// urlShape returns why a line's URLs make it a way out or an order to
// fetch: see the package's list. line is the text as written (clauses
// fold it word by word), l normalised.
func urlShape(line, l string) string {
	if !strings.Contains(strings.ToLower(l), "http") {
		return ""
	}
	// A viewer fetches an image unasked, and a reader clicks a link: what
	// their URLs carry leaves with the request.
	for _, re := range []func() *regexp.Regexp{markdownImageRe, markdownLinkRe} {
		for _, m := range re().FindAllStringSubmatch(l, -1) {
			if !localURLRe().MatchString(m[1]) && (urlCarriesRe().MatchString(queryAndPath(m[1])) || opaqueDataRe().MatchString(queryAndPath(m[1]))) {
				return ReasonExfiltration
			}
		}
	}
	var remote []string
	for _, u := range urlRe().FindAllString(l, -1) {
		u = strings.TrimRight(u, ".,;:!?")
		if !localURLRe().MatchString(u) {
			remote = append(remote, u)
		}
	}
	if len(remote) == 0 {
		return ""
	}
	for _, u := range remote {
		pq := queryAndPath(u)
		switch {
		case urlCarriesRe().MatchString(pq):
			return ReasonExfiltration
		case urlScriptRe().MatchString(pathOf(pq)), urlRulesRe().MatchString(pq):
			return ReasonFetchURL
		}
	}
	if postRe().MatchString(" " + l) {
		return ReasonExfiltration
	}
	if fetchRe().MatchString(l) {
		return ReasonFetchURL
	}
	for _, cl := range clauses(line) {
		if !strings.Contains(cl.text, "http") {
			continue
		}
		if leadsWith(cl, fetchVerb) || imperativeInside(cl, fetchVerb) || len(followVerb().find(cl)) > 0 || len(followVerb().insideAt(cl)) > 0 ||
			readersRules(cl) {
			return ReasonFetchURL
		}
	}
	return ""
}

// readersRules reports a clause that names the reader's own rules ("your
// real instructions", "die neuen Regeln", "所有规则"): next to a URL, a
// place to take orders from.
func readersRules(cl clause) bool {
	for _, n := range rulesNoun().find(cl) {
		if pointedBack(cl, n) || calledNew(cl, n) {
			return true
		}
	}
	return len(rulesNoun().insideAt(cl)) > 0 && (len(pointsBack().insideAt(cl)) > 0 || len(newAdj().insideAt(cl)) > 0)
}

// pathOf is a URL's path without its query and fragment.
func pathOf(pq string) string {
	if i := strings.IndexAny(pq, "?#"); i >= 0 {
		return pq[:i]
	}
	return pq
}

// queryAndPath is what follows a URL's host.
func queryAndPath(u string) string {
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// leadsWith reports a clause whose first word, past the adverbs that may
// open an order, is a member of verbs: the imperative's place in the
// languages of the classes.
func leadsWith(cl clause, verbs func() *class) bool {
	ws := cl.words
	i := 0
	for i < len(ws) {
		if _, ok := leadAdverb().at(ws, i); !ok {
			break
		}
		i++
	}
	// "you must", "agents should", "du musst": a modal order.
	if i+1 < len(ws) && modal(ws[i], ws[i+1]) {
		i += 2
	}
	if i < len(ws) {
		_, ok := verbs().at(ws, i)
		return ok
	}
	return false
}

func modal(subject, verb string) bool {
	switch subject {
	case "you", "agents", "agent", "assistant", "du", "ihr", "sie", "tu", "vous", "tú", "usted", "ты", "вы":
	default:
		return false
	}
	switch verb {
	case "must", "should", "shall", "need", "have", "musst", "müsst", "müssen", "sollst", "sollt", "sollen", "dois", "devez", "debes", "debe", "должен", "должны", "должна":
		return true
	}
	return false
}

// imperativeInside reports an unspaced verb of the class at the start of
// the clause, after the adverbs ("请先访问…", "然后下载…").
func imperativeInside(cl clause, verbs func() *class) bool {
	t := cl.text
	for changed := true; changed; {
		changed = false
		for _, a := range leadAdverb().inside {
			if rest, ok := strings.CutPrefix(t, a); ok {
				t, changed = rest, true
			}
		}
	}
	for _, v := range verbs().inside {
		if strings.HasPrefix(t, v) {
			return true
		}
	}
	return false
}

// runsUnseenCode reports a command that runs code the reader is not
// shown: see the package's list.
func runsUnseenCode(l string) bool {
	if t := strings.TrimSpace(l); strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") {
		// A Markdown table's row: its bars are no pipes, the commands
		// in its cells are.
		var cells []string
		for _, m := range backtickRe().FindAllStringSubmatch(l, -1) {
			cells = append(cells, m[1])
		}
		l = strings.Join(cells, "\n")
	}
	for _, re := range []func() *regexp.Regexp{pipeIntoRe, evalRe, inlineRe, decodeRe, privRe, wipeRe, persistRe, socketRe} {
		if re().MatchString(l) {
			return true
		}
	}
	return false
}

// ordersRisky reports a command ordered to run (an imperative verb of
// running before a backticked command, in any language of the classes)
// that installs a named package or reaches the network.
func ordersRisky(line, l string) bool {
	if !strings.Contains(l, "`") {
		return false
	}
	var ordered []string
	for _, m := range runCmdRe().FindAllStringSubmatch(l, -1) {
		ordered = append(ordered, m[1])
	}
	for _, cl := range clauses(line) {
		if leadsWith(cl, runVerb) || imperativeInside(cl, runVerb) {
			for _, m := range backtickRe().FindAllStringSubmatch(cl.text, -1) {
				ordered = append(ordered, m[1])
			}
		}
	}
	for _, c := range ordered {
		if installsPackage(c) || netToolRe().MatchString(c) && remoteTarget(c) {
			return true
		}
	}
	return false
}

var backtickRe = lazyre.New("`([^`\n]{2,300})`")

// installsPackage reports an install command that names a package (not
// the project's own: `npm install`, `go get ./...`, `pip install -e .`).
func installsPackage(c string) bool {
	for _, m := range installRe().FindAllStringSubmatch(c, -1) {
		if m[2] != "" {
			return true // npx and its kind run a package by name
		}
		args := strings.Fields(m[1])
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-r" || a == "--requirement" || a == "-c" || a == "--constraint":
				i++ // its file is the project's
			case strings.HasPrefix(a, "-"), strings.HasPrefix(a, "."), strings.HasPrefix(a, "/"):
			default:
				return true
			}
		}
	}
	return false
}

// Hold checks text from an untrusted origin line by line and returns the
// lines Untrusted holds, numbered as in text; field names the text. The
// text itself is not changed: an item from an untrusted origin is held
// whole, for the user to approve or reject.
func Hold(field, text string) []Item {
	var items []Item
	for i, line := range strings.Split(text, "\n") {
		if r := Untrusted(line); r != "" {
			items = append(items, Item{Field: field, Line: i + 1, Reason: r, Text: excerpt(normalise(line))})
		}
	}
	return items
}
