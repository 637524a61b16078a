-- What a call cost, as the provider said (only the agent CLIs say so:
-- Claude Code reports the API list price of every call, whatever the
-- login); 0 when it said nothing.
ALTER TABLE token_usage ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
