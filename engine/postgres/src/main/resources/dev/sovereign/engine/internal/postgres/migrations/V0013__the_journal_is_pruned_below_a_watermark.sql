-- Sovereign PostgreSQL schema, version 13: the journal is pruned, but only below a watermark the database checks,
-- and a process refused a live lease again and again is counted, not journalled row by row (issue 29; decisions
-- 0018 and 0019). The same rules as the SQLite schema's version 15. Applied migrations are never edited.
--
--   * the policy (how long the journal is kept, at least an hour) is one row of `retention`; only the ledger's
--     operator role or its owner may set it or move its watermark;
--   * a journal row may be deleted only below the watermark `pruned_below` and when it is older than the policy,
--     measured from the newest row's own time but never past the server's clock, and only by the operator or the
--     owner. The watermark only moves
--     forward, never past the newest row, and only over rows older than the policy;
--   * even then the database keeps what a live row still needs: the ledger's own events, the grant of each actor's
--     current lease, every event of a run that is not settled and of its attempts, every event
--     of an unfinished message, and the newest event of each actor, existing assignment, existing message and
--     running process;
--   * supervisor ticks and contention windows older than the policy may go (the newest tick never);
--   * TRUNCATE stays refused on all three.

CREATE TABLE retention (
    kind         text PRIMARY KEY CHECK (kind IN ('journal')),
    keep_ms      bigint NOT NULL CHECK (keep_ms BETWEEN 3600000 AND 3153600000000),
    pruned_below bigint NOT NULL DEFAULT 0 CHECK (pruned_below >= 0),
    pruned_rows  bigint NOT NULL DEFAULT 0 CHECK (pruned_rows >= 0),
    pruned_at    bigint,
    set_at       bigint,
    set_by       text
);
-- 30 days: a month of history to look back on; the bound of a busy ledger (docs/operations.md).
INSERT INTO retention (kind, keep_ms) VALUES ('journal', 2592000000);

-- The time every retention rule measures from: the newest journal row's time, but never later than the server's
-- clock, so a worker login that journals a row dated in the future cannot make old what is not.
CREATE FUNCTION sovereign_retention_now() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT least((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), sovereign_now_ms())
$$;

-- retention_never_inserted, _never_deleted, _keeps_its_kind, _watermark_moves_forward,
-- _watermark_stays_below_the_newest_row, _watermark_covers_only_old_rows; set by the operator or the owner.
CREATE FUNCTION retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'UPDATE' OR NEW.kind IS DISTINCT FROM OLD.kind THEN
        RAISE EXCEPTION 'fence: the retention policy has one row per kind, written by the schema' USING ERRCODE = 'SV001';
    END IF;
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: the retention policy is set, and the journal pruned, only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF NEW.pruned_below < OLD.pruned_below OR NEW.pruned_rows < OLD.pruned_rows
            OR (OLD.pruned_at IS NOT NULL AND (NEW.pruned_at IS NULL OR NEW.pruned_at < OLD.pruned_at)) THEN
        RAISE EXCEPTION 'fence: the journal''s pruning watermark only moves forward' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.pruned_below > OLD.pruned_below THEN
        IF NEW.pruned_below > coalesce((SELECT max(seq) FROM fence_events), 0) THEN
            RAISE EXCEPTION 'fence: the journal''s pruning watermark never passes its newest row' USING ERRCODE = 'SV001';
        END IF;
        IF EXISTS (SELECT 1 FROM fence_events e WHERE e.seq >= OLD.pruned_below AND e.seq < NEW.pruned_below
                   AND e.at > sovereign_retention_now() - NEW.keep_ms) THEN
            RAISE EXCEPTION 'fence: the journal''s pruning watermark covers only rows older than the retention policy'
                USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER retention_guard BEFORE INSERT OR DELETE OR UPDATE ON retention FOR EACH ROW EXECUTE FUNCTION retention_guard();
CREATE TRIGGER retention_never_truncated BEFORE TRUNCATE ON retention FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: the retention policy has one row per kind, written by the schema');

-- ---- the journal: deleted only below the watermark, never what a live row needs ----------------------------------
DROP TRIGGER fence_events_never_changed ON fence_events;
CREATE TRIGGER fence_events_never_updated BEFORE UPDATE ON fence_events FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('the fence journal is append-only');
CREATE FUNCTION fence_events_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: the journal is pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.seq >= coalesce((SELECT pruned_below FROM retention WHERE kind = 'journal'), 0)
            OR OLD.at > sovereign_retention_now() - (SELECT keep_ms FROM retention WHERE kind = 'journal') THEN
        RAISE EXCEPTION 'fence: the fence journal is append-only above its pruning watermark' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.resource_type = 'ledger' THEN
        RAISE EXCEPTION 'fence: the ledger''s own events (restores, bumps, going backwards) are never pruned' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.kind IN ('LEASE_ACQUIRED', 'LEASE_TAKEN_OVER')
            AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.actor_id AND l.token = OLD.token) THEN
        RAISE EXCEPTION 'fence: the grant of an actor''s current lease is never pruned' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.resource_type IN ('assignment', 'attempt')
            AND EXISTS (SELECT 1 FROM assignments a
                        WHERE a.id = CASE OLD.resource_type WHEN 'assignment' THEN OLD.resource_id
                                     ELSE (SELECT t.assignment_id FROM execution_attempts t WHERE t.id = OLD.resource_id) END
                        AND (a.state IN ('CREATED', 'RUNNING')
                             OR (a.state IN ('FAILED', 'BLOCKED') AND a.acknowledged_at IS NULL
                                 AND NOT EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = a.id)))) THEN
        RAISE EXCEPTION 'fence: the events of a run that is not settled are never pruned' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.resource_type = 'message'
            AND EXISTS (SELECT 1 FROM messages m WHERE m.id = OLD.resource_id AND m.state NOT IN ('DONE', 'DEAD')) THEN
        RAISE EXCEPTION 'fence: the events of an unfinished message are never pruned' USING ERRCODE = 'SV001';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM fence_events n WHERE n.resource_type = OLD.resource_type
                   AND n.resource_id = OLD.resource_id AND n.seq > OLD.seq)
            AND (OLD.resource_type = 'actor'
                 OR (OLD.resource_type = 'assignment' AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.resource_id))
                 OR (OLD.resource_type = 'message' AND EXISTS (SELECT 1 FROM messages m WHERE m.id = OLD.resource_id))
                 OR (OLD.resource_type = 'process'
                     AND EXISTS (SELECT 1 FROM processes p WHERE p.identity = OLD.resource_id AND p.stopped_at IS NULL))) THEN
        RAISE EXCEPTION 'fence: the newest event of each actor, assignment, message and running process is kept' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER fence_events_guard_delete BEFORE DELETE ON fence_events FOR EACH ROW EXECUTE FUNCTION fence_events_guard_delete();

-- ---- the supervisor's ticks: the old ones go, never the newest ---------------------------------------------------
DROP TRIGGER supervisor_ticks_never_changed ON supervisor_ticks;
CREATE TRIGGER supervisor_ticks_never_updated BEFORE UPDATE ON supervisor_ticks FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: supervisor ticks are append-only');
CREATE FUNCTION supervisor_ticks_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: supervisor ticks are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.seq >= (SELECT max(seq) FROM supervisor_ticks)
            OR OLD.at > least((SELECT n.at FROM supervisor_ticks n ORDER BY n.seq DESC LIMIT 1), sovereign_now_ms())
                        - (SELECT keep_ms FROM retention WHERE kind = 'journal') THEN
        RAISE EXCEPTION 'fence: a supervisor tick is deleted only when older than the retention policy, never the newest'
            USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER supervisor_ticks_guard_delete BEFORE DELETE ON supervisor_ticks FOR EACH ROW EXECUTE FUNCTION supervisor_ticks_guard_delete();

-- ---- contention: a process refused a live lease, counted per ten-minute window -----------------------------------
CREATE TABLE lease_contention (
    actor_id         text NOT NULL,
    process_identity text NOT NULL,
    window_start     bigint NOT NULL CHECK (window_start % 600000 = 0),
    first_at         bigint NOT NULL,
    last_at          bigint NOT NULL,
    refusals         bigint NOT NULL CHECK (refusals >= 1),
    holder_token     bigint,
    first_seq        bigint NOT NULL,
    PRIMARY KEY (actor_id, process_identity, window_start),
    CHECK (first_at >= window_start AND first_at < window_start + 600000 AND last_at >= first_at
           AND last_at < window_start + 600000)
);
CREATE INDEX lease_contention_by_window ON lease_contention (window_start);

-- lease_contention_opens_with_one_refusal, _counts_forward, _deleted_only_when_old (by the operator or the owner)
CREATE FUNCTION lease_contention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.refusals <> 1 OR NEW.last_at <> NEW.first_at THEN
            RAISE EXCEPTION 'fence: a contention window opens with its first refusal' USING ERRCODE = 'SV001';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.actor_id IS DISTINCT FROM OLD.actor_id OR NEW.process_identity IS DISTINCT FROM OLD.process_identity
                OR NEW.window_start IS DISTINCT FROM OLD.window_start OR NEW.first_at IS DISTINCT FROM OLD.first_at
                OR NEW.first_seq IS DISTINCT FROM OLD.first_seq OR NEW.refusals <> OLD.refusals + 1 OR NEW.last_at < OLD.last_at THEN
            RAISE EXCEPTION 'fence: a contention window only counts one more refusal at a time' USING ERRCODE = 'SV001';
        END IF;
        RETURN NEW;
    END IF;
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: contention windows are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.last_at > coalesce(sovereign_retention_now(), 0) - (SELECT keep_ms FROM retention WHERE kind = 'journal') THEN
        RAISE EXCEPTION 'fence: a contention window is deleted only when older than the retention policy' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER lease_contention_guard BEFORE INSERT OR DELETE OR UPDATE ON lease_contention FOR EACH ROW EXECUTE FUNCTION lease_contention_guard();
CREATE TRIGGER lease_contention_never_truncated BEFORE TRUNCATE ON lease_contention FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: contention windows are pruned, never truncated');

-- As in every version: the functions see only the built-ins and the ledger, the guards fire in every session, and
-- the roles hold what they need: workers count contention and read the policy, the operator prunes and sets it.
DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
    operator text := 'sovereign_' || suffix || '_operator';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_retention_now() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION retention_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION fence_events_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION supervisor_ticks_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION lease_contention_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('REVOKE ALL ON retention, lease_contention FROM PUBLIC');
    EXECUTE format('GRANT SELECT ON retention TO %I', worker);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE ON lease_contention TO %I', worker);
    EXECUTE format('GRANT UPDATE ON retention TO %I', operator);
    EXECUTE format('GRANT DELETE ON fence_events, supervisor_ticks, lease_contention TO %I', operator);
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_retention_now() TO %I', worker);
END
$$;
ALTER TABLE retention ENABLE ALWAYS TRIGGER retention_guard;
ALTER TABLE fence_events ENABLE ALWAYS TRIGGER fence_events_never_updated;
ALTER TABLE fence_events ENABLE ALWAYS TRIGGER fence_events_guard_delete;
ALTER TABLE supervisor_ticks ENABLE ALWAYS TRIGGER supervisor_ticks_never_updated;
ALTER TABLE supervisor_ticks ENABLE ALWAYS TRIGGER supervisor_ticks_guard_delete;
ALTER TABLE lease_contention ENABLE ALWAYS TRIGGER lease_contention_guard;
ALTER TABLE retention ENABLE ALWAYS TRIGGER retention_never_truncated;
ALTER TABLE lease_contention ENABLE ALWAYS TRIGGER lease_contention_never_truncated;
