package quarantine

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// An order to set the reader's instructions aside has the same structure
// in every language: a verb of setting aside (ignore, vergiss, ignorez,
// olvida, 忽略, забудь) whose object is the reader's own instructions,
// named as such by a noun (instructions, Anweisungen, consignes, reglas,
// 指令, инструкции) and pointed back at by a determiner (previous, your,
// deine, précédentes, tus, 之前, твои). The word classes below hold the
// members of each class in English, German, French, Spanish, Italian,
// Portuguese, Russian, Chinese and Japanese; the rules combine classes,
// never fixed phrases, so any wording built from them is caught, in any
// order the language allows (an infinitive or a Japanese verb comes last).
//
// A word ending in '*' matches as a prefix (inflected languages); the
// others match whole. Entries with a space are word sequences. Han and
// kana entries are matched inside the clause, which has no spaces.
var (
	// setAside are the verbs of setting aside, in the imperative and the
	// infinitive (the two forms an order takes); past forms are left out,
	// since "the agent ignored AGENTS.md" reports, it does not order.
	setAside = sync.OnceValue(func() *class { return newClass(setAsideEntries...) })
	// rulesNoun names what an agent is given to follow.
	rulesNoun = sync.OnceValue(func() *class { return newClass(rulesNounEntries...) })
	// pointsBack are the determiners that make those rules the reader's
	// own: earlier ones, the system's, yours, all of them.
	pointsBack = sync.OnceValue(func() *class {
		return newClass(
			"previous", "prior", "above", "earlier", "preceding", "former", "existing", "original", "initial", "system", "safety", "your", "all", "any",
			"vorherig*", "vorig*", "bisherig*", "obig*", "früher*", "ursprünglich*", "alle", "allen", "deine", "deinen", "deiner", "ihre", "ihren", "eure", "euren", "system*",
			"précédent*", "precedent*", "antérieur*", "anterieur*", "ci-dessus", "initiales", "originales", "tes", "vos", "toutes", "tous", "système", "systeme",
			"anteriores", "previas", "previos", "precedentes", "tus", "sus", "vuestras", "todas", "todos", "sistema",
			"precedenti", "tue", "vostre", "tutte", "originali",
			"prévias", "suas", "tuas",
			"предыдущ*", "прежн*", "вышеуказанн*", "все", "всех", "свои", "твои", "ваши", "системн*", "исходн*",
			"之前", "以前", "先前", "上述", "以上", "上面", "所有", "全部", "你的", "您的", "原来", "原有", "系统", "これまで", "すべて", "全て", "あなたの",
		)
	})
	// negation keeps an order to follow the rules ("don't forget the
	// rules") from reading as one to drop them.
	negation = sync.OnceValue(func() *class {
		return newClass(
			"not", "don't", "dont", "never", "nicht", "nichts", "kein", "keinem", "nie", "niemals", "ne", "n'", "no", "nunca", "non", "não", "nao", "не", "никогда",
			"不要", "别", "勿", "不", "しないで",
		)
	})
	// tellVerb, userNoun and without make the order to hide something
	// from the user: a negated telling whose listener is the user.
	tellVerb = sync.OnceValue(func() *class { return newClass(tellVerbEntries...) })
	userNoun = sync.OnceValue(func() *class {
		return newClass(
			"user", "benutzer*", "nutzer*", "anwender*", "utilisateur*", "utilisatrice*", "usuario*", "usuária", "usuário", "utente",
			"пользовател*", "用户", "使用者", "ユーザー",
		)
	})
	without = sync.OnceValue(func() *class {
		return newClass("without", "ohne", "sans", "sin", "senza", "sem", "без", "不让", "瞒着")
	})
	// newAdj and aiNoun make the other shapes of an injection: a header
	// announcing new instructions, and a line addressed to an AI reader.
	newAdj = sync.OnceValue(func() *class {
		return newClass(
			"new", "updated", "real", "actual", "hidden", "secret",
			"neue", "neuen", "geheime", "echte", "nouvelles", "nouvelle", "vraies", "nuevas", "nuevos", "verdaderas", "nuove", "novas",
			"новые", "новая", "настоящие", "скрытые", "新", "新的", "真正的", "隐藏的", "新しい",
		)
	})
	aiNoun = sync.OnceValue(func() *class {
		return newClass(
			"ai", "ki", "ia", "ии", "llm", "llms", "assistant", "assistants", "assistent*", "asistente*", "assistente*", "ассистент*",
			"agent", "agents", "agenten", "agente", "agentes", "агент*", "claude", "codex", "copilot", "chatgpt",
			"人工智能", "助手", "智能体", "ai助手", "アシスタント",
		)
	})
	addressedTo = sync.OnceValue(func() *class {
		return newClass("to", "for", "für", "an", "pour", "à", "aux", "para", "per", "для", "致", "给")
	})
	noteNoun = sync.OnceValue(func() *class { return newClass(noteNounEntries...) })
)

// The entries of the classes orderTriggers also reads: plain data, so
// its lists need no class built.
var (
	setAsideEntries = []string{
		"ignore", "disregard", "forget", "override", "bypass", "overrule", "supersede", "discard",
		"ignoriere", "ignorier", "ignorieren", "ignoriert", "vergiss", "vergesst", "vergessen", "missachte", "missachtet", "missachten",
		"übergehe", "übergeht", "übergehen", "verwirf", "verwerft", "verwerfen", "umgehe", "umgeht", "umgehen",
		"ignorez", "ignorer", "oublie", "oubliez", "oublier", "néglige", "négligez", "négliger", "outrepasse", "outrepassez", "outrepasser",
		"contourne", "contournez", "contourner", "pas compte",
		"ignora", "ignoren", "ignorad", "ignorar", "olvida", "olvide", "olviden", "olvidad", "olvidar", "omite", "omita", "omitan", "omitir",
		"descarta", "descarte", "descartar", "desobedece", "desobedecer", "caso omiso",
		"ignorate", "ignorare", "dimentica", "dimenticate", "dimenticare", "trascura", "tralascia",
		"esqueça", "esqueca", "esquece", "esquecer", "desconsidere", "desconsiderar",
		"игнорируй", "игнорируйте", "игнорировать", "проигнорируй", "проигнорируйте", "забудь", "забудьте", "забыть",
		"пренебреги", "пренебрегите", "отбрось", "отбросьте", "не обращай", "не обращайте",
		"忽略", "忽视", "无视", "不理会", "忘记", "忘掉", "抛开", "抛弃", "绕过", "無視", "忘れ",
	}
	rulesNounEntries = []string{
		"instruction", "instructions", "prompt", "prompts", "rules", "guidelines", "directives", "directions", "guidance", "constraints",
		"anweisung*", "anleitung*", "regeln", "richtlinien", "vorgaben", "instruktion*", "systemprompt*", "systemanweisung*",
		"consigne*", "règles", "regles", "directive", "invite",
		"instrucción", "instruccion", "instrucciones", "reglas", "directrices", "indicaciones", "pautas", "normas",
		"istruzion*", "regole", "direttive",
		"instruções", "instrucoes", "regras", "diretrizes", "orientações",
		"инструкци*", "указани*", "правил*", "директив*", "промпт*",
		"指令", "指示", "规则", "提示词", "系统提示", "设定", "ルール", "プロンプト",
	}
	tellVerbEntries = []string{
		"tell", "inform", "notify", "alert", "mention", "show",
		"sag", "sage", "sagt", "erzähl", "erzähle", "informiere", "informieren", "benachrichtige", "zeige", "zeig", "mitteilen",
		"dis", "dites", "informe", "informez", "informer", "préviens", "prévenez", "montre", "montrez", "mentionne",
		"digas", "diga", "digan", "informes", "avises", "avisar", "informar", "menciones", "muestres",
		"dire", "dica", "informare", "contar", "conte",
		"говори", "говорите", "сообщай", "сообщайте", "сообщать", "рассказывай", "рассказывайте", "показывай", "показывайте", "упоминай",
		"告诉", "通知", "提及", "透露", "告知", "知らせ", "伝え",
	}
	noteNounEntries = []string{
		"note", "message", "notice", "attention", "hinweis", "nachricht", "achtung", "avis", "nota", "aviso", "mensaje", "messaggio",
		"mensagem", "примечание", "сообщение", "внимание", "注意", "提示", "消息", "备注",
	}
)

// class is a word class: whole words, prefixes, word sequences, and
// entries matched inside a clause (scripts written without spaces).
type class struct {
	whole    map[string]bool
	prefixes []string
	seqs     [][]string
	inside   []string
}

// newClass sorts the entries of a word class by how they match; the
// classes are built on first use (sync.OnceValue), never at start-up.
func newClass(entries ...string) *class {
	c := &class{whole: map[string]bool{}}
	for _, e := range entries {
		switch {
		case unspaced(e):
			c.inside = append(c.inside, e)
		case strings.Contains(e, " "):
			c.seqs = append(c.seqs, strings.Fields(e))
		case strings.HasSuffix(e, "*"):
			c.prefixes = append(c.prefixes, strings.TrimSuffix(e, "*"))
		default:
			c.whole[e] = true
		}
	}
	return c
}

// unspaced reports text in a script written without spaces (Han, kana).
func unspaced(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// at reports whether the class has a member starting at word i of ws, and
// how many words it spans.
func (c *class) at(ws []string, i int) (int, bool) {
	w := ws[i]
	if c.whole[w] {
		return 1, true
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(w, p) {
			return 1, true
		}
	}
	for _, s := range c.seqs {
		if i+len(s) <= len(ws) && equalWords(ws[i:i+len(s)], s) {
			return len(s), true
		}
	}
	return 0, false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// clause is one sentence of a line, as words and as the raw text (for
// the scripts written without spaces).
type clause struct {
	words    []string
	text     string
	question bool
}

// clauses splits a line into sentences: at '.', '!', '?', ';' and ':'
// followed by a space or the end (a URL or a file name keeps its dots),
// and at the full-width marks of Chinese and Japanese. Every word is
// folded to the script it is mostly written in, so a Cyrillic word with
// a Latin letter slipped in reads as Cyrillic, and a Latin one with a
// Cyrillic lookalike as Latin.
func clauses(line string) []clause {
	line = norm.NFKC.String(line)
	var out []clause
	start := 0
	flush := func(end int, question bool) {
		text := strings.TrimSpace(line[start:end])
		if text != "" {
			out = append(out, clause{words: words(text), text: strings.ToLower(text), question: question})
		}
	}
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		next := i + size
		switch r {
		case '.', '!', '?', ';', ':':
			if next == len(line) || line[next] == ' ' || line[next] == '\t' {
				flush(i, r == '?')
				start = next
			}
		case '。', '！', '？', '；', '：':
			flush(i, r == '？')
			start = next
		case '“', '”', '«', '»', '„', '「', '」', '"':
			// A quotation opens its own clause: "the agent said “…”".
			flush(i, false)
			start = next
		}
		i = next
	}
	flush(len(line), false)
	return out
}

// words splits a clause into lowercase words of letters, digits, '-',
// '_' and apostrophes, each folded to its own script.
func words(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '\'' || r == '’' || unicode.Is(unicode.Mn, r))
	}) {
		f = strings.Trim(strings.ReplaceAll(strings.ToLower(f), "’", "'"), "-_'")
		if f == "" {
			continue
		}
		out = append(out, foldWord(f))
		// French and Italian glue an article to the noun (l'utilisateur).
		if _, after, ok := strings.Cut(f, "'"); ok && after != "" {
			out = append(out, foldWord(after))
		}
	}
	return out
}

// latinToCyrillic holds the Latin letters that look like Cyrillic ones,
// slipped into a Russian word to break a match.
const (
	latinLooks    = "aeopcyxk"
	cyrillicLooks = "аеорсухк"
)

func foldWord(w string) string {
	cyr, lat := 0, 0
	for _, r := range w {
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
		case unicode.Is(unicode.Latin, r):
			lat++
		}
	}
	if cyr > 0 && cyr >= lat {
		return strings.Map(func(r rune) rune {
			if i := strings.IndexRune(latinLooks, r); i >= 0 {
				return []rune(cyrillicLooks)[i]
			}
			return r
		}, w)
	}
	return strings.ToLower(fold(w))
}

// find returns the word positions where the class has a member, and for
// the unspaced entries, whether the clause holds one.
func (c *class) find(cl clause) []int {
	var at []int
	for i := range cl.words {
		if _, ok := c.at(cl.words, i); ok {
			at = append(at, i)
		}
	}
	return at
}

// insideAt returns the byte offsets in the clause's text where an
// unspaced member starts.
func (c *class) insideAt(cl clause) []int {
	var at []int
	for _, e := range c.inside {
		for off := 0; ; {
			i := strings.Index(cl.text[off:], e)
			if i < 0 {
				break
			}
			at = append(at, off+i)
			off += i + len(e)
		}
	}
	return at
}

// Window sizes of the order rules, in words (in bytes for the scripts
// without spaces, where a Han character takes three).
const (
	orderWindow  = 8
	hanWindow    = 3 * 14
	modifierNear = 2
)

// setsRulesAside reports a clause that orders the reader to set its own
// instructions aside: a verb of setting aside, not negated, within a few
// words of a noun for instructions that a determiner points back at the
// reader (or "system prompt", which needs none). Questions are not
// orders.
func setsRulesAside(cl clause) bool {
	if cl.question {
		return false
	}
	verbs := setAside().find(cl)
	nouns := rulesNoun().find(cl)
	for _, v := range verbs {
		if negated(cl, v) || !orderPosition(cl, v) {
			continue
		}
		for _, n := range nouns {
			if abs(n-v) > orderWindow || n == v {
				continue
			}
			if pointedBack(cl, n) {
				return true
			}
		}
	}
	// Han and kana: the same three classes, by position in the text.
	hv, hn := setAside().insideAt(cl), rulesNoun().insideAt(cl)
	if len(hv) == 0 || len(hn) == 0 {
		return false
	}
	hp := pointsBack().insideAt(cl)
	for _, v := range hv {
		if negatedInside(cl, v) {
			continue
		}
		for _, n := range hn {
			if abs(n-v) > hanWindow {
				continue
			}
			if strings.HasPrefix(cl.text[n:], "系统提示") {
				return true
			}
			for _, p := range hp {
				if abs(p-n) <= hanWindow && (p-v)*(p-n) <= 0 || abs(p-n) <= hanWindow/2 {
					return true
				}
			}
		}
	}
	return false
}

// orderPosition reports a verb at the place an order puts it: first in
// its clause, past adverbs ("please", "now"), an addressee ("you",
// "agents", "du", "vous") and a modal ("must", "sollst", "debes",
// "должен"); or last, where an infinitive order and a verb-final
// language put it ("alle vorherigen Anweisungen ignorieren"). A verb
// after its subject ("the skills override …") reports, it does not order.
func orderPosition(cl clause, v int) bool {
	if v >= len(cl.words)-2 {
		return true
	}
	for i := 0; i < v; i++ {
		w := cl.words[i]
		if _, ok := leadAdverb().at(cl.words, i); ok || addressee()[w] || modalWord()[w] {
			continue
		}
		return false
	}
	return true
}

// addressee and modalWord are the words that may stand before the verb
// of an order: who it is addressed to, and what makes it one. They are
// built on first use, as the classes are: summary links this package, and
// most of its lines never get this far.
var (
	addressee = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"you": true, "agent": true, "agents": true, "assistant": true, "ai": true, "claude": true, "codex": true, "model": true,
			"du": true, "ihr": true, "sie": true, "tu": true, "vous": true, "tú": true, "usted": true, "ustedes": true, "voi": true, "você": true,
			"ты": true, "вы": true, "important": true, "wichtig": true, "importante": true, "важно": true,
		}
	})
	modalWord = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"must": true, "should": true, "shall": true, "need": true, "needs": true, "have": true, "to": true, "will": true, "are": true,
			"musst": true, "müsst": true, "müssen": true, "sollst": true, "solltest": true, "sollt": true, "sollen": true,
			"dois": true, "devez": true, "doit": true, "debes": true, "debe": true, "deben": true, "tienes": true, "tiene": true, "que": true,
			"devi": true, "deve": true, "должен": true, "должна": true, "должны": true, "нужно": true, "надо": true,
		}
	})
)

// pointedBack reports a determiner next to the noun at n, or a noun that
// names the system's own instructions.
func pointedBack(cl clause, n int) bool {
	w := cl.words[n]
	if strings.HasPrefix(w, "systemprompt") || strings.HasPrefix(w, "systemanweisung") {
		return true
	}
	if n > 0 && (cl.words[n-1] == "system" || cl.words[n-1] == "developer") {
		return true
	}
	pb := pointsBack()
	for i := max(0, n-modifierNear-1); i <= min(len(cl.words)-1, n+modifierNear); i++ {
		if i == n {
			continue
		}
		if _, ok := pb.at(cl.words, i); ok {
			return true
		}
	}
	return false
}

// negated reports a negation just before the word at i ("don't forget",
// "не забудь", "no olvides") or just after it (German "vergiss nicht").
func negated(cl clause, i int) bool {
	ng := negation()
	for _, j := range []int{i - 1, i - 2, i + 1} {
		if j < 0 || j >= len(cl.words) {
			continue
		}
		if _, ok := ng.at(cl.words, j); ok {
			return true
		}
	}
	return false
}

func negatedInside(cl clause, off int) bool {
	before := cl.text[:off]
	for _, n := range negation().inside {
		if strings.HasSuffix(before, n) || strings.HasSuffix(strings.TrimRight(before, "请"), n) {
			return true
		}
	}
	return false
}

// hidesFromUser reports a clause that orders something kept from the
// user: a negation (or "without") before a verb of telling, before the
// user as its listener.
func hidesFromUser(cl clause) bool {
	if cl.question {
		return false
	}
	tells := tellVerb().find(cl)
	users := userNoun().find(cl)
	for _, t := range tells {
		if !negated(cl, t) && !afterWithout(cl, t) && !negatedLater(cl, t) {
			continue
		}
		for _, u := range users {
			if u != t && abs(u-t) <= 4 {
				return true
			}
		}
	}
	for _, t := range tellVerb().insideAt(cl) {
		if !negatedInside(cl, t) && !strings.Contains(cl.text[:t], "不让") && !strings.Contains(cl.text[:t], "瞒着") {
			continue
		}
		for _, u := range userNoun().insideAt(cl) {
			if u > t && u-t <= 3*6 {
				return true
			}
		}
	}
	return false
}

// negatedLater reports a negation a few words after the verb at i, where
// German puts it ("sag dem Benutzer nichts").
func negatedLater(cl clause, i int) bool {
	for j := i + 2; j < len(cl.words) && j <= i+4; j++ {
		if _, ok := negation().at(cl.words, j); ok {
			return true
		}
	}
	return false
}

func afterWithout(cl clause, i int) bool {
	for j := max(0, i-2); j < i; j++ {
		if _, ok := without().at(cl.words, j); ok {
			return true
		}
	}
	return false
}

// announcesRules reports a clause that opens new instructions for the
// reader ("New instructions:", "Neue Anweisungen:", "新指令："): an
// adjective of newness right before a noun for instructions, and the
// clause ends the sentence at a colon.
func announcesRules(low string, cls []clause) bool {
	for _, cl := range cls {
		for _, n := range rulesNoun().find(cl) {
			if calledNew(cl, n) && endsWithColon(low, cl) {
				return true
			}
		}
		for _, n := range rulesNoun().insideAt(cl) {
			for _, a := range newAdj().insideAt(cl) {
				if a < n && n-a <= 3*3 && endsWithColon(low, cl) {
					return true
				}
			}
		}
	}
	return false
}

// calledNew reports an adjective of newness just before the word at n
// ("new instructions", "neue Anweisungen").
func calledNew(cl clause, n int) bool {
	for _, j := range []int{n - 1, n - 2} {
		if j >= 0 {
			if _, ok := newAdj().at(cl.words, j); ok {
				return true
			}
		}
	}
	return false
}

// endsWithColon reports a clause followed by a colon in low, the line
// as clauses read it (NFKC, lower case).
func endsWithColon(low string, cl clause) bool {
	i := strings.Index(low, cl.text)
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(low[i+len(cl.text):], " ")
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "：")
}

// addressesAI reports a line that opens by addressing an AI reader: a
// word for a note, "to" or "for" and a word for an AI ("Note to AI
// agents:", "Hinweis für KI-Agenten:", "Nota para el asistente,"), or,
// with a colon, the address alone ("To the assistant:", "致AI助手：").
func addressesAI(low string, cls []clause) bool {
	for _, cl := range cls {
		if addressClause(low, cl) {
			return true
		}
	}
	return false
}

func addressClause(low string, cl clause) bool {
	colon := endsWithColon(low, cl)
	if !colon && !strings.Contains(cl.text, ",") {
		return false
	}
	ws := cl.words
	for i := 0; i < len(ws) && i < 6; i++ {
		if _, ok := addressedTo().at(ws, i); !ok {
			continue
		}
		noted := false
		for k := 0; k < i; k++ {
			if _, ok := noteNoun().at(ws, k); ok {
				noted = true
			}
		}
		if !noted && !(i == 0 && colon && wholeAddress(ws)) {
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+4; j++ {
			for _, part := range strings.Split(ws[j], "-") {
				if _, ok := aiNoun().at([]string{part}, 0); ok {
					return true
				}
			}
		}
	}
	if !colon {
		return false
	}
	for _, p := range addressedTo().insideAt(cl) {
		for _, a := range aiNoun().insideAt(cl) {
			if p == 0 && a > p && a-p <= 3*2 {
				return true
			}
		}
	}
	return false
}

// wholeAddress reports a clause that is an address and nothing more:
// "to" or "for", determiners, and words for an AI ("To the assistant",
// "For all AI agents").
func wholeAddress(ws []string) bool {
	for _, w := range ws[1:] {
		switch w {
		case "the", "all", "any", "every", "den", "die", "alle", "les", "le", "la", "tous", "los", "las", "todos", "el", "gli", "i", "всех":
			continue
		}
		if _, ok := aiNoun().at([]string{w}, 0); ok {
			continue
		}
		if parts := strings.Split(w, "-"); len(parts) > 1 {
			if _, ok := aiNoun().at(parts[:1], 0); ok {
				continue
			}
		}
		return false
	}
	return len(ws) > 1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ordersInWords reports an order to an AI reader written in words, in
// any of the languages of the word classes: setting its instructions
// aside, hiding something from the user, announcing new instructions,
// or addressing it as an AI.
func ordersInWords(line string) bool {
	cls := clauses(line)
	for _, cl := range cls {
		if setsRulesAside(cl) || hidesFromUser(cl) {
			return true
		}
	}
	if !strings.ContainsAny(line, ":：,，") {
		return false
	}
	low := strings.ToLower(norm.NFKC.String(line))
	return announcesRules(low, cls) || addressesAI(low, cls)
}
