-- Where each raw memory came from (docs/security.md): a session on this
-- machine, the user (memctl memories edit), another machine by sync, a
-- bundle by import; origin_detail names the machine or the bundle. Text
-- from another machine or a bundle passed the quarantine's untrusted
-- rules, or the user's review, before it was stored.
ALTER TABLE stage1_outputs ADD COLUMN origin TEXT NOT NULL DEFAULT 'session';
ALTER TABLE stage1_outputs ADD COLUMN origin_detail TEXT NOT NULL DEFAULT '';

UPDATE stage1_outputs SET
    origin = CASE WHEN (SELECT t.source FROM threads t WHERE t.id = stage1_outputs.thread_id) LIKE 'bundle%' THEN 'import' ELSE 'sync' END,
    origin_detail = (SELECT CASE WHEN t.source LIKE 'sync-conflict:%' THEN substr(t.source, 15) ELSE t.source END
                     FROM threads t WHERE t.id = stage1_outputs.thread_id)
WHERE thread_id IN (SELECT id FROM threads WHERE source_kind = 'imported');
UPDATE stage1_outputs SET origin = 'user' WHERE edited_at IS NOT NULL AND origin = 'session';

-- How each ad hoc note ranks when more notes exist than the summary
-- holds (docs/history.md): the user's pin, its uses (memctl cite counts
-- a citation of the note's file), the last use. Rows go with the note.
CREATE TABLE note_marks (
    name        TEXT PRIMARY KEY,          -- the note's file name under extensions/ad_hoc/notes/
    pinned      INTEGER NOT NULL DEFAULT 0,
    usage_count INTEGER NOT NULL DEFAULT 0,
    last_usage  INTEGER
);
