// Failure policy shared by the HTTP providers (openai, openai-compatible,
// anthropic):
//
//   - Every attempt has its own deadline (Options.Timeout).
//   - 429, 5xx, network errors and attempt timeouts are retried up to
//     Options.MaxRetries times, waiting Retry-After / retry-after-ms when the
//     server names a delay (up to maxServerDelay) and full-jitter backoff
//     otherwise. Other 4xx are final.
//   - An answer that arrives but cannot be used (not JSON, refused, cut off,
//     breaking the schema) is an AnswerError and is not retried: the model
//     would likely answer the same way, and the job scheduler retries the
//     job later with its own budget.
//   - Cancelling ctx stops at once, also mid-backoff; the error wraps
//     ctx.Err().
//   - Rate-limit headers are read from every response, errors included.

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/memctl/memctl/internal/textcut"
)

// Retry policy of the HTTP providers: exponential backoff with full jitter
// (a uniform delay in [0, min(cap, base·2^n)]), unless the server named a
// delay with Retry-After or retry-after-ms, which is honoured as given.
const (
	backoffBase = time.Second
	backoffCap  = 60 * time.Second
	// maxServerDelay bounds how long one Call waits on a server's
	// Retry-After. A longer wait (a daily quota, say) is better left to the
	// job scheduler, which retries failed jobs later anyway.
	maxServerDelay = 5 * time.Minute
	// errorBodyLimit bounds how much of an error response is kept for the
	// message.
	errorBodyLimit = 64 << 10
)

// APIError is a failed call to an HTTP model provider, after retries. It
// carries the last rate-limit state seen so callers can record it even
// when the call failed.
type APIError struct {
	Provider   string
	URL        string // the request URL, without query
	StatusCode int    // 0 when no HTTP response arrived (unreachable or timed out)
	Message    string // the provider's error message, or what went wrong on the network
	Timeout    bool   // the attempt ran out of time (Options.Timeout)
	// RetryAfter is the delay the server asked for, 0 when it named none.
	RetryAfter time.Duration
	Attempts   int
	RateLimit  *RateLimit // nil when no response carried rate-limit headers
	Err        error      // the underlying transport or SDK error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	switch {
	case e.Timeout:
		fmt.Fprintf(&b, "no response from %s: %s", e.URL, e.Message)
	case e.StatusCode == 0:
		fmt.Fprintf(&b, "cannot reach %s: %s", e.URL, e.Message)
	default:
		fmt.Fprintf(&b, "HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
		if e.StatusCode == http.StatusNotFound {
			// Usually a base_url missing or doubling its /v1.
			b.WriteString(" for " + e.URL)
		}
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
		if e.StatusCode == http.StatusTooManyRequests && e.RetryAfter > 0 {
			fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
		}
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether another attempt may succeed: rate limiting,
// server errors, and network failures including timeouts.
func (e *APIError) Retryable() bool {
	return e.StatusCode == 0 || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// AnswerError is returned when the provider answered but the answer cannot
// be used: not JSON, refused, cut off, or breaking the schema. It is not
// retried within a Call; the job scheduler retries the job later.
type AnswerError struct {
	Provider string
	Answer   []byte // the raw answer, possibly empty
	Err      error
}

func (e *AnswerError) Error() string { return e.Provider + ": " + e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

// capture is an SDK middleware that records what one HTTP attempt did, so
// retry and error decisions do not depend on each SDK's error types.
type capture struct {
	mu     sync.Mutex
	url    string
	status int
	header http.Header
	body   []byte // error responses only
	err    error  // transport error
}

func (c *capture) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	u := *req.URL
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	resp, err := next(req)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.url = u.String()
	c.err = err
	if resp != nil {
		c.status = resp.StatusCode
		c.header = resp.Header.Clone()
		if resp.StatusCode >= 300 && resp.Body != nil {
			// Keep the error body for our message and hand the SDK an
			// identical copy so its own parsing is unaffected.
			body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
			resp.Body.Close()
			c.body = body
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	return resp, err
}

func (c *capture) snapshot() (url string, status int, header http.Header, body []byte, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.url, c.status, c.header, c.body, c.err
}

// caller runs the attempts of one HTTP provider.
type caller struct {
	provider   string
	url        string // shown when the request never left (bad URL)
	timeout    time.Duration
	maxRetries int
	sleep      func(context.Context, time.Duration) error
	now        func() time.Time
}

// attempt performs one request through the SDK. It must install mw as a
// request middleware.
type attempt func(ctx context.Context, mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) (Response, error)

// do runs fn until it succeeds, fails for good, or the retry budget is
// spent. On success the Response carries the rate-limit state of the
// answering response; on failure, the last state any attempt saw.
func (c *caller) do(ctx context.Context, fn attempt) (Response, error) {
	var lastRL *RateLimit
	for try := 0; ; try++ {
		if err := ctx.Err(); err != nil {
			return Response{RateLimit: lastRL}, fmt.Errorf("%s: %w", c.provider, err)
		}
		cp := &capture{}
		actx, cancel := context.WithTimeout(ctx, c.timeout)
		resp, err := fn(actx, cp.middleware)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()

		url, status, header, body, netErr := cp.snapshot()
		rl := ParseRateLimit(c.provider, status, header, c.now())
		if rl != nil {
			lastRL = rl
		}
		if err == nil {
			// Only this response's own headers describe the quota now; an
			// earlier 429 no longer does, as this call got through.
			resp.RateLimit = rl
			return resp, nil
		}
		if ctx.Err() != nil {
			// The caller gave up: stop at once, whatever the attempt saw.
			return Response{RateLimit: lastRL}, fmt.Errorf("%s: %w", c.provider, ctx.Err())
		}
		var ae *AnswerError
		if errors.As(err, &ae) {
			resp.RateLimit = rl
			return resp, err
		}
		if url == "" {
			url = c.url
		}
		apiErr := &APIError{Provider: c.provider, URL: url, StatusCode: status, Attempts: try + 1, RateLimit: lastRL, Err: err}
		switch {
		case timedOut:
			apiErr.StatusCode = 0
			apiErr.Timeout = true
			apiErr.Message = "timed out after " + c.timeout.String()
		case status >= 300:
			apiErr.Message = providerMessage(body)
			if d, ok := parseRetryAfter(header, c.now()); ok {
				apiErr.RetryAfter = d
			}
		case status == 0:
			cause := netErr
			if cause == nil {
				cause = err
			}
			apiErr.Message = describeNetError(cause)
		default:
			// 2xx, but the SDK could not decode the body.
			return Response{RateLimit: lastRL}, &AnswerError{Provider: c.provider, Err: fmt.Errorf("unreadable response: %w", err)}
		}
		if !apiErr.Retryable() || try >= c.maxRetries {
			return Response{RateLimit: lastRL}, apiErr
		}
		delay := backoff(try)
		if apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > maxServerDelay {
				return Response{RateLimit: lastRL}, apiErr
			}
			delay = apiErr.RetryAfter
		}
		if err := c.sleep(ctx, delay); err != nil {
			return Response{RateLimit: lastRL}, fmt.Errorf("%s: %w", c.provider, err)
		}
	}
}

// backoff is the full-jitter delay before retry number try+1.
func backoff(try int) time.Duration {
	ceiling := backoffCap
	if try < 16 {
		ceiling = min(backoffCap, backoffBase<<try)
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

// parseRetryAfter reads the server's requested delay: retry-after-ms
// (milliseconds, sent by OpenAI and Anthropic) wins over Retry-After, which
// is either seconds or an HTTP date.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if ms, ok := parseNumber(h.Get("retry-after-ms")); ok && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// providerMessage pulls the human-readable message out of an error body:
// {"error":{"message":…}} (OpenAI, Anthropic, most compatible servers),
// {"error":"…"} (Ollama), {"message":…}, or else the text itself.
func providerMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &doc) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(doc.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(doc.Error, &s) == nil && s != "":
			return s
		case doc.Message != "":
			return doc.Message
		}
	}
	return textcut.Head(strings.Join(strings.Fields(string(body)), " "), 300)
}

// describeNetError names a network failure briefly ("connection refused")
// without Go's "Post "…": dial tcp …" prefix; the URL is shown separately.
func describeNetError(err error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "no such host " + dnsErr.Name
		}
		return "DNS lookup failed: " + dnsErr.Err
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed before a response"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	return err.Error()
}
