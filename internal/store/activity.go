package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// TokenUsage is the token count of one model call batch.
type TokenUsage struct {
	Stage             string `json:"stage"`
	Provider          string `json:"provider"`
	Model             string `json:"model,omitempty"`
	JobKey            string `json:"job_key,omitempty"`
	InputTokens       int64  `json:"input_tokens"`
	CachedInputTokens int64  `json:"cached_input_tokens"`
	OutputTokens      int64  `json:"output_tokens"`
	ReasoningTokens   int64  `json:"reasoning_output_tokens"`
	TotalTokens       int64  `json:"total_tokens"`
	// CostUSD is what the provider said the calls cost; 0 when it said
	// nothing.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// AddTokenUsage records the tokens one job or run spent.
func (s *Store) AddTokenUsage(ctx context.Context, u TokenUsage) error {
	_, err := s.exec(ctx, `INSERT INTO token_usage (stage, provider, model, job_key, input_tokens, cached_input_tokens,
    output_tokens, reasoning_tokens, total_tokens, cost_usd, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.Stage, u.Provider, u.Model, u.JobKey, u.InputTokens, u.CachedInputTokens, u.OutputTokens, u.ReasoningTokens,
		u.TotalTokens, u.CostUSD, s.now().Unix())
	return err
}

// Spend sums token usage by stage and provider.
func (s *Store) Spend(ctx context.Context) ([]TokenUsage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT stage, provider, SUM(input_tokens), SUM(cached_input_tokens), SUM(output_tokens),
    SUM(reasoning_tokens), SUM(total_tokens), SUM(cost_usd) FROM token_usage GROUP BY stage, provider ORDER BY stage, provider`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TokenUsage
	for rows.Next() {
		var u TokenUsage
		if err := rows.Scan(&u.Stage, &u.Provider, &u.InputTokens, &u.CachedInputTokens, &u.OutputTokens, &u.ReasoningTokens, &u.TotalTokens, &u.CostUSD); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// StageRun is the last run of one stage.
type StageRun struct {
	Stage      string    `json:"stage"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Status     string    `json:"status"`
	Detail     string    `json:"detail,omitempty"`
}

// RecordStageRun remembers how a stage ended, for `memctl status`.
func (s *Store) RecordStageRun(ctx context.Context, r StageRun) error {
	_, err := s.exec(ctx, `INSERT INTO stage_runs (stage, started_at, finished_at, status, detail) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (stage) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at,
    status = excluded.status, detail = excluded.detail`, r.Stage, r.StartedAt.Unix(), r.FinishedAt.Unix(), r.Status, r.Detail)
	return err
}

// StageRuns lists the last run of every stage that ran.
func (s *Store) StageRuns(ctx context.Context) ([]StageRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT stage, started_at, finished_at, status, detail FROM stage_runs ORDER BY stage`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StageRun
	for rows.Next() {
		var r StageRun
		var started, finished int64
		if err := rows.Scan(&r.Stage, &started, &finished, &r.Status, &r.Detail); err != nil {
			return nil, err
		}
		r.StartedAt, r.FinishedAt = time.Unix(started, 0).UTC(), time.Unix(finished, 0).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// RateLimitState is the last rate-limit report of a provider.
type RateLimitState struct {
	Provider         string     `json:"provider"`
	RemainingPercent float64    `json:"remaining_percent"`
	Reached          bool       `json:"reached"`
	ObservedAt       time.Time  `json:"observed_at"`
	ResetAt          *time.Time `json:"reset_at,omitempty"`
}

// SaveRateLimit keeps the newest rate-limit state of a provider.
func (s *Store) SaveRateLimit(ctx context.Context, r RateLimitState) error {
	var reset any
	if r.ResetAt != nil && !r.ResetAt.IsZero() {
		reset = r.ResetAt.Unix()
	}
	_, err := s.exec(ctx, `INSERT INTO rate_limits (provider, remaining_percent, reached, observed_at, reset_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (provider) DO UPDATE SET remaining_percent = excluded.remaining_percent, reached = excluded.reached,
    observed_at = excluded.observed_at, reset_at = excluded.reset_at
WHERE excluded.observed_at >= rate_limits.observed_at`, r.Provider, r.RemainingPercent, r.Reached, r.ObservedAt.Unix(), reset)
	return err
}

// RateLimit returns the last rate-limit state of a provider; ok is false
// when none is known.
func (s *Store) RateLimit(ctx context.Context, provider string) (RateLimitState, bool, error) {
	var r RateLimitState
	var observed int64
	var reset sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT provider, remaining_percent, reached, observed_at, reset_at FROM rate_limits WHERE provider = ?`,
		provider).Scan(&r.Provider, &r.RemainingPercent, &r.Reached, &observed, &reset)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	r.ObservedAt = time.Unix(observed, 0).UTC()
	r.ResetAt = unixTime(nullInt(reset))
	return r, true, nil
}
