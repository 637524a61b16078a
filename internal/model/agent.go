package model

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/memctl/memctl/internal/agentcli"
	"github.com/memctl/memctl/internal/procgroup"
	"github.com/memctl/memctl/internal/textcut"
)

// agentProvider sends each call through an agent CLI (Claude Code or
// Codex) and the user's login in it: one run of the CLI per call, in a
// scratch folder of its own, with the tools, MCP servers, hooks,
// instruction files, memory and saved sessions of the user's setup off
// (agentcli builds the command line). Like the command provider it does
// not retry: the CLIs retry the API on their own, and a failed call is
// recorded and the job tried again later.
type agentProvider struct {
	kind    Kind
	agent   agentcli.Agent
	program []string // the CLI's argv; the request's arguments follow
	timeout time.Duration
	baseURL string
	env     agentcli.Env
	redact  func(string) string
	// scratchBase is where the scratch folders are made ("" for the
	// system's temporary folder).
	scratchBase string
	now         func() time.Time
}

// rateLimitWait is how long extraction waits after a CLI said it is
// rate-limited, when it did not say until when: the failed jobs' own
// backoff.
const rateLimitWait = time.Hour

func newAgent(opts Options, agent agentcli.Agent) (*agentProvider, error) {
	program := opts.Command
	if len(program) == 0 || program[0] == "" {
		program = []string{agent.Program()}
	}
	env := agentcli.Env{Getenv: opts.Getenv, Environ: opts.Environ, LookPath: opts.LookPath}
	path, err := agentcli.Find(program[0], env)
	if err != nil {
		return nil, &AgentError{Kind: opts.Kind, Fault: FaultMissing, Program: program[0], ExitCode: -1, Err: err}
	}
	redact := opts.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	return &agentProvider{
		kind: opts.Kind, agent: agent, program: append([]string{path}, program[1:]...), timeout: opts.Timeout,
		baseURL: opts.BaseURL, env: env, redact: redact, scratchBase: opts.ScratchDir, now: opts.Now,
	}, nil
}

func (p *agentProvider) Name() string { return string(p.kind) }

func (p *agentProvider) Call(ctx context.Context, req Request) (Response, error) {
	name := string(p.kind)
	if _, err := schemaObject(req.Schema); err != nil {
		return Response{}, fmt.Errorf("%s: %w", name, err)
	}
	modelName, err := pickModel(p.kind, req)
	if err != nil {
		return Response{}, err
	}
	scratch, err := agentcli.NewScratch(p.scratchBase, p.agent, p.env)
	if err != nil {
		return Response{}, fmt.Errorf("%s: make a scratch folder: %w", name, err)
	}
	defer scratch.Close()
	c, err := agentcli.Prepare(p.agent, agentcli.Request{Model: modelName, Effort: req.ReasoningEffort, System: req.System,
		Schema: req.Schema, BaseURL: p.baseURL}, scratch)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", name, err)
	}

	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	argv := append(append([]string{}, p.program...), c.Args...)
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	procgroup.Set(cmd)
	cmd.Dir = scratch.Dir
	cmd.Env = p.env.ChildEnv(c.Env)
	cmd.WaitDelay = commandWaitDelay
	cmd.Stdin = strings.NewReader(strings.Join(req.Input, "\n\n"))
	stdout := &limitedBuffer{limit: commandStdoutLimit}
	tail := &tailBuffer{limit: stderrTailLimit}
	cmd.Stdout, cmd.Stderr = stdout, tail
	runErr := cmd.Run()
	if ctx.Err() != nil {
		// memctl itself was stopped: the call counts as not made.
		return Response{}, fmt.Errorf("%s: %w", name, ctx.Err())
	}

	var out agentAnswer
	if p.agent == agentcli.Codex {
		out = readCodex(stdout.Bytes())
	} else {
		out = readClaude(stdout.Bytes())
	}
	resp := Response{Usage: out.usage, Model: out.model}
	if resp.Model == "" {
		resp.Model = modelName
	}
	fail := &AgentError{Kind: p.kind, Program: p.program[0], ExitCode: -1, Message: p.redact(out.errMessage),
		Stderr: p.redact(agentcli.Stderr(tail.String())), Err: runErr}
	if errors.Is(runErr, exec.ErrWaitDelay) {
		// It exited cleanly; something it started kept the pipes open and
		// was killed with its group. The answer is complete.
		runErr = nil
	}
	var exitErr *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		fail.Fault, fail.Timeout = FaultTimedOut, p.timeout
		return resp, fail
	case cmd.Process == nil:
		fail.Fault = FaultMissing // it could not be started
		return resp, fail
	case errors.As(runErr, &exitErr) && exitErr.ExitCode() == -1:
		fail.Fault = FaultKilled // a signal, not memctl's timeout
		return resp, fail
	case exitErr != nil:
		fail.ExitCode = exitErr.ExitCode()
	}
	if out.failed || runErr != nil {
		fail.Fault = classify(out)
		if fail.Fault == FaultRateLimited {
			now := p.now()
			resp.RateLimit = &RateLimit{Provider: name, Reached: true, ObservedAt: now, ResetAt: now.Add(rateLimitWait)}
		}
		return resp, fail
	}
	if stdout.overflow {
		return resp, &AnswerError{Provider: name, Err: fmt.Errorf("answer larger than %d bytes", commandStdoutLimit)}
	}
	answer := out.structured
	if answer == nil {
		// No structured answer: what the model said instead must still be
		// the schema's JSON, and nothing else.
		if answer, err = singleObject([]byte(out.text)); err != nil {
			return resp, &AnswerError{Provider: name, Answer: []byte(out.text),
				Err: fmt.Errorf("%s answered with text, not the schema's JSON: %q", p.agent.Name(), textcut.Head(p.redact(out.text), 200))}
		}
	}
	resp.JSON, err = checkAnswer(name, req.Schema, answer)
	return resp, err
}

// classify names the fault of a CLI that answered with an error.
func classify(out agentAnswer) AgentFault {
	msg := strings.ToLower(out.errMessage)
	switch {
	case out.status == 401 || out.status == 403 || strings.Contains(msg, "not logged in") ||
		strings.Contains(msg, "/login") || strings.Contains(msg, "codex login") || strings.Contains(msg, "401 unauthorized") ||
		strings.Contains(msg, "invalid api key") || strings.Contains(msg, "authentication") ||
		strings.Contains(msg, "oauth token") || strings.Contains(msg, "token has expired"):
		return FaultNotLoggedIn
	case out.status == 429 || strings.Contains(msg, "rate limit") || strings.Contains(msg, "rate_limit") ||
		strings.Contains(msg, "usage limit") || strings.Contains(msg, "hit your limit") ||
		strings.Contains(msg, "too many requests") || strings.Contains(msg, "429") || strings.Contains(msg, "quota"):
		return FaultRateLimited
	}
	return FaultFailed
}

// AgentFault says why an agent CLI gave no answer.
type AgentFault string

// The faults of an agent CLI call.
const (
	FaultMissing     AgentFault = "missing"       // the program is not there, or could not be started
	FaultNotLoggedIn AgentFault = "not_logged_in" // the CLI holds no login it can use
	FaultRateLimited AgentFault = "rate_limited"  // the account's limit is reached
	FaultTimedOut    AgentFault = "timed_out"     // no answer within provider.timeout; killed
	FaultKilled      AgentFault = "killed"        // ended by a signal memctl did not send
	FaultFailed      AgentFault = "failed"        // any other error the CLI reported
)

// AgentError is a call through an agent CLI that gave no answer. Its
// message says what happened in memctl's words, with what the CLI said
// and the end of its stderr, both redacted.
type AgentError struct {
	Kind    Kind
	Fault   AgentFault
	Program string
	// ExitCode is the CLI's exit status, -1 when it did not exit by itself.
	ExitCode int
	Timeout  time.Duration // FaultTimedOut: the limit it ran past
	Message  string        // what the CLI reported as the error, redacted
	Stderr   string        // the end of its stderr, redacted
	Err      error
}

func (e *AgentError) Error() string {
	agent := agentcli.Agent(e.Kind)
	var b strings.Builder
	b.WriteString(string(e.Kind) + ": ")
	said := func() {
		if m := strings.TrimSpace(e.Message); m != "" {
			b.WriteString(" (it said: " + textcut.Head(m, 300) + ")")
		}
	}
	switch e.Fault {
	case FaultMissing:
		fmt.Fprintf(&b, "cannot run %s", e.Program)
		if e.Err != nil {
			b.WriteString(": " + e.Err.Error())
		}
		fmt.Fprintf(&b, "; install %s, or set provider.command to the path of %s", agent.Name(), agent.Program())
	case FaultNotLoggedIn:
		b.WriteString(agent.Name() + " is not logged in")
		said()
		b.WriteString("; " + agent.LoginHint() + ", then run memctl again")
	case FaultRateLimited:
		b.WriteString(agent.Name() + " is rate-limited")
		said()
		fmt.Fprintf(&b, "; extraction waits %s, then the thread is tried again", rateLimitWait)
	case FaultTimedOut:
		fmt.Fprintf(&b, "no answer from %s within %s (provider.timeout); it and everything it started were killed", agent.Program(), e.Timeout)
	case FaultKilled:
		fmt.Fprintf(&b, "%s was killed before it answered", agent.Program())
		if e.Err != nil {
			b.WriteString(" (" + e.Err.Error() + ")")
		}
	default:
		fmt.Fprintf(&b, "%s failed", agent.Program())
		if e.ExitCode > 0 {
			fmt.Fprintf(&b, " (exit status %d)", e.ExitCode)
		}
		if m := strings.TrimSpace(e.Message); m != "" {
			b.WriteString(": " + textcut.Head(m, 300))
		}
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("; stderr: " + s)
	}
	return b.String()
}

func (e *AgentError) Unwrap() error { return e.Err }
