-- Forget purges (docs/security.md): a generation that may hold text derived
-- from a forgotten memory loses its files, inputs and workspace diff; the
-- row stays, for the history, with when that happened. A purged generation
-- can no longer be restored.
ALTER TABLE generations ADD COLUMN purged_at INTEGER;
