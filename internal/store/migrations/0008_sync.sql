-- Memory that travels (docs/sync.md): what this database last agreed
-- with the sync log for each raw memory and note, so that `memctl sync`
-- can tell a change made here (to send) from one made elsewhere (to take
-- in). Imported memories keep their threads as rows of source_kind
-- 'imported', with the machine or bundle they came from in source.
CREATE TABLE sync_memories (
    thread_id TEXT PRIMARY KEY,
    heads     TEXT NOT NULL DEFAULT '[]', -- JSON array of revisions; more than one: a conflict
    pinned    INTEGER NOT NULL DEFAULT 0,
    forgotten INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE sync_notes (
    path TEXT PRIMARY KEY,                -- extensions/ad_hoc/notes/<name>
    rev  TEXT NOT NULL
);
