-- memctl store, schema version 1.
-- threads: the index of transcripts (DESIGN.md section 3); the memory tables
-- follow Codex's memories database (codex-memories.md section 3).

CREATE TABLE threads (
    id                    TEXT PRIMARY KEY,
    source_kind           TEXT NOT NULL,              -- codex | claude-code | jsonl
    rollout_path          TEXT NOT NULL,
    related_paths         TEXT NOT NULL DEFAULT '[]', -- JSON array of sub-agent files
    source                TEXT NOT NULL DEFAULT '',   -- cli, vscode, exec, mcp, custom name, sub-agent JSON
    interactive           INTEGER NOT NULL DEFAULT 0,
    subagent              INTEGER NOT NULL DEFAULT 0,
    parent_id             TEXT NOT NULL DEFAULT '',
    cwd                   TEXT NOT NULL DEFAULT '',
    git_branch            TEXT NOT NULL DEFAULT '',
    git_origin_url        TEXT NOT NULL DEFAULT '',
    git_sha               TEXT NOT NULL DEFAULT '',
    preview               TEXT NOT NULL DEFAULT '',
    model                 TEXT NOT NULL DEFAULT '',
    created_at_ms         INTEGER NOT NULL,
    updated_at_ms         INTEGER NOT NULL,
    archived              INTEGER NOT NULL DEFAULT 0,
    memory_mode           TEXT NOT NULL DEFAULT 'enabled', -- enabled | disabled | polluted
    mode_set_by_user      INTEGER NOT NULL DEFAULT 0,      -- threads enable/disable/forget; a rescan keeps it
    used_external_context INTEGER NOT NULL DEFAULT 0,
    file_size             INTEGER NOT NULL DEFAULT 0,
    file_mtime_ns         INTEGER NOT NULL DEFAULT 0,
    fingerprint           TEXT NOT NULL DEFAULT '',
    problems              INTEGER NOT NULL DEFAULT 0,
    scanned_at            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_threads_updated_at ON threads (updated_at_ms DESC, id DESC);
CREATE INDEX idx_threads_path ON threads (rollout_path);

CREATE TABLE stage1_outputs (
    thread_id                             TEXT PRIMARY KEY,
    source_updated_at                     INTEGER NOT NULL,
    raw_memory                            TEXT NOT NULL,
    rollout_summary                       TEXT NOT NULL,
    rollout_slug                          TEXT,
    generated_at                          INTEGER NOT NULL,
    usage_count                           INTEGER,
    last_usage                            INTEGER,
    selected_for_phase2                   INTEGER NOT NULL DEFAULT 0,
    selected_for_phase2_source_updated_at INTEGER
);
CREATE INDEX idx_stage1_outputs_source_updated_at ON stage1_outputs (source_updated_at DESC, thread_id DESC);

CREATE TABLE jobs (
    kind                   TEXT NOT NULL,
    job_key                TEXT NOT NULL,
    status                 TEXT NOT NULL,
    worker_id              TEXT,
    ownership_token        TEXT,
    started_at             INTEGER,
    finished_at            INTEGER,
    lease_until            INTEGER,
    retry_at               INTEGER,
    retry_remaining        INTEGER NOT NULL,
    last_error             TEXT,
    input_watermark        INTEGER,
    last_success_watermark INTEGER,
    PRIMARY KEY (kind, job_key)
);
CREATE INDEX idx_jobs_kind_status_retry_lease ON jobs (kind, status, retry_at, lease_until);

CREATE TABLE consolidation_progress (
    singleton        INTEGER PRIMARY KEY CHECK (singleton = 1),
    max_thread_count INTEGER NOT NULL DEFAULT 0
);
INSERT INTO consolidation_progress (singleton, max_thread_count) VALUES (1, 0);

-- Tokens spent, one row per model call batch (extract job or consolidation run).
CREATE TABLE token_usage (
    id                  INTEGER PRIMARY KEY,
    stage               TEXT NOT NULL,   -- extract | consolidate
    provider            TEXT NOT NULL,
    model               TEXT NOT NULL DEFAULT '',
    job_key             TEXT NOT NULL DEFAULT '',
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    total_tokens        INTEGER NOT NULL DEFAULT 0,
    recorded_at         INTEGER NOT NULL
);

-- The last run of each stage, for `memctl status`.
CREATE TABLE stage_runs (
    stage       TEXT PRIMARY KEY,  -- prune | guard | extract | consolidate | scan
    started_at  INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    status      TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT ''
);

-- The last rate-limit state each provider reported (the Phase 1 guard).
CREATE TABLE rate_limits (
    provider          TEXT PRIMARY KEY,
    remaining_percent REAL NOT NULL,
    reached           INTEGER NOT NULL DEFAULT 0,
    observed_at       INTEGER NOT NULL,
    reset_at          INTEGER
);

-- The memory folder as of the last successful consolidation (Codex keeps
-- it in a private git repository; memctl keeps it here, no git needed).
CREATE TABLE baseline_files (
    path    TEXT PRIMARY KEY,
    mode    INTEGER NOT NULL,
    content BLOB NOT NULL
);
CREATE TABLE baseline_meta (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    created_at INTEGER NOT NULL
);

-- Full-text index over raw memories, rollout summaries and memory files.
CREATE VIRTUAL TABLE search_index USING fts5 (
    kind UNINDEXED,       -- raw_memory | rollout_summary | file
    thread_id UNINDEXED,
    path UNINDEXED,
    body,
    tokenize = 'porter unicode61'
);
