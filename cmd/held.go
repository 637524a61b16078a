package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/memversion"
	"github.com/memctl/memctl/internal/origin"
	"github.com/memctl/memctl/internal/quarantine"
	"github.com/memctl/memctl/internal/review"
	"github.com/memctl/memctl/internal/reviewdir"
	"github.com/memctl/memctl/internal/store"
	"github.com/memctl/memctl/internal/summary"
	"github.com/memctl/memctl/internal/team"
)

// What waits for the user besides a pending generation (docs/security.md):
// notes an agent proposed over MCP, memories and notes from another
// machine or a bundle that the quarantine held, and the team files of the
// working directory's repository that are not committed or that the
// quarantine held. review lists them; approve and reject settle them, by
// id or all at once.

// heldJSON is one item that waits for the user's review.
type heldJSON struct {
	ID      string        `json:"id"`
	Kind    string        `json:"kind"` // note | memory | team
	Origin  origin.Origin `json:"origin"`
	Subject string        `json:"subject"` // a note's file name, a memory's id, a team file's path
	// HeldAt is when it was held (not for team files, which wait where
	// they are).
	HeldAt *string `json:"held_at,omitempty"`
	// Reasons are the lines the quarantine held; empty for an agent's
	// note held as a proposal and for a team file that is not committed.
	Reasons []quarantine.Item `json:"reasons"`
	Text    string            `json:"text"`
	// Versions are the memory versions whose queue holds it.
	Versions []memversion.Version `json:"versions,omitempty"`
	// State says why a team file waits: held (committed, the quarantine
	// held a line), untracked or modified (not what the repository
	// committed: only a commit makes it team memory).
	State string `json:"state,omitempty"`
	// Approvable is false for a team file that only a commit can bring in.
	Approvable bool `json:"approvable"`

	item review.Item // the queue's item (note, memory)
	hash string      // a held team file's bytes (team)
}

// heldItems lists what waits in every generated version's queue, one
// entry per item however many versions hold it, oldest first.
func heldItems(cfg *config.Config, memoryRoot func(memversion.Version) (string, error)) ([]heldJSON, error) {
	byID := map[string]*heldJSON{}
	var order []string
	for _, v := range cfg.Versions() {
		root, err := memoryRoot(v)
		if err != nil {
			return nil, err
		}
		items, err := review.Open(root, nil).List()
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if h, ok := byID[it.ID]; ok {
				h.Versions = append(h.Versions, v)
				continue
			}
			at := rfc3339(it.HeldAt)
			byID[it.ID] = &heldJSON{ID: it.ID, Kind: it.Kind, Origin: it.Origin, Subject: it.Subject(), HeldAt: &at,
				Reasons: it.Reasons, Text: it.Text(), Versions: []memversion.Version{v}, Approvable: true, item: it}
			order = append(order, it.ID)
		}
	}
	out := make([]heldJSON, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool { return *out[i].HeldAt < *out[j].HeldAt })
	return out, nil
}

// pickHeld returns the items args name (ids or unique prefixes), or all
// of them for none. An argument that names nothing is a usage error.
func pickHeld(items []heldJSON, args []string) ([]heldJSON, error) {
	if len(args) == 0 {
		return items, nil
	}
	var out []heldJSON
	seen := map[string]bool{}
	for _, a := range args {
		var match []heldJSON
		for _, it := range items {
			if it.ID == a {
				match = []heldJSON{it}
				break
			}
			if strings.HasPrefix(it.ID, a) {
				match = append(match, it)
			}
		}
		switch {
		case len(match) == 0:
			return nil, withHint(FlagErrorf("nothing waits for review under %q", a), "`memctl review` lists what waits, with its id")
		case len(match) > 1:
			ids := make([]string, len(match))
			for i, m := range match {
				ids[i] = m.ID
			}
			return nil, withHint(FlagErrorf("%q names several held items: %s", a, strings.Join(ids, ", ")), "give more of the id")
		}
		if !seen[match[0].ID] {
			seen[match[0].ID] = true
			out = append(out, match[0])
		}
	}
	return out, nil
}

// approvedHeldJSON is one held item approve let in.
type approvedHeldJSON struct {
	review.Approved
	Versions []memversion.Version `json:"versions"`
}

// approveHeld lets the items in: into every version's folder and store
// whose queue holds them; a team file's approval is recorded.
func approveHeld(ctx context.Context, items []heldJSON, memoryRoot func(memversion.Version) (string, error),
	open func(context.Context, memversion.Version) (*store.Store, error), now func() time.Time, cfg *config.Config) ([]approvedHeldJSON, error) {
	var out []approvedHeldJSON
	for _, h := range items {
		if h.Kind == review.KindTeam {
			if !h.Approvable {
				return out, withHint(fmt.Errorf("%s (%s) is %s: only a commit makes a file team memory", h.ID, h.Subject, h.State),
					"review it with git diff, commit it, then approve it if memctl still holds it")
			}
			root, err := memoryRoot(cfg.Memories.Version)
			if err != nil {
				return out, err
			}
			if err := review.ApproveTeam(root, h.hash); err != nil {
				return out, err
			}
			out = append(out, approvedHeldJSON{Approved: review.Approved{ID: h.ID}, Versions: []memversion.Version{}})
			continue
		}
		a := approvedHeldJSON{Versions: []memversion.Version{}}
		for _, v := range h.Versions {
			root, err := memoryRoot(v)
			if err != nil {
				return out, err
			}
			st, err := open(ctx, v)
			if err != nil {
				return out, err
			}
			res, err := review.Open(root, now).Approve(ctx, h.item, root, st)
			st.Close()
			if err != nil {
				return out, fmt.Errorf("%s: %w", v, err)
			}
			a.Approved = res
			a.Versions = append(a.Versions, v)
		}
		out = append(out, a)
	}
	return out, nil
}

// rejectHeld deletes the items from every queue that holds them. A team
// file is not the queue's: it stays in the repository, left out.
func rejectHeld(items []heldJSON, memoryRoot func(memversion.Version) (string, error)) ([]string, error) {
	var out []string
	for _, h := range items {
		if h.Kind == review.KindTeam {
			return out, withHint(fmt.Errorf("%s (%s) is a file of the repository: memctl leaves it out until it is committed and approved", h.ID, h.Subject),
				"delete or fix it in the repository (git rm, or an edit and a commit)")
		}
		for _, v := range h.Versions {
			root, err := memoryRoot(v)
			if err != nil {
				return out, err
			}
			if err := review.Open(root, nil).Remove(h.ID); err != nil {
				return out, err
			}
		}
		out = append(out, h.ID)
	}
	return out, nil
}

// queued keeps the items of the review queue, leaving out team files.
func queued(items []heldJSON) []heldJSON {
	var out []heldJSON
	for _, h := range items {
		if h.Kind != review.KindTeam {
			out = append(out, h)
		}
	}
	return out
}

// printHeld writes the held items for review: what each is, where it
// came from, why it was held, and its text.
func printHeld(ios *IOStreams, items []heldJSON) {
	w := ios.Out
	for i, h := range items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		what := h.Kind + " " + h.Subject
		when := ""
		if h.HeldAt != nil {
			when = ", held " + *h.HeldAt
		}
		if h.State != "" && h.State != "held" {
			when = ", " + h.State
		}
		fmt.Fprintf(w, "%s %s (%s; origin %s%s)\n", ios.Bold("held"), ios.Text(h.ID), ios.Text(what), ios.Text(h.Origin.String()), when)
		if len(h.Reasons) == 0 && h.Kind == review.KindNote && h.Origin.Kind == origin.Agent {
			fmt.Fprintln(w, "  why       an agent's note is a proposal until you approve it")
		}
		for _, r := range h.Reasons {
			fmt.Fprintf(w, "  why       %s line %d: %s\n", ios.Text(r.Field), r.Line, r.Reason)
		}
		for _, l := range strings.Split(strings.TrimRight(h.Text, "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", ios.Text(l))
		}
	}
}

// waitingItems is everything that waits for the user: the queue's items
// and the working directory's repository's team files that are not team
// memory yet.
func waitingItems(cfg *config.Config, memoryRoot func(memversion.Version) (string, error), getwd func() (string, error)) ([]heldJSON, error) {
	items, err := heldItems(cfg, memoryRoot)
	if err != nil {
		return nil, err
	}
	return append(items, teamWaiting(cfg, memoryRoot, getwd)...), nil
}

// teamWaiting lists the team files of the working directory's repository
// that are not team memory yet: not committed (they wait for a commit)
// or committed and held by the quarantine (they wait for approve). A
// folder that is in no repository has none.
func teamWaiting(cfg *config.Config, memoryRoot func(memversion.Version) (string, error), getwd func() (string, error)) []heldJSON {
	if getwd == nil {
		return nil
	}
	wd, err := getwd()
	if err != nil {
		return nil
	}
	dir, rel, top := summary.TeamDir(cfg, wd)
	root, err := memoryRoot(cfg.Memories.Version)
	if dir == "" || err != nil || !summary.HasTeamFiles(dir) {
		return nil
	}
	committed, _ := team.CommittedFiles(context.Background(), top, dir)
	approved := reviewdir.TeamApproved(root)
	l, err := team.Load(team.LoadOptions{Dir: dir, Committed: committed, Hash: reviewdir.TeamHash, Approved: func(h string) bool { return approved[h] }})
	if err != nil {
		return nil
	}
	var out []heldJSON
	for _, w := range l.Waiting {
		reasons := w.Reasons
		if reasons == nil {
			reasons = []quarantine.Item{}
		}
		out = append(out, heldJSON{ID: review.KindTeam + "-" + w.Hash[:12], Kind: review.KindTeam,
			Origin:  origin.Origin{Kind: origin.Team, Detail: filepath.Base(top)},
			Subject: rel + "/" + w.File, Reasons: reasons, Text: w.Text, State: w.State,
			Approvable: w.State == team.StateHeld, hash: w.Hash})
	}
	return out
}
