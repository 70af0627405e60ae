-- Sovereign PostgreSQL schema, version 4: an ACTIVE attempt ends or is renewed only the way the engine
-- does it (issue 19; docs/decisions/0113-an-active-attempt-ends-only-through-its-fence.md), the twin of
-- the SQLite schema's version 5. Applied migrations are never edited.
--
-- Until version 3 the guards kept an attempt's identity and kept an ended attempt final, but a worker
-- login could end someone else's ACTIVE attempt by hand (UPDATE ... SET state = 'DONE'), or move its
-- expiry (into the past, so the supervisor recovers it early; into the far future, so it never does).
-- The engine changes an ACTIVE attempt in exactly these ways, and this guard allows only them:
--   * DONE       — after its assignment's fenced terminal write in the same transaction: the assignment
--                  has ended with ended_by_attempt = this attempt, ended_via = 'attempt' (PgRuns.finish);
--   * RECOVERED  — after the supervisor's recovery ended the assignment FAILED with ended_by_attempt =
--                  this attempt, ended_via = 'recovery' (PgRecovery.recover);
--   * SUPERSEDED — once it has expired on the server's clock: a new attempt takes its place
--                  (PgRuns.startAttempt) or the supervisor retires it while another attempt is current;
--   * LOST       — once it has expired, when its assignment no longer points at it (the supervisor);
--   * a renewal  — the heartbeat: renewed_at and expires_at only forward, renewed_at never ahead of the
--                  server's clock and a moved expiry at most ttl_ms after it, while the assignment still
--                  points at the attempt and the actor lease still carries its bound token and process.
-- An ending never renews in the same write, and ttl_ms never changes. INSERT ... ON CONFLICT DO UPDATE
-- is already refused by execution_attempts_guard_insert (BEFORE INSERT fires first). The trigger's name
-- sorts after execution_attempts_guard_update, so identity changes and ended attempts keep their words.
CREATE FUNCTION execution_attempts_guard_update_live() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
BEGIN
    IF OLD.state IS DISTINCT FROM 'ACTIVE' THEN
        RETURN NEW;
    END IF;
    now_ms := sovereign_now_ms();
    IF NEW.state IS DISTINCT FROM 'ACTIVE' THEN
        IF NOT (NEW.ended_at IS NOT NULL AND NEW.renewed_at IS NOT DISTINCT FROM OLD.renewed_at
                AND NEW.expires_at IS NOT DISTINCT FROM OLD.expires_at AND NEW.ttl_ms IS NOT DISTINCT FROM OLD.ttl_ms
                AND ((NEW.state = 'DONE' AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id
                          AND a.state IN ('COMPLETED', 'BLOCKED', 'FAILED') AND a.ended_by_attempt = OLD.id
                          AND a.ended_via = 'attempt'))
                  OR (NEW.state = 'RECOVERED' AND OLD.expires_at <= now_ms
                      AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id AND a.state = 'FAILED'
                          AND a.ended_by_attempt = OLD.id AND a.ended_via = 'recovery'))
                  OR (NEW.state = 'SUPERSEDED' AND OLD.expires_at <= now_ms)
                  OR (NEW.state = 'LOST' AND OLD.expires_at <= now_ms
                      AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id
                          AND a.current_attempt = OLD.id)))) THEN
            RAISE EXCEPTION 'fence: an ACTIVE attempt ends DONE only after its assignment''s fenced terminal write, RECOVERED only with its assignment''s recovery, SUPERSEDED or LOST only once it has expired' USING ERRCODE = 'SV001';
        END IF;
    ELSIF NEW.renewed_at IS DISTINCT FROM OLD.renewed_at OR NEW.expires_at IS DISTINCT FROM OLD.expires_at
            OR NEW.ttl_ms IS DISTINCT FROM OLD.ttl_ms OR NEW.ended_at IS NOT NULL THEN
        -- Wait for a concurrent takeover of the actor's lease to commit, and see its result.
        PERFORM 1 FROM actor_leases WHERE actor_id = OLD.actor_id FOR SHARE;
        IF NOT (NEW.ttl_ms IS NOT DISTINCT FROM OLD.ttl_ms AND NEW.ended_at IS NULL
                AND NEW.expires_at >= OLD.expires_at AND NEW.renewed_at >= OLD.renewed_at
                AND NEW.renewed_at <= GREATEST(OLD.renewed_at, now_ms)
                AND (NEW.expires_at = OLD.expires_at OR NEW.expires_at <= NEW.renewed_at + OLD.ttl_ms)
                AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id AND a.current_attempt = OLD.id)
                AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.actor_id AND l.token = OLD.lease_token
                            AND l.process_identity = OLD.process_identity)) THEN
            RAISE EXCEPTION 'fence: an ACTIVE attempt is renewed only forward, by at most its ttl, while its assignment points at it and the actor lease still carries its bound token and process' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER execution_attempts_guard_update_live BEFORE UPDATE ON execution_attempts FOR EACH ROW EXECUTE FUNCTION execution_attempts_guard_update_live();

-- As in versions 1 and 2: the guard sees only the built-ins and the ledger, and fires in every session.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION execution_attempts_guard_update_live() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END
$$;
ALTER TABLE execution_attempts ENABLE ALWAYS TRIGGER execution_attempts_guard_update_live;
