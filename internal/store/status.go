package store

import (
	"context"
	"time"
)

// JobCount counts jobs of one kind and status.
type JobCount struct {
	Kind   string `json:"kind"`
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// Status is a snapshot of what the database holds and what is running.
type Status struct {
	ThreadsByMode  map[string]int   `json:"threads_by_mode"`
	Threads        int              `json:"threads"`
	RawMemories    int              `json:"raw_memories"`
	SelectedPhase2 int              `json:"selected_for_phase2"`
	JobCounts      []JobCount       `json:"job_counts"`
	Running        []Job            `json:"running"`  // jobs holding a live lease
	Backoff        []Job            `json:"backoff"`  // failed jobs waiting for their retry time
	Failures       []Job            `json:"failures"` // jobs whose last attempt failed
	Global         *Job             `json:"global"`   // the Phase 2 job, when it exists
	MaxThreadCount int              `json:"max_thread_count"`
	Spend          []TokenUsage     `json:"spend"`
	StageRuns      []StageRun       `json:"stage_runs"`
	RateLimits     []RateLimitState `json:"rate_limits"`
}

// Status reports counts, leases, backoffs and the last consolidation.
func (s *Store) Status(ctx context.Context) (Status, error) {
	st := Status{ThreadsByMode: map[string]int{}}
	rows, err := s.db.QueryContext(ctx, `SELECT memory_mode, COUNT(*) FROM threads GROUP BY memory_mode`)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var mode string
		var n int
		if err := rows.Scan(&mode, &n); err != nil {
			rows.Close()
			return st, err
		}
		st.ThreadsByMode[mode] = n
		st.Threads += n
	}
	rows.Close()
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(selected_for_phase2 <> 0), 0) FROM stage1_outputs`).Scan(&st.RawMemories, &st.SelectedPhase2); err != nil {
		return st, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT max_thread_count FROM consolidation_progress WHERE singleton = 1`).Scan(&st.MaxThreadCount); err != nil {
		return st, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT kind, status, COUNT(*) FROM jobs GROUP BY kind, status ORDER BY kind, status`)
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var c JobCount
		if err := rows.Scan(&c.Kind, &c.Status, &c.Count); err != nil {
			rows.Close()
			return st, err
		}
		st.JobCounts = append(st.JobCounts, c)
	}
	rows.Close()
	now := s.now().Unix()
	jobs, err := s.Jobs(ctx)
	if err != nil {
		return st, err
	}
	for i := range jobs {
		j := jobs[i]
		if j.Status == "running" && j.LeaseUntil != nil && *j.LeaseUntil > now {
			st.Running = append(st.Running, j)
		}
		if j.RetryAt != nil && *j.RetryAt > now {
			st.Backoff = append(st.Backoff, j)
		}
		if j.Status == "error" && j.LastError != "" {
			st.Failures = append(st.Failures, j)
		}
		if j.Kind == KindConsolidate {
			st.Global = &j
		}
	}
	if st.Spend, err = s.Spend(ctx); err != nil {
		return st, err
	}
	if st.StageRuns, err = s.StageRuns(ctx); err != nil {
		return st, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT provider FROM rate_limits ORDER BY provider`)
	if err != nil {
		return st, err
	}
	var providers []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return st, err
		}
		providers = append(providers, p)
	}
	rows.Close()
	for _, p := range providers {
		if r, ok, err := s.RateLimit(ctx, p); err == nil && ok {
			st.RateLimits = append(st.RateLimits, r)
		}
	}
	return st, nil
}

// Now returns the store's clock reading (tests inject a fixed clock).
func (s *Store) Now() time.Time { return s.now() }
