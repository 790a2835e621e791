-- Access control (issue 13). Keep in step with ../sqlite/V4__token_expiry_and_disabled_users.sql.
-- A disabled user is refused at once, whatever tokens it holds.
ALTER TABLE users ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
-- Every token expires. Tokens made before this version get the default lifetime (90 days) from their creation,
-- but at least 7 days from this upgrade, so that an upgrade never locks everyone out at once.
ALTER TABLE tokens ADD COLUMN expires_at_ms BIGINT NOT NULL DEFAULT 0;
UPDATE tokens SET expires_at_ms = GREATEST(created_at_ms + 7776000000,
                                           CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT) + 604800000);
-- The token that minted this one (its hash), null for tokens made outside the API (bootstrap, demo, tests):
-- revoking a token revokes every token minted from it, transitively.
ALTER TABLE tokens ADD COLUMN minted_by TEXT NULL;
CREATE INDEX tokens_by_minter ON tokens (minted_by);
