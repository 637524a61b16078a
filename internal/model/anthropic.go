package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

const anthropicPublicURL = "https://api.anthropic.com/"

// anthropicProvider calls the Messages API. Anthropic has no JSON-schema
// response format on every model, so the answer is forced through a single
// tool whose input_schema is the request schema: the tool_use input is the
// answer.
type anthropicProvider struct {
	client    anthropic.Client
	caller    *caller
	maxTokens int64
}

func newAnthropic(opts Options, key string) *anthropicProvider {
	base := opts.BaseURL
	if base == "" {
		base = anthropicPublicURL
	}
	client := anthropic.NewClient(
		// Credentials and endpoint come from Options only, never from
		// ANTHROPIC_* variables or profiles the SDK would otherwise load.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithAPIKey(key),
		option.WithHTTPClient(opts.HTTPClient),
		option.WithMaxRetries(0), // our caller owns retries
		// An explicit per-attempt timeout also stops the SDK from refusing
		// large max_tokens on non-streaming calls.
		option.WithRequestTimeout(opts.Timeout),
	)
	return &anthropicProvider{
		client:    client,
		maxTokens: opts.MaxOutputTokens,
		caller: &caller{
			provider:   string(KindAnthropic),
			url:        strings.TrimSuffix(base, "/") + "/v1/messages",
			timeout:    opts.Timeout,
			maxRetries: opts.MaxRetries,
			sleep:      opts.Sleep,
			now:        opts.Now,
		},
	}
}

func (p *anthropicProvider) Name() string { return string(KindAnthropic) }

// Call ignores Request.ReasoningEffort: extended thinking cannot be combined
// with a tool_choice that forces a specific tool.
func (p *anthropicProvider) Call(ctx context.Context, req Request) (Response, error) {
	model, err := pickModel(KindAnthropic, req)
	if err != nil {
		return Response{}, err
	}
	schema, err := schemaObject(req.Schema)
	if err != nil {
		return Response{}, fmt.Errorf("anthropic: %w", err)
	}
	toolName := schemaName(req.SchemaName)
	inputSchema := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
			// Always "object"; the SDK writes it.
		case "properties":
			inputSchema.Properties = v
		case "required":
			if list, ok := v.([]any); ok {
				for _, r := range list {
					if s, ok := r.(string); ok {
						inputSchema.Required = append(inputSchema.Required, s)
					}
				}
			}
		default:
			inputSchema.ExtraFields[k] = v
		}
	}
	tool := anthropic.ToolParam{
		Name:        toolName,
		Description: anthropic.String("Record the complete answer. Call this exactly once."),
		InputSchema: inputSchema,
	}
	msgs := make([]anthropic.MessageParam, 0, len(req.Input))
	for _, in := range req.Input {
		msgs = append(msgs, anthropic.NewUserMessage(anthropic.NewTextBlock(in)))
	}
	params := anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: p.maxTokens,
		Messages:  msgs,
		Tools:     []anthropic.ToolUnionParam{{OfTool: &tool}},
		ToolChoice: anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{
			Name:                   toolName,
			DisableParallelToolUse: anthropic.Bool(true),
		}},
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}

	resp, err := p.caller.do(ctx, func(ctx context.Context, mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) (Response, error) {
		m, err := p.client.Messages.New(ctx, params, option.WithMiddleware(mw))
		if err != nil {
			return Response{}, err
		}
		u := m.Usage
		input := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
		resp := Response{
			Model: m.Model,
			// Anthropic counts cached input apart from input_tokens; fold
			// it in so InputTokens means the same for every provider.
			Usage: Usage{
				InputTokens:       input,
				CachedInputTokens: u.CacheReadInputTokens,
				OutputTokens:      u.OutputTokens,
				TotalTokens:       input + u.OutputTokens,
			},
		}
		var answer json.RawMessage
		for _, block := range m.Content {
			if block.Type == "tool_use" && block.Name == toolName {
				answer = block.Input
				break
			}
		}
		resp.JSON = answer
		switch {
		case m.StopReason == anthropic.StopReasonMaxTokens:
			return resp, &AnswerError{Provider: string(KindAnthropic), Answer: answer,
				Err: fmt.Errorf("answer cut off at max_tokens (%d)", p.maxTokens)}
		case answer == nil:
			return resp, &AnswerError{Provider: string(KindAnthropic),
				Err: fmt.Errorf("no %s tool call in the response (stop_reason %s)", toolName, m.StopReason)}
		}
		return resp, nil
	})
	if err != nil {
		return resp, err
	}
	resp.JSON, err = checkAnswer(string(KindAnthropic), req.Schema, resp.JSON)
	return resp, err
}
