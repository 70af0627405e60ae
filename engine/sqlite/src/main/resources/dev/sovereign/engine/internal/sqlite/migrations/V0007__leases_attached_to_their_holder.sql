-- Schema version 7: a lease kept alive by its holder's heartbeat (issue 16, docs/decisions/0509).
--
-- A lease row may be ATTACHED to its holder's session, the holder's row in processes: its effective
-- expiry is then the later of its own expires_at and the holder's last heartbeat plus the lease's own
-- TTL, so one beat (one processes row) keeps every attached lease of the process alive, however many
-- it holds. Safety does not change: a takeover still mints a greater token and every write still
-- presents the row's token; only WHEN a takeover is allowed reads the session (time decides liveness,
-- tokens decide safety). Rows written before this version are not attached and behave as before.
ALTER TABLE actor_leases ADD COLUMN attached INTEGER NOT NULL DEFAULT 0 CHECK (attached IN (0, 1));

-- The supervisor's worklist of expired leases: an attached row's own expires_at is only its floor, so
-- only rows that are not attached are found by it; attached ones are found through their holder.
DROP INDEX actor_leases_by_expiry;
CREATE INDEX actor_leases_by_expiry ON actor_leases (expires_at) WHERE attached = 0;
-- One process's attached leases with what the beat checks of each (its token, and the columns that say the
-- row is sane): the beat's check of what it holds reads only this index.
DROP INDEX actor_leases_by_process;
CREATE INDEX actor_leases_by_process ON actor_leases (process_identity, attached, token, ttl_ms, renewed_at, expires_at);

-- The takeover guard of version 3 compares the row's own expires_at; for an attached row that is only its
-- floor. This one adds the holder's session: a takeover of an attached lease waits until the holder's last
-- heartbeat plus the lease's TTL has passed too (a missing holder row keeps only the row's own expiry).
CREATE TRIGGER actor_leases_takeover_waits_for_the_holders_session BEFORE UPDATE ON actor_leases
WHEN NEW.token IS NOT OLD.token AND OLD.attached = 1
    AND (SELECT p.heartbeat_at FROM processes p WHERE p.identity = OLD.process_identity) + OLD.ttl_ms > NEW.acquired_at
BEGIN SELECT RAISE(ABORT, 'fence: a takeover of an attached lease waits until its holder''s heartbeat has expired too'); END;
