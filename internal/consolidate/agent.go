package consolidate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/model"
	"github.com/memctl/memctl/internal/procgroup"
)

// errAgentTimeout is returned when the agent command outlives its timeout.
var errAgentTimeout = errors.New("consolidation agent timed out")

// agentWaitDelay is how long memctl waits for the agent's output pipes to
// close after killing it, so a grandchild holding them cannot hang a run.
const agentWaitDelay = 5 * time.Second

// NewAgent returns the consolidator that runs an external coding agent
// (argv, e.g. codex exec or claude -p) inside the memory folder with the
// rendered prompt on stdin. env is the complete environment of the
// process (the caller trims it); the agent's stdout and stderr both go to
// stderr, never to memctl's data stream. On timeout the whole process
// group is killed. What the agent wrote is checked afterwards by Run:
// symlinks are removed (and fail the run) and the artifacts validated.
// memctl cannot stop an agent from touching files outside the folder;
// the sandbox flags of the agent itself do (see README.md).
func NewAgent(argv []string, timeout time.Duration, env []string, stderr io.Writer) Consolidator {
	if stderr == nil {
		stderr = io.Discard
	}
	return &agentConsolidator{argv: argv, timeout: timeout, env: env, stderr: stderr}
}

type agentConsolidator struct {
	argv    []string
	timeout time.Duration
	env     []string
	stderr  io.Writer
}

func (*agentConsolidator) Name() string { return "agent" }

func (a *agentConsolidator) Consolidate(ctx context.Context, ws *Workspace) (model.Usage, error) {
	if len(a.argv) == 0 || a.argv[0] == "" {
		return model.Usage{}, errors.New("no agent command configured")
	}
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, a.argv[0], a.argv[1:]...)
	cmd.Dir = ws.Root
	cmd.Env = a.env
	if cmd.Env == nil {
		cmd.Env = []string{} // never inherit memctl's environment by accident
	}
	cmd.Stdin = strings.NewReader(ws.Prompt)
	cmd.Stdout = a.stderr
	cmd.Stderr = a.stderr
	// On timeout the whole group dies: the agent's tools too.
	procgroup.Set(cmd)
	cmd.WaitDelay = agentWaitDelay
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return model.Usage{}, fmt.Errorf("%w after %s", errAgentTimeout, a.timeout)
		}
		return model.Usage{}, ctx.Err()
	}
	if err != nil {
		return model.Usage{}, fmt.Errorf("agent %s: %w", a.argv[0], err)
	}
	return model.Usage{}, nil
}
