package extract

import (
	"strings"

	"github.com/memctl/memctl/internal/evidence"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/sessions"
	"github.com/memctl/memctl/internal/store"
)

// Bounds on what provenance keeps of a thread, whatever its length.
const (
	maxHumanBytes  = 512 << 10
	maxRanCommands = 4096
	maxPending     = 1024
)

// provenance is what a session vouches for: the commands it ran without
// failing and the human's own words. An order in a memory that matches
// one of them is a fact of the session, not text planted to steer the
// next agent (internal/quarantine).
type provenance struct {
	pending map[string]string // call id → command awaiting its result
	last    string            // command of the latest call without an id
	ran     map[string]bool
	human   strings.Builder
}

func newProvenance() *provenance {
	return &provenance{pending: map[string]string{}, ran: map[string]bool{}}
}

func (p *provenance) add(e sessions.Event) {
	switch e.Kind {
	case sessions.EventHuman:
		if p.human.Len() < maxHumanBytes {
			p.human.WriteString(oneLine(e.Text))
			p.human.WriteString("\n")
		}
	case sessions.EventToolCall:
		if e.Command == "" {
			return
		}
		if e.CallID == "" {
			p.last = e.Command
			return
		}
		if len(p.pending) >= maxPending {
			clear(p.pending)
		}
		p.pending[e.CallID] = e.Command
	case sessions.EventToolResult:
		cmd := p.last
		if e.CallID != "" {
			cmd = p.pending[e.CallID]
			delete(p.pending, e.CallID)
		} else {
			p.last = ""
		}
		if cmd == "" || failed(e) || len(p.ran) >= maxRanCommands {
			return
		}
		p.ran[oneLine(cmd)] = true
	}
}

// failed reports a result that did not run or did not pass.
func failed(e sessions.Event) bool {
	switch e.Outcome {
	case sessions.OutcomeFailed, sessions.OutcomeRejected, sessions.OutcomeDenied, sessions.OutcomeInterrupted, sessions.OutcomeCancelled:
		return true
	}
	return e.IsError || e.ExitCode != nil && *e.ExitCode != 0
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (p *provenance) session() quarantine.Session {
	human := p.human.String()
	return quarantine.Session{
		Ran: func(cmd string) bool {
			cmd = oneLine(cmd)
			if p.ran[cmd] {
				return true
			}
			// A memory may quote a shorter form of what ran
			// ("go test ./..." for "go test ./... -run X").
			for c := range p.ran {
				if strings.HasPrefix(c, cmd+" ") {
					return true
				}
			}
			return false
		},
		HumanSaid: func(s string) bool { return s != "" && strings.Contains(human, oneLine(s)) },
	}
}

// held is an answer once the instruction-shaped lines are held back, with
// the evidence it rests on.
type held struct {
	out        Output
	quarantine []quarantine.Item
	evidence   []evidence.Item
	commit     string
}

// holdBack removes instruction-shaped lines from every field of out
// (internal/quarantine) and records the evidence the rest names, resolved in
// the thread's folder.
func holdBack(out Output, t store.Thread, p *provenance) held {
	s := p.session()
	var h held
	var q []quarantine.Item
	h.out = out
	h.out.RawMemory, q = quarantine.Filter("raw_memory", out.RawMemory, s)
	h.quarantine = append(h.quarantine, q...)
	h.out.RolloutSummary, q = quarantine.Filter("rollout_summary", out.RolloutSummary, s)
	h.quarantine = append(h.quarantine, q...)
	if out.RolloutSlug != nil {
		if r := quarantine.Check(*out.RolloutSlug, s); r != "" {
			h.quarantine = append(h.quarantine, quarantine.Item{Field: "rollout_slug", Line: 1, Reason: r, Text: *out.RolloutSlug})
			empty := ""
			h.out.RolloutSlug = &empty
		}
	}
	refs := evidence.Refs(h.out.RawMemory + "\n" + h.out.RolloutSummary)
	h.evidence = evidence.Capture(t.Cwd, refs, evidence.CaptureOptions{})
	if h.commit = evidence.HeadCommit(t.Cwd); h.commit == "" {
		h.commit = t.GitSHA
	}
	return h
}

func (h held) result() store.Stage1Result {
	r := store.Stage1Result{RawMemory: h.out.RawMemory, RolloutSummary: h.out.RolloutSummary, Slug: h.out.RolloutSlug, Commit: h.commit}
	for _, it := range h.evidence {
		r.Evidence = append(r.Evidence, store.EvidenceItem{Kind: it.Kind, RefPath: it.Path, LineStart: it.LineStart, LineEnd: it.LineEnd,
			Runner: it.Runner, Target: it.Target, AbsPath: it.Abs, Size: it.Size, MtimeNs: it.ModTimeNs, Hash: it.Hash,
			Sketch: it.Sketch, RangeHash: it.RangeHash})
	}
	for _, q := range h.quarantine {
		r.Quarantine = append(r.Quarantine, store.QuarantineItem{Field: q.Field, Line: q.Line, Reason: q.Reason, Text: q.Text})
	}
	return r
}
