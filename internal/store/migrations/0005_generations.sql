-- Control over memory (DESIGN.md section 8): single raw memories can be
-- pinned, edited and forgotten, and every consolidation that changed the
-- memory folder is kept as a generation that can be reviewed before it
-- lands and restored later.

-- A pinned memory is never pruned and ranks first in the Phase 2 selection.
ALTER TABLE stage1_outputs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
-- When the user last replaced the text (memctl memories edit): the memory
-- is then user-asserted, and a new extraction of its thread leaves it alone.
ALTER TABLE stage1_outputs ADD COLUMN edited_at INTEGER;

-- One row per memory the user forgot, so that history can tell which old
-- generations were built from it (and refuse to bring it back unasked).
CREATE TABLE forgotten_memories (
    thread_id    TEXT PRIMARY KEY,
    forgotten_at INTEGER NOT NULL
);

-- Reasons the next consolidation must run even inside the six-hour
-- cooldown (and regenerate the artifacts even when the folder's inputs
-- look unchanged). A successful consolidation deletes the rows it saw.
CREATE TABLE consolidation_requests (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    reason       TEXT NOT NULL,
    regenerate   INTEGER NOT NULL DEFAULT 0,
    requested_at INTEGER NOT NULL
);

-- Generations. Contents are stored once per distinct text (sha256), so the
-- rollout summaries that most generations share cost one copy.
CREATE TABLE generation_blobs (
    hash    TEXT PRIMARY KEY,
    content BLOB NOT NULL
);

CREATE TABLE generations (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at     INTEGER NOT NULL,
    state          TEXT NOT NULL,          -- approved | pending | rejected
    kind           TEXT NOT NULL,          -- consolidation | rollback
    parent_id      INTEGER,                -- the generation it was built on (the current one then)
    restored_from  INTEGER,                -- rollback: the generation restored
    mode           TEXT NOT NULL DEFAULT '', -- heuristic | model | agent
    provider       TEXT NOT NULL DEFAULT '',
    model          TEXT NOT NULL DEFAULT '',
    selected       INTEGER NOT NULL DEFAULT 0,
    input_tokens   INTEGER NOT NULL DEFAULT 0,
    output_tokens  INTEGER NOT NULL DEFAULT 0,
    total_tokens   INTEGER NOT NULL DEFAULT 0,
    added          INTEGER NOT NULL DEFAULT 0,
    modified       INTEGER NOT NULL DEFAULT 0,
    deleted        INTEGER NOT NULL DEFAULT 0,
    watermark      INTEGER NOT NULL DEFAULT 0,
    workspace_diff TEXT,                   -- blob hash of phase2_workspace_diff.md
    requests_up_to INTEGER NOT NULL DEFAULT 0, -- pending: the consolidation_requests it answers
    settled_at     INTEGER                 -- approved, rejected or landed
);
CREATE INDEX idx_generations_state ON generations (state, id);

-- The memory folder of a generation (the diff file excepted).
CREATE TABLE generation_files (
    generation_id INTEGER NOT NULL REFERENCES generations (id) ON DELETE CASCADE,
    path          TEXT NOT NULL,
    mode          INTEGER NOT NULL,
    blob          TEXT NOT NULL,
    PRIMARY KEY (generation_id, path)
);
CREATE INDEX idx_generation_files_blob ON generation_files (blob);

-- The raw memories a generation selected, as they were then.
CREATE TABLE generation_inputs (
    generation_id     INTEGER NOT NULL REFERENCES generations (id) ON DELETE CASCADE,
    thread_id         TEXT NOT NULL,
    source_updated_at INTEGER NOT NULL,
    raw_memory        TEXT NOT NULL,       -- blob hash
    rollout_summary   TEXT NOT NULL,       -- blob hash
    pinned            INTEGER NOT NULL DEFAULT 0,
    user_asserted     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (generation_id, thread_id)
);
CREATE INDEX idx_generation_inputs_raw ON generation_inputs (raw_memory);
CREATE INDEX idx_generation_inputs_summary ON generation_inputs (rollout_summary);

-- A generation being written into the memory folder (approve, rollback).
-- The row is inserted before the first file is touched and deleted in the
-- transaction that records the result, so a crash in between is finished
-- by the next command that takes the consolidation lock.
CREATE TABLE generation_landing (
    singleton     INTEGER PRIMARY KEY CHECK (singleton = 1),
    action        TEXT NOT NULL,           -- approve | rollback
    generation_id INTEGER NOT NULL,        -- the generation whose files are written
    started_at    INTEGER NOT NULL
);
