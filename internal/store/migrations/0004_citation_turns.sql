-- One row per agent turn whose citations were counted, so a hook that runs
-- twice for the same turn (Claude Code Stop hooks can, Codex notify may be
-- retried by a wrapper) adds each use once. turn_key is the agent's own
-- id of the turn (session id + turn or message id).
CREATE TABLE IF NOT EXISTS citation_turns (
    turn_key    TEXT PRIMARY KEY,
    recorded_at INTEGER NOT NULL
);
