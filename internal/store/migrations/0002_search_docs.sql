-- Search documents move to a plain table with an index on thread_id, and
-- the FTS5 table indexes it as external content. Deleting a thread's
-- documents no longer scans the whole full-text table (it did, because
-- FTS5 cannot index its UNINDEXED columns), and ranking can read rowids
-- and scores alone.
DROP TABLE search_index;

CREATE TABLE search_docs (
    id        INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL,              -- raw_memory | rollout_summary | file
    thread_id TEXT NOT NULL DEFAULT '',
    path      TEXT NOT NULL DEFAULT '',
    body      TEXT NOT NULL
);
CREATE INDEX idx_search_docs_owner ON search_docs (thread_id, kind);

CREATE VIRTUAL TABLE search_index USING fts5 (
    body,
    content = 'search_docs',
    content_rowid = 'id',
    tokenize = 'porter unicode61'
);

CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_index (rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_index (search_index, rowid, body) VALUES ('delete', old.id, old.body);
END;

INSERT INTO search_docs (kind, thread_id, body)
SELECT 'raw_memory', thread_id, raw_memory FROM stage1_outputs WHERE length(raw_memory) > 0;
INSERT INTO search_docs (kind, thread_id, body)
SELECT 'rollout_summary', thread_id, rollout_summary FROM stage1_outputs WHERE length(rollout_summary) > 0;
