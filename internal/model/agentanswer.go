package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
)

// agentAnswer is what an agent CLI printed for one request, read into
// the parts memctl uses.
type agentAnswer struct {
	// structured is the answer to the schema when the CLI hands it over
	// apart (Claude Code's structured_output); nil otherwise.
	structured json.RawMessage
	// text is the model's final message (Codex's answer to the schema).
	text  string
	usage Usage
	model string
	// failed: the CLI reported an error; errMessage is what it said and
	// status the API's HTTP status when it names one.
	failed     bool
	errMessage string
	status     int
}

// claudeResult is the part of `claude -p --output-format json` memctl
// reads (Claude Code 2.1.328).
type claudeResult struct {
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	StructuredOutput json.RawMessage `json:"structured_output"`
	APIErrorStatus   *int            `json:"api_error_status"`
	TotalCostUSD     float64         `json:"total_cost_usd"`
	Usage            struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]struct {
		InputTokens int64 `json:"inputTokens"`
	} `json:"modelUsage"`
}

// readClaude reads Claude Code's one JSON result. Output that is not one
// is kept as the answer's text, which then fails as not the schema's JSON
// (or, with a non-zero exit, as the CLI's failure).
func readClaude(stdout []byte) agentAnswer {
	var r claudeResult
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &r); err != nil {
		return agentAnswer{text: string(stdout)}
	}
	u := r.Usage
	input := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	a := agentAnswer{
		text: r.Result,
		// Cached input is counted apart, as the Messages API does; folded
		// in so InputTokens means the same for every provider.
		usage: Usage{InputTokens: input, CachedInputTokens: u.CacheReadInputTokens, OutputTokens: u.OutputTokens,
			TotalTokens: input + u.OutputTokens, CostUSD: r.TotalCostUSD},
		failed: r.IsError || strings.HasPrefix(r.Subtype, "error"),
	}
	if len(r.StructuredOutput) > 0 && !bytes.Equal(r.StructuredOutput, []byte("null")) {
		a.structured = r.StructuredOutput
	}
	if a.failed {
		a.errMessage = r.Result
		if a.errMessage == "" {
			a.errMessage = r.Subtype
		}
		if r.APIErrorStatus != nil {
			a.status = *r.APIErrorStatus
		}
	}
	// The model that answered is the one that read the most: Claude Code
	// may ask a small model on the side.
	var most int64 = -1
	for name, m := range r.ModelUsage {
		if m.InputTokens > most || (m.InputTokens == most && name < a.model) {
			a.model, most = name, m.InputTokens
		}
	}
	return a
}

// codexEvent is the part of one `codex exec --json` event memctl reads
// (Codex 0.169.0).
type codexEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Item    struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Usage *struct {
		InputTokens           int64 `json:"input_tokens"`
		CachedInputTokens     int64 `json:"cached_input_tokens"`
		OutputTokens          int64 `json:"output_tokens"`
		ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// readCodex reads Codex's JSONL events: the last agent message is the
// answer, turn.completed carries the usage, turn.failed the error. The
// "error" events before a failure are reconnection notices; the last one
// stands in for the error when the turn never reported its end.
func readCodex(stdout []byte) agentAnswer {
	var a agentAnswer
	lastError := ""
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), commandStdoutLimit)
	for sc.Scan() {
		var ev codexEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "item.completed":
			if ev.Item.Type == "agent_message" {
				a.text = ev.Item.Text
			}
		case "turn.completed":
			if u := ev.Usage; u != nil {
				a.usage = Usage{InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens, OutputTokens: u.OutputTokens,
					ReasoningTokens: u.ReasoningOutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
			}
		case "turn.failed":
			a.failed, a.errMessage = true, ev.Error.Message
		case "error":
			lastError = ev.Message
		}
	}
	if a.errMessage == "" {
		a.errMessage = lastError
	}
	return a
}
