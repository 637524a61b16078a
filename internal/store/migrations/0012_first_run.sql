-- A version's first extraction takes every past session, not only those
-- inside the age and idle windows (docs/scheduling.md). The sessions
-- updated at or before the first run's clock are its backlog; the windows
-- leave them alone until every one is taken, so a first run cut short
-- (Ctrl-C, a crash, a failed call) is finished by the runs after it.
-- taken_at is set when no past session is left to take.
CREATE TABLE first_run (
    singleton     INTEGER PRIMARY KEY CHECK (singleton = 1),
    backlog_until INTEGER NOT NULL, -- unix ms: threads updated at or before it are past sessions
    sessions      INTEGER NOT NULL, -- how many past sessions the first run found
    started_at    INTEGER NOT NULL, -- unix seconds
    taken_at      INTEGER           -- unix seconds; NULL while past sessions wait
);

-- A consolidation that had nothing to consolidate (no raw memory, no
-- note, no extension resource) leaves the memory empty. Its success is
-- recorded as any other, but it starts no cooldown: the first raw memory
-- after it is consolidated at once.
ALTER TABLE jobs ADD COLUMN left_memory_empty INTEGER NOT NULL DEFAULT 0;
