package cmd

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/english"
	"github.com/memctl/memctl/internal/extract"
	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/pipeline"
)

// agentOffer is what `memctl run` needs to offer a logged-in agent CLI
// when provider.kind = auto found no API key: most people who run Claude
// Code or Codex have a subscription login and no key, and would
// otherwise get the offline heuristic without knowing better is one
// answer away.
//
// The rule: say it once, with what this run would send; spend nothing
// without a yes (--yes, or y at the prompt on a terminal). A yes is
// remembered where the user can see and undo it, as provider.kind in the
// config file; a no at the prompt, or the notice given where no prompt
// could be shown, in <home>/agent-offer.json, so it is not repeated
// (memctl doctor always reports the CLI and how to switch).
type agentOffer struct {
	home       func() (string, error)
	configPath func() (string, bool, error)
	status     func(agentcli.Agent, []string) agentcli.Status
	getenv     func(string) string
	now        func() time.Time
}

func newAgentOffer(f *Factory) *agentOffer {
	return &agentOffer{home: f.Home, configPath: f.ConfigPath, status: f.agentStatus, getenv: f.Getenv, now: f.Now}
}

// offer runs before the run resolves its plan. On a yes it sets
// provider.kind in cfg (and the file), so the whole run, consolidation
// included, goes through the CLI.
func (o *agentOffer) offer(ctx context.Context, opts *RunOptions, cfg *config.Config) error {
	auto := model.Kind(cfg.Provider.Kind) == model.KindAuto || cfg.Provider.Kind == ""
	if opts.Extract.DryRun || !auto || model.Resolve(model.KindAuto, o.getenv) != model.KindHeuristic {
		return nil
	}
	if opts.IO.Quiet && !opts.Extract.Yes {
		return nil // an offer nobody sees is not made (nor remembered as said)
	}
	home, err := o.home()
	if err != nil {
		return err
	}
	statePath := filepath.Join(home, agentcli.OfferFile)
	offers, err := agentcli.LoadOffers(statePath)
	if err != nil {
		opts.IO.Warnf("cannot read %s (%v): offering again", statePath, err)
	}
	canAsk := opts.IO.CanPrompt() && !opts.JSON
	var st agentcli.Status
	for _, a := range agentcli.Agents() {
		switch offers[a].Answer {
		case agentcli.OfferDeclined:
			continue
		case agentcli.OfferTold:
			if !canAsk && !opts.Extract.Yes {
				continue
			}
		}
		if s := o.status(a, nil); s.Usable() {
			st = s
			break
		}
	}
	if st.Path == "" {
		return nil
	}
	kind := string(st.Agent)
	estimate, err := o.estimate(ctx, opts, cfg, kind)
	if err != nil {
		return err
	}
	opts.IO.Infof("memctl: %s, can write memory with a model instead of the offline heuristic (provider.kind = auto found no API key)", st.Describe())
	opts.IO.Infof("memctl: through that login %s; later runs make one call per new idle session and one per consolidation, counted against the login's plan (an API key's: billed)", estimate)
	yes := opts.Extract.Yes
	switch {
	case yes:
		opts.IO.Infof("memctl: using %s (--yes)", st.Agent.Name())
	case canAsk:
		fmt.Fprintf(opts.IO.ErrOut, "memctl: use %s for memory? [y/N] ", st.Agent.Name())
		answer, _ := bufio.NewReader(opts.IO.In).ReadString('\n')
		answer = strings.TrimSpace(answer)
		yes = strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
		if !yes {
			o.remember(opts, statePath, st.Agent, agentcli.OfferDeclined)
			opts.IO.Infof("memctl: keeping the offline heuristic; memctl will not ask again (`memctl doctor` says how to switch)")
			return nil
		}
	default:
		o.remember(opts, statePath, st.Agent, agentcli.OfferTold)
		opts.IO.Infof("memctl: hint: `memctl run --yes` takes it (or answer y at a terminal), or set provider.kind = %q; memctl says this once, `memctl doctor` again", kind)
		return nil
	}
	return o.accept(opts, cfg, kind)
}

// estimate says what this run would send the CLI: the sessions it would
// claim with the usual windows and limit, their input and the calls; on a
// first run also the whole backlog, which the run asks about next (as for
// every model provider).
func (o *agentOffer) estimate(ctx context.Context, opts *RunOptions, cfg *config.Config, kind string) (string, error) {
	with := *cfg // this run's config, through the CLI
	with.Provider.Kind = kind
	home, err := opts.Pipeline(&with, pipeline.Quiet{})
	if err != nil {
		return "", err
	}
	dryRun := func(limit int) (extract.RunResult, error) {
		req := opts.Extract.request()
		if req.Max == 0 {
			req.Max = limit // a limit turns the first run's backlog off
		}
		return home.Preview(ctx, req)
	}
	usualLimit := cfg.Memories.MaxRolloutsPerStartup
	usual, err := dryRun(usualLimit)
	if err != nil {
		return "", err
	}
	all, err := dryRun(0)
	if err != nil {
		return "", err
	}
	calls := func(r extract.RunResult) string {
		if len(r.Jobs) == 0 {
			return "1 call (a consolidation)"
		}
		return fmt.Sprintf("%d calls (%s to extract, about %d input tokens, then a consolidation)",
			len(r.Jobs)+1, english.Count(len(r.Jobs), "session", "sessions"), r.ApproxTokens)
	}
	text := "this run would make " + calls(usual)
	if len(all.Jobs) > len(usual.Jobs) {
		text += ", or " + calls(all) + " if you also take this first run's whole backlog (asked next)"
	}
	return text, nil
}

// accept sets provider.kind for this run and writes it into the config
// file for the next ones.
func (o *agentOffer) accept(opts *RunOptions, cfg *config.Config, kind string) error {
	if err := cfg.Set("provider.kind", kind, config.FromFile); err != nil {
		return err
	}
	path, _, err := o.configPath()
	if err == nil {
		err = config.SetInFile(path, "provider.kind", kind, "chosen at memctl run's offer on "+o.now().UTC().Format("2006-01-02"))
	}
	if err != nil {
		opts.IO.Warnf("cannot write provider.kind to the config (%v): this run uses %s; set provider.kind = %q to keep it", err, kind, kind)
		return nil
	}
	opts.IO.Infof("memctl: wrote provider.kind = %q to %s (set it to \"heuristic\" to go back to the offline extractor)", kind, path)
	return nil
}

// remember keeps how the offer ended; failing to is only worth a warning
// (the offer is then made again).
func (o *agentOffer) remember(opts *RunOptions, path string, agent agentcli.Agent, answer agentcli.OfferAnswer) {
	if err := ensureHome(filepath.Dir(path)); err != nil {
		opts.IO.Warnf("cannot remember the answer: %v", err)
		return
	}
	if err := agentcli.SaveOffer(path, agent, answer, o.now()); err != nil {
		opts.IO.Warnf("cannot remember the answer: %v", err)
	}
}
