-- What each raw memory rests on (docs/stale.md): the files it names, with
-- the cited lines, and the project commands it relies on, as they were at
-- extraction; the verdict of the last check at consolidation. Rows go with
-- their raw memory (prune, forget, clear, a new extraction).
CREATE TABLE evidence (
    thread_id   TEXT NOT NULL REFERENCES stage1_outputs (thread_id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,                 -- file | command
    ref_path    TEXT NOT NULL,                 -- as the memory names it (the script file, for a command)
    line_start  INTEGER NOT NULL DEFAULT 0,
    line_end    INTEGER NOT NULL DEFAULT 0,
    runner      TEXT NOT NULL DEFAULT '',      -- make | npm | pnpm | yarn | just
    target      TEXT NOT NULL DEFAULT '',
    abs_path    TEXT NOT NULL,                 -- what is checked
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    hash        TEXT NOT NULL DEFAULT '',
    sketch      TEXT NOT NULL DEFAULT '',
    range_hash  TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL DEFAULT 'ok',    -- ok | changed | gone | unknown, at the last check
    reason      TEXT NOT NULL DEFAULT '',
    checked_at  INTEGER,
    PRIMARY KEY (thread_id, seq)
);

-- Lines held back at extraction because they read like orders to the next
-- agent (docs/security.md); `memctl doctor` lists them.
CREATE TABLE quarantine (
    id          INTEGER PRIMARY KEY,
    thread_id   TEXT NOT NULL REFERENCES stage1_outputs (thread_id) ON DELETE CASCADE,
    field       TEXT NOT NULL,                 -- raw_memory | rollout_summary | rollout_slug
    line        INTEGER NOT NULL,
    reason      TEXT NOT NULL,                 -- injection | exfiltration | fetch_url | unverified_command
    text        TEXT NOT NULL,
    recorded_at INTEGER NOT NULL
);
CREATE INDEX idx_quarantine_thread ON quarantine (thread_id);

-- The commit checked out where the memory's session ran, at extraction;
-- and how many successful consolidations selected the memory (a memory
-- selected many times and never cited is dead weight).
ALTER TABLE stage1_outputs ADD COLUMN evidence_commit TEXT NOT NULL DEFAULT '';
ALTER TABLE stage1_outputs ADD COLUMN consolidations INTEGER NOT NULL DEFAULT 0;
