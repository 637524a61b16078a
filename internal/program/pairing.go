package program

import (
	"slices"
	"strings"
)

// Pairing: a failure stays open until a run of the same work covering its targets passes, or fails with another
// error line; the pair lists what ran between. The offline extractor and the regret ledger both pair this way.

// Outcome is how a run ended, from its exit status or the tool's error flag only; Unknown without either.
type Outcome int

// The outcomes.
const (
	Unknown Outcome = iota
	Passed
	Failed
)

// Run is one command as the pairing reads it.
type Run struct {
	Command   string
	Outcome   Outcome
	Escalated bool   // it ran outside the sandbox
	Ref       int    // the caller's reference
	Error     string // a failure's error line, "" when none is known
}

// Failure is the open failure of one work.
type Failure struct {
	First, Last Run // the first and the latest failing run
	Times       int // failing runs of the latest's command as written (filters aside) since the work last passed
	Others      int // and of the same work written differently ("--no-verify" added)
	// Edited and Ran: since the latest failure, the files edited and commands not reads; More counts the rest.
	Edited, Ran []string
	More        int
	Unsettled   int // runs of the work since, with no exit status of their own
	family      string
	targets     []string
	runs        map[string]int // failing runs of each command as written, filters aside
}

// Pair is a failure and the run that ended it: a pass, or a failure with another error (Pass.Outcome tells).
type Pair struct {
	Failure
	Pass Run
}

// Flaky reports a pass by the same command (filters aside), with the same permissions and nothing between.
func (p Pair) Flaky() bool {
	return p.Quiet() && p.Pass.Escalated == p.Last.Escalated &&
		WithoutFilters(p.Pass.Command) == WithoutFilters(p.Last.Command)
}

// Quiet reports a failure after which nothing ran and no file changed.
func (f Failure) Quiet() bool { return len(f.Edited)+len(f.Ran)+f.More == 0 }

// Bounds: of each list of what ran between, of the open failures, of the error lines kept.
const maxBetween, maxOpen = 8, 64

// Pairer pairs the failures of one stream of runs with their passes; ready at zero, not safe for concurrent use.
type Pairer struct {
	open []*Failure // first failure first
}

// Edited records a file edit after every open failure.
func (p *Pairer) Edited(file string) {
	for _, f := range p.open {
		f.add(&f.Edited, file)
	}
}

func (f *Failure) add(list *[]string, s string) {
	switch {
	case slices.Contains(*list, s):
	case len(*list) < maxBetween:
		*list = append(*list, s)
	default:
		f.More++
	}
}

// Ran records a run that ran (not one refused or cancelled) and returns the pairs it completes: a pass ends
// every open failure of its work whose targets it covers ("go test ./..." covers "go test ./pkg/a").
func (p *Pairer) Ran(r Run) []Pair {
	fam, tg, reads, check := Family(r.Command), targets(r.Command), Explores(r.Command), IsCheck(r.Command)
	same := func(f *Failure) bool { // a pass ends the failure; a failure renews it
		return f.family == fam &&
			(slices.Equal(f.targets, tg) || r.Outcome == Passed && covers(tg, f.targets, check))
	}
	gist := func(s string) []string { // an error line's words but those with a digit (a duration, a temp file's name)
		return slices.DeleteFunc(strings.Fields(s), func(w string) bool { return strings.ContainsAny(w, "0123456789") })
	}
	ends := func(f *Failure) bool { // and a failure with another error line ("" is none) ends it, opening its own
		e, o := gist(f.Last.Error), gist(r.Error)
		return same(f) && (r.Outcome == Passed || r.Outcome == Failed && len(e)*len(o) > 0 && !slices.Equal(e, o))
	}
	var pairs []Pair
	for _, f := range p.open {
		switch {
		case ends(f):
			pairs = append(pairs, Pair{Failure: *f, Pass: r})
		case same(f):
			f.Unsettled += map[Outcome]int{Unknown: 1}[r.Outcome]
		case !reads:
			f.add(&f.Ran, r.Command)
		}
	}
	p.open = slices.DeleteFunc(p.open, ends)
	i := slices.IndexFunc(p.open, same)
	if r.Outcome != Failed || i < 0 && len(p.open) >= maxOpen { // past maxOpen a new failure is not kept
		return pairs
	}
	if i < 0 {
		p.open, i = append(p.open, &Failure{First: r, family: fam, targets: tg, runs: map[string]int{}}), len(p.open)
	}
	f, own := p.open[i], WithoutFilters(r.Command)
	f.runs[own]++
	f.Times, f.Others = f.runs[own], f.Times+f.Others+1-f.runs[own] // of all failing runs so far, this one's too
	f.Last, f.Edited, f.Ran, f.More, f.Unsettled = r, nil, nil, 0, 0
	return pairs
}

// Open returns the failures no pass has ended, first failure first.
func (p *Pairer) Open() []Failure {
	out := make([]Failure, len(p.open))
	for i, f := range p.open {
		out[i] = *f
	}
	return out
}

// targets is what a command works on beyond its family: a check's operands (paths, tests or packages named) and
// name filters ("-k x"), not options or their values (--features x); other work's operands and option values, a
// search's pattern too, not options (--no-verify added is the same work), but under a subcommand a value of several
// words is free text ("git commit -m 'a b'"); with none the values are the work, of code (python -c …, a heredoc)
// its words, which a probe rewritten keeps ("import x" in "import x as y").
func targets(cmd string) (out []string) {
	f, check, sub := coreWords(shellWords(WithoutFilters(Work(cmd)))), IsCheck(cmd), strings.Contains(Family(cmd), " ")
	for i := 1; i < len(f); i++ {
		switch w, words := f[i], !check && strings.ContainsAny(f[i], " \n"); {
		case check && nameFilters()[w] && i+1 < len(f):
			out = append(out, w+" "+f[i+1])
			i++
		case strings.HasPrefix(w, "-"), words && sub && strings.HasPrefix(f[i-1], "-"):
		case words:
			out = append(out, alnumRuns(w)...)
		case check && (!strings.HasPrefix(f[i-1], "-") || strings.ContainsAny(w, "/.")), !check:
			out = append(out, w)
		}
	}
	if _, doc, ok := strings.Cut(cmd, "\n"); ok && !check && !sub && strings.Contains(cmd, "<<") {
		out = append(out, alnumRuns(doc)...)
	}
	return out
}

// covers reports a pass's targets that hold all of a failure's: a check's bare words (tests or packages named) must
// be the failure's, and with no path or filter it runs them whole, else covers the paths under its own; other work
// keeps every word of the failure's, may add some ("psql -p 5433 …" after "psql").
func covers(pass, fail []string, check bool) bool {
	bare := func(w string) bool { return check && !strings.ContainsAny(w, "/. ") }
	if slices.ContainsFunc(pass, func(p string) bool { return bare(p) && !slices.Contains(fail, p) }) {
		return false
	}
	pass = slices.DeleteFunc(slices.Clone(pass), bare)
	for _, f := range fail {
		if !bare(f) && (len(pass) > 0 || !check) && !slices.ContainsFunc(pass, func(p string) bool {
			return p == f || check && (p == "./..." || p == "." ||
				strings.HasPrefix(f, strings.TrimRight(strings.TrimSuffix(p, "..."), "/")+"/"))
		}) {
			return false
		}
	}
	return true
}
