-- Project identity of every thread (docs/projects.md): the key the scan
-- computed (remote, root commit or path), its display name, the checkout's
-- top folder, and the fingerprint of the rules that computed it, so a
-- change of the [[projects]] overrides re-keys the threads on the next scan.
-- Existing rows keep '' until that scan fills them in.
ALTER TABLE threads ADD COLUMN project_key TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN project_name TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN project_root TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN project_rules TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_threads_project ON threads (project_key, updated_at_ms DESC);
