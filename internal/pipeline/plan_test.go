package pipeline

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/model"
)

// TestConsolidatorResolvesTheMode: auto falls back to the offline
// consolidator without a model, the model provider is built only in
// model mode, and a mode that cannot work is a config error naming its
// key before anything runs.
func TestConsolidatorResolvesTheMode(t *testing.T) {
	noEnv := func(string) string { return "" }
	asked := 0
	heuristicProvider := func() (Provider, error) { asked++; return Provider{Kind: model.KindHeuristic}, nil }
	for _, tc := range []struct {
		name    string
		mode    config.ConsolidationMode
		agent   []string
		want    string // the consolidator's name, or the config key of the error
		wantErr bool
	}{
		{name: "heuristic", mode: config.ModeHeuristic, want: "heuristic"},
		{name: "auto without a model", mode: config.ModeAuto, want: "heuristic"},
		{name: "model without a model", mode: config.ModeModel, want: "consolidation.mode", wantErr: true},
		{name: "agent without a command", mode: config.ModeAgent, want: "consolidation.agent_command", wantErr: true},
		{name: "agent not in PATH", mode: config.ModeAgent, agent: []string{"memctl-no-such-agent-7f3a"}, want: "consolidation.agent_command", wantErr: true},
		{name: "agent", mode: config.ModeAgent, agent: []string{"sh", "-c", "true"}, want: "agent"},
		{name: "unknown", mode: "telepathy", want: "consolidation.mode", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Provider.Kind = string(model.KindHeuristic)
			cfg.Consolidation.AgentCommand = tc.agent
			cons, _, err := resolveConsolidator(cfg, tc.mode, noEnv, heuristicProvider, io.Discard)
			var cerr *config.Error
			switch {
			case tc.wantErr && (!errors.As(err, &cerr) || cerr.Key != tc.want):
				t.Errorf("err %v, want a config error on %s", err, tc.want)
			case !tc.wantErr && (err != nil || cons.Name() != tc.want):
				t.Errorf("consolidator %v, err %v, want %s", cons, err, tc.want)
			}
		})
	}
	if asked != 1 {
		t.Errorf("the model provider was built %d times, want once (model mode only)", asked)
	}
}

func TestCheckProgram(t *testing.T) {
	if err := checkProgram("sh"); err != nil {
		t.Errorf("sh: %v", err)
	}
	if err := checkProgram("memctl-no-such-agent-7f3a"); err == nil || !strings.Contains(err.Error(), "not in PATH") {
		t.Errorf("a missing program: %v", err)
	}
	if err := checkProgram("./bin/agent"); err != nil {
		t.Errorf("a relative path is left to the run: %v", err)
	}
}
