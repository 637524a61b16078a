package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// States of a piece of evidence.
const (
	StateOK      = "ok"      // unchanged, or changed too little to matter
	StateChanged = "changed" // still there, but what the memory said may no longer hold
	StateGone    = "gone"    // the file or the command is no longer there
	// StateUnknown: not checked (the time budget ran out, the file was
	// too large to hash, it could not be read).
	StateUnknown = "unknown"
)

// Reasons a piece of evidence is stale.
const (
	ReasonDeleted       = "deleted"        // the file is gone
	ReasonRewritten     = "rewritten"      // most of its lines were replaced
	ReasonLinesChanged  = "lines_changed"  // the cited lines are no longer in it
	ReasonTargetRemoved = "target_removed" // the script no longer defines the command
	ReasonScriptDeleted = "script_deleted" // the script file itself is gone
)

// DefaultBudget bounds the time one read-path call (a summary, an MCP
// read or search) spends on stale checks; docs/benchmarks.md measures a
// summary with them against a plain read of the file.
const DefaultBudget = 50 * time.Millisecond

// DefaultRewriteThreshold is the share of a file's recorded lines that
// must be gone for the file to count as rewritten.
const DefaultRewriteThreshold = 0.5

// Verdict is the outcome of checking one item.
type Verdict struct {
	State  string
	Reason string
	// Kept is the share of the recorded lines still in a changed file
	// (0..1; -1 when not measured).
	Kept float64
}

// Checker checks evidence against the disk within a time budget. It is
// not safe for concurrent use.
type Checker struct {
	// Deadline stops the checks: items after it are StateUnknown. Zero
	// means no deadline.
	Deadline time.Time
	// RewriteThreshold: a file missing at least this share of its
	// recorded lines is rewritten (0: DefaultRewriteThreshold).
	RewriteThreshold float64
	// MaxHashBytes is the largest file read (0: DefaultMaxHashBytes).
	MaxHashBytes int64
	// Now is the clock the deadline is read with (nil: time.Now).
	Now func() time.Time

	// Checked and Unchecked count the items seen.
	Checked, Unchecked int
	// memo keeps the verdict of a path within one call, so a file cited
	// by several memories is read once.
	memo map[memoKey]Verdict
	// calls counts Check calls: the clock is read every few of them.
	calls   int
	expired bool
}

type memoKey struct {
	abs, hash, rng, target string
}

func (c *Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Expired reports whether the budget is spent.
func (c *Checker) Expired() bool {
	if !c.expired && !c.Deadline.IsZero() && !c.now().Before(c.Deadline) {
		c.expired = true
	}
	return c.expired
}

// Check checks one item: a stat, and when the stat differs from the
// recorded one, a read and hash of the file.
func (c *Checker) Check(it Item) Verdict {
	// A stat takes a microsecond or two: reading the clock before every
	// one would cost as much as the checks.
	c.calls++
	if c.expired || c.calls%8 == 1 && c.Expired() {
		c.Unchecked++
		return Verdict{State: StateUnknown, Kept: -1}
	}
	key := memoKey{it.Abs, it.Hash, it.RangeHash, it.Target}
	if v, ok := c.memo[key]; ok {
		c.count(v)
		return v
	}
	var v Verdict
	switch it.Kind {
	case KindCommand:
		v = c.checkCommand(it)
	default:
		v = c.checkFile(it)
	}
	if c.memo == nil {
		c.memo = map[memoKey]Verdict{}
	}
	c.memo[key] = v
	c.count(v)
	return v
}

func (c *Checker) count(v Verdict) {
	if v.State == StateUnknown {
		c.Unchecked++
	} else {
		c.Checked++
	}
}

func (c *Checker) maxBytes() int64 {
	if c.MaxHashBytes > 0 {
		return c.MaxHashBytes
	}
	return DefaultMaxHashBytes
}

func (c *Checker) threshold() float64 {
	if c.RewriteThreshold > 0 && c.RewriteThreshold <= 1 {
		return c.RewriteThreshold
	}
	return DefaultRewriteThreshold
}

func (c *Checker) checkFile(it Item) Verdict {
	fi, err := os.Lstat(it.Abs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return Verdict{State: StateGone, Reason: ReasonDeleted, Kept: 0}
	}
	if err != nil {
		return Verdict{State: StateUnknown, Kept: -1}
	}
	if fi.Size() == it.Size && fi.ModTime().UnixNano() == it.ModTimeNs {
		return Verdict{State: StateOK, Kept: 1}
	}
	if it.Hash == "" || fi.Size() > c.maxBytes() {
		// Too large to hash then or now: only its deletion is known.
		return Verdict{State: StateUnknown, Kept: -1}
	}
	data, err := readAtMost(it.Abs, c.maxBytes())
	if err != nil {
		return Verdict{State: StateUnknown, Kept: -1}
	}
	if contentHash(data) == it.Hash {
		return Verdict{State: StateOK, Kept: 1} // touched, not changed
	}
	lines := lineHashes(data)
	kept := containment(decodeSketch(it.Sketch), lines.set())
	if kept >= 0 && kept <= 1-c.threshold() {
		return Verdict{State: StateChanged, Reason: ReasonRewritten, Kept: kept}
	}
	if it.RangeHash != "" && !lines.containsRange(it.RangeHash, it.LineEnd-it.LineStart+1) {
		return Verdict{State: StateChanged, Reason: ReasonLinesChanged, Kept: kept}
	}
	return Verdict{State: StateOK, Kept: kept}
}

// containment estimates the share of the recorded lines still present:
// the sketch is a uniform sample of them, and the current file's lines
// are known in full. -1 when the sketch is empty.
func containment(sketch []uint32, cur map[uint32]bool) float64 {
	if len(sketch) == 0 {
		return -1
	}
	n := 0
	for _, h := range sketch {
		if cur[h] {
			n++
		}
	}
	return float64(n) / float64(len(sketch))
}

func (c *Checker) checkCommand(it Item) Verdict {
	fi, err := os.Lstat(it.Abs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return Verdict{State: StateGone, Reason: ReasonScriptDeleted, Kept: 0}
	}
	if err != nil {
		return Verdict{State: StateUnknown, Kept: -1}
	}
	if fi.Size() == it.Size && fi.ModTime().UnixNano() == it.ModTimeNs {
		return Verdict{State: StateOK, Kept: 1}
	}
	if fi.Size() > DefaultMaxHashBytes {
		return Verdict{State: StateUnknown, Kept: -1}
	}
	data, err := os.ReadFile(it.Abs)
	if err != nil {
		return Verdict{State: StateUnknown, Kept: -1}
	}
	if contentHash(data) == it.Hash {
		return Verdict{State: StateOK, Kept: 1}
	}
	found, sure := defines(it.Runner, data, it.Target)
	switch {
	case found:
		return Verdict{State: StateOK, Kept: 1}
	case sure:
		return Verdict{State: StateGone, Reason: ReasonTargetRemoved, Kept: 0}
	}
	return Verdict{State: StateUnknown, Kept: -1}
}

// Problem is one stale piece of evidence, for people and JSON.
type Problem struct {
	Kind   string `json:"kind"`   // file | command
	Ref    string `json:"ref"`    // as the memory names it
	Path   string `json:"path"`   // the file checked
	Reason string `json:"reason"` // deleted, rewritten, lines_changed, target_removed, script_deleted
	State  string `json:"state"`  // changed | gone
	// Kept is the share of the recorded lines still there, for a changed file.
	Kept *float64 `json:"kept,omitempty"`
}

// Message says what happened, in a few words.
func (p Problem) Message() string {
	switch p.Reason {
	case ReasonDeleted:
		return p.Ref + " was deleted"
	case ReasonRewritten:
		if p.Kept != nil {
			return fmt.Sprintf("%s was rewritten (about %d%% of its lines are gone)", p.Ref, int(100*(1-*p.Kept)+0.5))
		}
		return p.Ref + " was rewritten"
	case ReasonLinesChanged:
		return "the cited lines of " + p.Ref + " changed"
	case ReasonTargetRemoved:
		return "`" + p.Ref + "` is no longer defined in " + filepath.Base(p.Path)
	case ReasonScriptDeleted:
		return "`" + p.Ref + "` has no " + filepath.Base(p.Path) + " any more"
	}
	return p.Ref + " changed"
}

// Assessment is the verdict on one memory.
type Assessment struct {
	Record   Record
	Problems []Problem
	// Gone is set when everything the memory rested on is gone: it is
	// dropped, not only demoted.
	Gone bool
	// Unchecked counts items the budget left unchecked.
	Unchecked int
}

// Stale reports a memory with at least one problem.
func (a Assessment) Stale() bool { return len(a.Problems) > 0 }

// Assess checks every item of a record.
func (c *Checker) Assess(r Record) Assessment {
	verdicts := make([]Verdict, len(r.Items))
	for i, it := range r.Items {
		verdicts[i] = c.Check(it)
	}
	return AssessVerdicts(r, verdicts)
}

// AssessVerdicts is the assessment of a record whose items were checked:
// verdicts[i] is the verdict on r.Items[i].
func AssessVerdicts(r Record, verdicts []Verdict) Assessment {
	a := Assessment{Record: r}
	gone := 0
	for i, v := range verdicts {
		it := r.Items[i]
		switch v.State {
		case StateUnknown:
			a.Unchecked++
			continue
		case StateOK:
			continue
		}
		p := Problem{Kind: it.Kind, Ref: it.Text(), Path: it.Abs, Reason: v.Reason, State: v.State}
		if v.Reason == ReasonRewritten {
			k := v.Kept
			p.Kept = &k
		}
		if v.State == StateGone {
			gone++
		}
		a.Problems = append(a.Problems, p)
	}
	a.Gone = len(r.Items) > 0 && gone == len(r.Items)
	return a
}
