package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/memctl/memctl/internal/textcut"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

const openAIPublicURL = "https://api.openai.com/v1/"

// openAIProvider serves both openai (Responses API) and openai-compatible
// (Chat Completions, the one endpoint every compatible server implements).
type openAIProvider struct {
	kind   Kind
	client openai.Client
	caller *caller
}

func newOpenAI(opts Options, key string) *openAIProvider {
	base := opts.BaseURL
	if base == "" {
		// Pass the public URL explicitly: the SDK would otherwise honour
		// OPENAI_BASE_URL from the process environment behind our back.
		base = openAIPublicURL
	}
	client := openai.NewClient(
		option.WithBaseURL(base),
		// An empty key sends no Authorization header, which keeps an
		// ambient OPENAI_API_KEY away from a third-party compatible server.
		option.WithAPIKey(key),
		option.WithHTTPClient(opts.HTTPClient),
		option.WithMaxRetries(0), // our caller owns retries
	)
	path := "responses"
	if opts.Kind == KindOpenAICompatible {
		path = "chat/completions"
	}
	return &openAIProvider{
		kind:   opts.Kind,
		client: client,
		caller: &caller{
			provider:   string(opts.Kind),
			url:        strings.TrimSuffix(base, "/") + "/" + path,
			timeout:    opts.Timeout,
			maxRetries: opts.MaxRetries,
			sleep:      opts.Sleep,
			now:        opts.Now,
		},
	}
}

func (p *openAIProvider) Name() string { return string(p.kind) }

func (p *openAIProvider) Call(ctx context.Context, req Request) (Response, error) {
	model, err := pickModel(p.kind, req)
	if err != nil {
		return Response{}, err
	}
	schema, err := schemaObject(req.Schema)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.kind, err)
	}
	var fn attempt
	if p.kind == KindOpenAICompatible {
		fn = p.chatAttempt(req, model, schema)
	} else {
		fn = p.responsesAttempt(req, model, schema)
	}
	resp, err := p.caller.do(ctx, fn)
	if err != nil {
		return resp, err
	}
	resp.JSON, err = checkAnswer(string(p.kind), req.Schema, resp.JSON)
	return resp, err
}

func (p *openAIProvider) responsesAttempt(req Request, model string, schema map[string]any) attempt {
	items := make(responses.ResponseInputParam, 0, len(req.Input))
	for _, in := range req.Input {
		items = append(items, responses.ResponseInputItemParamOfMessage(in, responses.EasyInputMessageRoleUser))
	}
	params := responses.ResponseNewParams{
		Model: model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Text: responses.ResponseTextConfigParam{
			Format: responses.ResponseFormatTextConfigUnionParam{
				OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
					Name:   schemaName(req.SchemaName),
					Schema: schema,
					Strict: openai.Bool(true),
				},
			},
		},
		// Transcripts are private; nothing needs the response kept server-side.
		Store: openai.Bool(false),
	}
	if req.System != "" {
		params.Instructions = openai.String(req.System)
	}
	if req.ReasoningEffort != "" {
		params.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(req.ReasoningEffort)}
	}
	return func(ctx context.Context, mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) (Response, error) {
		r, err := p.client.Responses.New(ctx, params, option.WithMiddleware(mw))
		if err != nil {
			return Response{}, err
		}
		var text, refusal strings.Builder
		for _, item := range r.Output {
			for _, c := range item.Content {
				switch c.Type {
				case "output_text":
					text.WriteString(c.Text)
				case "refusal":
					refusal.WriteString(c.Refusal)
				}
			}
		}
		resp := Response{
			JSON:  []byte(text.String()),
			Model: r.Model,
			Usage: Usage{
				InputTokens:       r.Usage.InputTokens,
				CachedInputTokens: r.Usage.InputTokensDetails.CachedTokens,
				OutputTokens:      r.Usage.OutputTokens,
				ReasoningTokens:   r.Usage.OutputTokensDetails.ReasoningTokens,
				TotalTokens:       r.Usage.TotalTokens,
			},
		}
		switch {
		case refusal.Len() > 0 && text.Len() == 0:
			return resp, &AnswerError{Provider: string(p.kind), Err: fmt.Errorf("model refused: %s", textcut.Head(refusal.String(), 300))}
		case r.Status == "incomplete":
			return resp, &AnswerError{Provider: string(p.kind), Answer: resp.JSON, Err: fmt.Errorf("answer incomplete (%s)", r.IncompleteDetails.Reason)}
		case r.Status == "failed":
			return resp, &AnswerError{Provider: string(p.kind), Err: fmt.Errorf("response failed: %s", r.Error.Message)}
		}
		return resp, nil
	}
}

func (p *openAIProvider) chatAttempt(req Request, model string, schema map[string]any) attempt {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Input)+1)
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	for _, in := range req.Input {
		msgs = append(msgs, openai.UserMessage(in))
	}
	params := openai.ChatCompletionNewParams{
		Model:    model,
		Messages: msgs,
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   schemaName(req.SchemaName),
					Schema: schema,
					Strict: openai.Bool(true),
				},
			},
		},
	}
	if req.ReasoningEffort != "" {
		// Part of Chat Completions; servers that do not know it ignore it.
		params.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	return func(ctx context.Context, mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) (Response, error) {
		r, err := p.client.Chat.Completions.New(ctx, params, option.WithMiddleware(mw))
		if err != nil {
			return Response{}, err
		}
		resp := Response{
			Model: r.Model,
			Usage: Usage{
				InputTokens:       r.Usage.PromptTokens,
				CachedInputTokens: r.Usage.PromptTokensDetails.CachedTokens,
				OutputTokens:      r.Usage.CompletionTokens,
				ReasoningTokens:   r.Usage.CompletionTokensDetails.ReasoningTokens,
				TotalTokens:       r.Usage.TotalTokens,
			},
		}
		if len(r.Choices) == 0 {
			return resp, &AnswerError{Provider: string(p.kind), Err: errors.New("response has no choices")}
		}
		choice := r.Choices[0]
		resp.JSON = []byte(choice.Message.Content)
		switch {
		case choice.Message.Refusal != "" && choice.Message.Content == "":
			return resp, &AnswerError{Provider: string(p.kind), Err: fmt.Errorf("model refused: %s", textcut.Head(choice.Message.Refusal, 300))}
		case choice.FinishReason == "length":
			return resp, &AnswerError{Provider: string(p.kind), Answer: resp.JSON, Err: errors.New("answer cut off at the output token limit")}
		}
		return resp, nil
	}
}

var badSchemaNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]+`) })

// schemaName makes a name both APIs accept (^[a-zA-Z0-9_-]{1,64}$).
func schemaName(name string) string {
	name = badSchemaNameChars().ReplaceAllString(name, "_")
	if name == "" {
		return "answer"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}
