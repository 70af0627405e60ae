-- Sovereign PostgreSQL schema, version 14: finished work is pruned too, when it is old and nothing live needs it
-- (issue 29; decision 0020). The same rules as the SQLite schema's version 16. Applied migrations are never edited.
--
--   * each kind has its own retention, a column of the one `retention` row, an hour to a century, 30 days by
--     default; "old" is measured from the newest journal row's time, never past the server's clock;
--   * a run (its assignment, then its attempts and its receipt, in one transaction) may go once it ended, was
--     settled and is older than the runs' policy, with no attempt still active; a retried run only with its retry,
--     the retry only after the run it retried; an attempt or a receipt only once its assignment is gone;
--   * a message once it is DONE or DEAD and older than the messages' policy;
--   * a process once it stopped longer ago than the processes' policy and holds nothing (no lease, no active
--     attempt, no claimed message);
--   * only the operator role or the owner deletes; TRUNCATE stays refused.
-- The foreign keys from a run's attempts, receipt and retry to the rows they name become DEFERRABLE (still checked
-- at once unless a transaction defers them), so the prune deletes the assignment first and its attempts and receipt
-- after it, checked at its commit. Deferring lets nothing in: every insert guard of these tables checks that the row
-- it names exists, and the naming columns never change.

ALTER TABLE retention
    ADD COLUMN runs_keep_ms bigint NOT NULL DEFAULT 2592000000 CHECK (runs_keep_ms BETWEEN 3600000 AND 3153600000000),
    ADD COLUMN messages_keep_ms bigint NOT NULL DEFAULT 2592000000
        CHECK (messages_keep_ms BETWEEN 3600000 AND 3153600000000),
    ADD COLUMN processes_keep_ms bigint NOT NULL DEFAULT 2592000000
        CHECK (processes_keep_ms BETWEEN 3600000 AND 3153600000000),
    ADD COLUMN pruned_runs bigint NOT NULL DEFAULT 0 CHECK (pruned_runs >= 0),
    ADD COLUMN pruned_messages bigint NOT NULL DEFAULT 0 CHECK (pruned_messages >= 0),
    ADD COLUMN pruned_processes bigint NOT NULL DEFAULT 0 CHECK (pruned_processes >= 0),
    -- when the ledger was last backed up, as a backup tool reports it (SQLite's 'sovereign backup' writes it there)
    ADD COLUMN last_backup_at bigint,
    ADD COLUMN last_backup_id text;

-- retention_counts_only_grow, retention_last_backup_moves_forward (the policy's own guard, retention_guard, still decides who may update the row)
CREATE FUNCTION retention_counts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.pruned_runs < OLD.pruned_runs OR NEW.pruned_messages < OLD.pruned_messages
            OR NEW.pruned_processes < OLD.pruned_processes THEN
        RAISE EXCEPTION 'fence: what was pruned is counted forward only' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.last_backup_at IS NOT NULL AND (NEW.last_backup_at IS NULL OR NEW.last_backup_at < OLD.last_backup_at) THEN
        RAISE EXCEPTION 'fence: the last backup''s time only moves forward' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER retention_counts_guard BEFORE UPDATE ON retention FOR EACH ROW EXECUTE FUNCTION retention_counts_guard();

ALTER TABLE execution_attempts ALTER CONSTRAINT execution_attempts_assignment_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
ALTER TABLE receipts ALTER CONSTRAINT receipts_assignment_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
ALTER TABLE receipts ALTER CONSTRAINT receipts_attempt_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
ALTER TABLE assignments ALTER CONSTRAINT assignments_retry_of_fkey DEFERRABLE INITIALLY IMMEDIATE;

-- ---- runs: an ended, settled, old assignment, then its attempts and receipt --------------------------------------
-- assignments_deleted_only_when_settled_and_old, _deleted_with_their_retry, _deleted_after_the_run_they_retried
CREATE FUNCTION assignments_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    cutoff bigint := coalesce(sovereign_retention_now(), 0) - (SELECT runs_keep_ms FROM retention WHERE kind = 'journal');
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: runs are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.state NOT IN ('COMPLETED', 'FAILED', 'BLOCKED')
            OR (OLD.state <> 'COMPLETED' AND OLD.acknowledged_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = OLD.id))
            OR OLD.updated_at > cutoff
            OR EXISTS (SELECT 1 FROM execution_attempts t WHERE t.assignment_id = OLD.id AND t.state = 'ACTIVE') THEN
        RAISE EXCEPTION 'fence: a run is deleted only when it ended, was settled and is older than the retention policy'
            USING ERRCODE = 'SV001';
    END IF;
    IF EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = OLD.id
               AND (r.state NOT IN ('COMPLETED', 'FAILED', 'BLOCKED')
                    OR (r.state <> 'COMPLETED' AND r.acknowledged_at IS NULL
                        AND NOT EXISTS (SELECT 1 FROM assignments r2 WHERE r2.retry_of = r.id))
                    OR r.updated_at > cutoff)) THEN
        RAISE EXCEPTION 'fence: a retried run is deleted only with its retry, which must be settled and old too'
            USING ERRCODE = 'SV001';
    END IF;
    IF OLD.retry_of IS NOT NULL AND EXISTS (SELECT 1 FROM assignments o WHERE o.id = OLD.retry_of) THEN
        RAISE EXCEPTION 'fence: a retry is deleted only after the run it retried' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
DROP TRIGGER assignments_never_deleted ON assignments;
CREATE TRIGGER assignments_guard_delete BEFORE DELETE ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_guard_delete();

-- attempts_deleted_only_with_their_run, receipts_deleted_only_with_their_run
CREATE FUNCTION run_rows_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: runs are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    -- a receipt has no state: its table is asked first, on its own (plpgsql does not short-circuit)
    IF TG_TABLE_NAME = 'execution_attempts' THEN
        IF OLD.state = 'ACTIVE' THEN
            RAISE EXCEPTION 'fence: an attempt or a receipt is deleted only with its run, after it' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id) THEN
        RAISE EXCEPTION 'fence: an attempt or a receipt is deleted only with its run, after it' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
DROP TRIGGER attempts_never_deleted ON execution_attempts;
CREATE TRIGGER attempts_guard_delete BEFORE DELETE ON execution_attempts FOR EACH ROW EXECUTE FUNCTION run_rows_guard_delete();
DROP TRIGGER receipts_never_changed ON receipts;
CREATE TRIGGER receipts_never_updated BEFORE UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('receipts are immutable');
CREATE TRIGGER receipts_guard_delete BEFORE DELETE ON receipts FOR EACH ROW EXECUTE FUNCTION run_rows_guard_delete();

-- ---- messages: finished and old ----------------------------------------------------------------------------------
CREATE INDEX messages_finished_by_time ON messages (state, updated_at) WHERE state IN ('DONE', 'DEAD');
CREATE FUNCTION messages_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: messages are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.state NOT IN ('DONE', 'DEAD')
            OR OLD.updated_at > coalesce(sovereign_retention_now(), 0)
                                - (SELECT messages_keep_ms FROM retention WHERE kind = 'journal') THEN
        RAISE EXCEPTION 'fence: a message is deleted only when it is finished and older than the retention policy'
            USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
DROP TRIGGER messages_never_deleted ON messages;
CREATE TRIGGER messages_guard_delete BEFORE DELETE ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_delete();

-- ---- processes: stopped long ago, holding nothing ----------------------------------------------------------------
CREATE INDEX processes_stopped_by_time ON processes (stopped_at) WHERE stopped_at IS NOT NULL;
-- A process is pruned only when no attempt names it: every attempt by process, not only the active ones (the same
-- entries, with the state: the supervisor's look-up of a process's active attempts reads it as before).
DROP INDEX attempts_active_by_process;
CREATE INDEX attempts_by_process ON execution_attempts (process_identity, state);
-- Deleting an attempt makes the database look for the assignments that still name it (the foreign keys of
-- current_attempt and ended_by_attempt): without an index on each, every pruned attempt read the whole table
-- (PruneStallProbe: a batch of runs held the write lock 147 ms; 8 ms for the journal's). Partial: only rows that
-- name an attempt.
CREATE INDEX assignments_by_current_attempt ON assignments (current_attempt) WHERE current_attempt IS NOT NULL;
CREATE INDEX assignments_by_ended_attempt ON assignments (ended_by_attempt) WHERE ended_by_attempt IS NOT NULL;
CREATE FUNCTION processes_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: processes are pruned only by the ledger''s operator role or its owner, not by %',
            session_user USING ERRCODE = 'SV001';
    END IF;
    IF OLD.stopped_at IS NULL
            OR OLD.stopped_at > coalesce(sovereign_retention_now(), 0)
                                - (SELECT processes_keep_ms FROM retention WHERE kind = 'journal')
            OR EXISTS (SELECT 1 FROM actor_leases l WHERE l.process_identity = OLD.identity)
            OR EXISTS (SELECT 1 FROM execution_attempts t WHERE t.process_identity = OLD.identity AND t.state = 'ACTIVE')
            OR EXISTS (SELECT 1 FROM messages m WHERE m.state = 'CLAIMED' AND m.claim_process = OLD.identity) THEN
        RAISE EXCEPTION 'fence: a process is deleted only when it stopped longer ago than the retention policy and holds nothing'
            USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER processes_guard_delete BEFORE DELETE ON processes FOR EACH ROW EXECUTE FUNCTION processes_guard_delete();
CREATE TRIGGER processes_never_truncated BEFORE TRUNCATE ON processes FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: processes are pruned, never truncated');

DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    operator text := 'sovereign_' || suffix || '_operator';
BEGIN
    EXECUTE format('ALTER FUNCTION retention_counts_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION assignments_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION run_rows_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION messages_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION processes_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('GRANT DELETE ON assignments, execution_attempts, receipts, messages, processes TO %I', operator);
END
$$;
ALTER TABLE retention ENABLE ALWAYS TRIGGER retention_counts_guard;
ALTER TABLE assignments ENABLE ALWAYS TRIGGER assignments_guard_delete;
ALTER TABLE execution_attempts ENABLE ALWAYS TRIGGER attempts_guard_delete;
ALTER TABLE receipts ENABLE ALWAYS TRIGGER receipts_never_updated;
ALTER TABLE receipts ENABLE ALWAYS TRIGGER receipts_guard_delete;
ALTER TABLE messages ENABLE ALWAYS TRIGGER messages_guard_delete;
ALTER TABLE processes ENABLE ALWAYS TRIGGER processes_guard_delete;
ALTER TABLE processes ENABLE ALWAYS TRIGGER processes_never_truncated;
