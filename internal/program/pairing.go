package program

import (
	"slices"
	"strings"
)

// Pairing. A run's outcome is its exit status alone (Outcome). A failure
// stays open until a later run of the same work passes (Work: the same
// family, and for a look around or a fetch the same target); the pass
// ends it, and the pair carries what ran between the latest failure and
// the pass: every file edited and every command that is not a read,
// whatever it was (a build, a "lint --fix", "docker compose up", an
// install, a variable set). Nothing is inferred about which of them made
// the difference: they are listed. A pass with nothing between, by the
// same command with the same permissions, is possibly flaky. A pass of
// other work with the same check purpose ("make lint" after "golangci-lint
// run" failed) does not end the failure; it is noted on it.
//
// The offline extractor and the regret ledger (internal/regret) pair
// failures with this one type, so a failure fixed by a setup step is a
// lesson in both.

// Outcome is how a run ended, from its exit status (or the tool's own
// error flag) only.
type Outcome int

// The outcomes. Unknown: no exit status of its own was recorded.
const (
	Unknown Outcome = iota
	Passed
	Failed
)

// Run is one command as the pairing reads it.
type Run struct {
	Command   string
	Outcome   Outcome
	Escalated bool   // it asked to run outside the sandbox
	Purpose   string // a check's purpose (Purpose), "" for other commands
	Error     string // a failed run's error line (ErrorLine)
	Ref       int    // the caller's reference to the run
}

// Failure is the open failure of one work.
type Failure struct {
	First, Last Run // the first and the latest failing run
	Times       int // failing runs since the work last passed
	// Errors are the error lines of those runs, once each, the latest
	// first, at most maxErrors: a work that failed several times may
	// have failed for several reasons.
	Errors []string
	// Edited and Ran are what happened since the latest failure: the
	// files edited and the commands run that are not reads, once each,
	// at most maxBetween of each; More counts the rest.
	Edited, Ran []string
	More        int
	// CoveredBy is a passing check of the same purpose from other work
	// that ran after the failure.
	CoveredBy string
}

// Pair is a failure and the pass that ended it.
type Pair struct {
	Failure
	Pass Run
}

// Flaky reports a pass with nothing between it and the failure, by the
// same command (output filters aside) with the same permissions.
func (p Pair) Flaky() bool {
	return p.Quiet() && p.Pass.Escalated == p.Last.Escalated && WithoutFilters(p.Pass.Command) == WithoutFilters(p.Last.Command)
}

// Quiet reports a failure after which nothing ran and no file changed.
func (f Failure) Quiet() bool { return len(f.Edited)+len(f.Ran)+f.More == 0 }

// maxBetween bounds each list of what ran between; maxOpen the open
// failures tracked.
const (
	maxBetween = 8
	maxOpen    = 64
	maxErrors  = 5
)

// Pairer pairs the failures of one stream of runs with their passes. Its
// zero value is ready; it is not safe for concurrent use.
type Pairer struct {
	open  map[string]*Failure
	order []string // the open works, first failure first
}

// Edited records a file edit: it happened between every open failure and
// whatever comes next.
func (p *Pairer) Edited(file string) {
	for _, k := range p.order {
		p.open[k].add(&p.open[k].Edited, file)
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

// Ran records a run that ran (not one refused or cancelled before it
// could), and returns the pair it completes, if any.
func (p *Pairer) Ran(r Run) (Pair, bool) {
	key := Work(r.Command)
	reads := Explores(r.Command)
	for _, k := range p.order {
		f := p.open[k]
		switch {
		case k == key:
		case r.Outcome == Passed && r.Purpose != "" && r.Purpose == f.Last.Purpose && f.CoveredBy == "":
			f.CoveredBy = r.Command
			f.add(&f.Ran, r.Command)
		case !reads:
			f.add(&f.Ran, r.Command)
		}
	}
	f := p.open[key]
	switch r.Outcome {
	case Failed:
		if f == nil {
			if len(p.order) >= maxOpen {
				return Pair{}, false
			}
			if p.open == nil {
				p.open = map[string]*Failure{}
			}
			f = &Failure{First: r}
			p.open[key] = f
			p.order = append(p.order, key)
		}
		f.Times++
		f.Last, f.Edited, f.Ran, f.More, f.CoveredBy = r, nil, nil, 0, ""
		if r.Error != "" {
			f.Errors = slices.Insert(slices.DeleteFunc(f.Errors, func(e string) bool { return e == r.Error }), 0, r.Error)
			f.Errors = f.Errors[:min(len(f.Errors), maxErrors)]
		}
	case Passed:
		if f != nil {
			delete(p.open, key)
			p.order = slices.DeleteFunc(p.order, func(k string) bool { return k == key })
			return Pair{Failure: *f, Pass: r}, true
		}
	}
	return Pair{}, false
}

// Open returns the failures no pass has ended, first failure first.
func (p *Pairer) Open() []Failure {
	out := make([]Failure, len(p.order))
	for i, k := range p.order {
		out[i] = *p.open[k]
	}
	return out
}

// Work names what a command does, for telling whether a later run is the
// same work: its family ("go test" for "go test ./..." and "go test -run
// X ./pkg"), and for a look around what it looks in and for any command
// the addresses it names (`rg x a` and `rg x b`, or two URLs fetched, are
// different work).
func Work(cmd string) string {
	parts := []string{Family(cmd)}
	for _, w := range strings.Fields(cmd) {
		if strings.Contains(w, "://") {
			parts = append(parts, strings.Trim(w, `'"()`))
		}
	}
	return strings.Join(append(parts, LookedIn(cmd)...), " ")
}
