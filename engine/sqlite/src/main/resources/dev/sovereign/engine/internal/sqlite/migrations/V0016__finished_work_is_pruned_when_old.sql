-- Sovereign schema, version 16: finished work is pruned too, when it is old and nothing live needs it (decision 0020).
-- Applied migrations are never edited.
--
-- Until now only the journal, the supervisor's ticks and the contention windows could go (version 15). Runs,
-- messages and stopped processes stayed forever. Each kind now has its own retention, a column of the one
-- `retention` row (so every process agrees), an hour to a century, 30 days by default; "old" is measured, like the
-- journal's, from the newest journal row's time. The database allows these deletions and no others:
--   * a run (its assignment, then its attempts and its receipt, in one transaction) once it ended, was settled
--     (completed, acknowledged, or retried) and is older than the runs' policy, with no attempt still active; a
--     retried run only with its retry (the retry must be deletable too), and the retry only after the run it retried,
--     so a chain goes from its first run to its last and never leaves a failure that looks unanswered;
--   * an attempt or a receipt only once its assignment is gone (the engine deletes them in the same transaction, with
--     the foreign keys checked at its commit);
--   * a message once it is DONE or DEAD and older than the messages' policy;
--   * a process once it stopped longer ago than the processes' policy and holds nothing: no lease, no active attempt,
--     no claimed message (a process that holds nothing has no authority left to revive under its old name).
-- The token counter is never pruned, so a token is never issued twice: an attempt's token, once its row is gone, is
-- still below the counter. A late write that presents a pruned attempt's or message's token finds no row and is
-- refused.

ALTER TABLE retention ADD COLUMN runs_keep_ms INTEGER NOT NULL DEFAULT 2592000000
    CHECK (typeof(runs_keep_ms) = 'integer' AND runs_keep_ms BETWEEN 3600000 AND 3153600000000);
ALTER TABLE retention ADD COLUMN messages_keep_ms INTEGER NOT NULL DEFAULT 2592000000
    CHECK (typeof(messages_keep_ms) = 'integer' AND messages_keep_ms BETWEEN 3600000 AND 3153600000000);
ALTER TABLE retention ADD COLUMN processes_keep_ms INTEGER NOT NULL DEFAULT 2592000000
    CHECK (typeof(processes_keep_ms) = 'integer' AND processes_keep_ms BETWEEN 3600000 AND 3153600000000);
ALTER TABLE retention ADD COLUMN pruned_runs INTEGER NOT NULL DEFAULT 0
    CHECK (typeof(pruned_runs) = 'integer' AND pruned_runs >= 0);
ALTER TABLE retention ADD COLUMN pruned_messages INTEGER NOT NULL DEFAULT 0
    CHECK (typeof(pruned_messages) = 'integer' AND pruned_messages >= 0);
ALTER TABLE retention ADD COLUMN pruned_processes INTEGER NOT NULL DEFAULT 0
    CHECK (typeof(pruned_processes) = 'integer' AND pruned_processes >= 0);

-- The ledger's housekeeping row also says when it was last backed up ('sovereign backup' marks its copy, and now the
-- ledger too): the metrics and the console show how old the newest backup is. Only forward.
ALTER TABLE retention ADD COLUMN last_backup_at INTEGER CHECK (last_backup_at IS NULL OR typeof(last_backup_at) = 'integer');
ALTER TABLE retention ADD COLUMN last_backup_id TEXT;
CREATE TRIGGER retention_last_backup_moves_forward BEFORE UPDATE ON retention
WHEN OLD.last_backup_at IS NOT NULL AND (NEW.last_backup_at IS NULL OR NEW.last_backup_at < OLD.last_backup_at)
BEGIN SELECT RAISE(ABORT, 'fence: the last backup''s time only moves forward'); END;

CREATE TRIGGER retention_counts_only_grow BEFORE UPDATE ON retention
WHEN NEW.pruned_runs < OLD.pruned_runs OR NEW.pruned_messages < OLD.pruned_messages
    OR NEW.pruned_processes < OLD.pruned_processes
BEGIN SELECT RAISE(ABORT, 'fence: what was pruned is counted forward only'); END;

-- ---- runs: an ended, settled, old assignment, then its attempts and receipt --------------------------------------
DROP TRIGGER assignments_never_deleted;
CREATE TRIGGER assignments_deleted_only_when_settled_and_old BEFORE DELETE ON assignments
WHEN OLD.state NOT IN ('COMPLETED', 'FAILED', 'BLOCKED')
    OR (OLD.state <> 'COMPLETED' AND OLD.acknowledged_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = OLD.id))
    OR OLD.updated_at > coalesce((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), 0)
                        - (SELECT runs_keep_ms FROM retention WHERE kind = 'journal')
    OR EXISTS (SELECT 1 FROM execution_attempts t WHERE t.assignment_id = OLD.id AND t.state = 'ACTIVE')
BEGIN SELECT RAISE(ABORT, 'fence: a run is deleted only when it ended, was settled and is older than the retention policy'); END;
CREATE TRIGGER assignments_deleted_with_their_retry BEFORE DELETE ON assignments
WHEN EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = OLD.id
             AND (r.state NOT IN ('COMPLETED', 'FAILED', 'BLOCKED')
                  OR (r.state <> 'COMPLETED' AND r.acknowledged_at IS NULL
                      AND NOT EXISTS (SELECT 1 FROM assignments r2 WHERE r2.retry_of = r.id))
                  OR r.updated_at > coalesce((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), 0)
                                    - (SELECT runs_keep_ms FROM retention WHERE kind = 'journal')))
BEGIN SELECT RAISE(ABORT, 'fence: a retried run is deleted only with its retry, which must be settled and old too'); END;
CREATE TRIGGER assignments_deleted_after_the_run_they_retried BEFORE DELETE ON assignments
WHEN OLD.retry_of IS NOT NULL AND EXISTS (SELECT 1 FROM assignments o WHERE o.id = OLD.retry_of)
BEGIN SELECT RAISE(ABORT, 'fence: a retry is deleted only after the run it retried'); END;

DROP TRIGGER attempts_never_deleted;
CREATE TRIGGER attempts_deleted_only_with_their_run BEFORE DELETE ON execution_attempts
WHEN OLD.state = 'ACTIVE' OR EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id)
BEGIN SELECT RAISE(ABORT, 'fence: an attempt is deleted only with its run, after it'); END;

DROP TRIGGER receipts_never_deleted;
CREATE TRIGGER receipts_deleted_only_with_their_run BEFORE DELETE ON receipts
WHEN EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.assignment_id)
BEGIN SELECT RAISE(ABORT, 'fence: a receipt is deleted only with its run, after it'); END;

-- ---- messages: finished and old ----------------------------------------------------------------------------------
-- The prune's worklists: finished messages and stopped processes by age (runs use assignments_by_state).
CREATE INDEX messages_finished_by_time ON messages (state, updated_at) WHERE state IN ('DONE', 'DEAD');
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
DROP TRIGGER messages_never_deleted;
CREATE TRIGGER messages_deleted_only_when_finished_and_old BEFORE DELETE ON messages
WHEN OLD.state NOT IN ('DONE', 'DEAD')
    OR OLD.updated_at > coalesce((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), 0)
                        - (SELECT messages_keep_ms FROM retention WHERE kind = 'journal')
BEGIN SELECT RAISE(ABORT, 'fence: a message is deleted only when it is finished and older than the retention policy'); END;

-- ---- processes: stopped long ago, holding nothing ----------------------------------------------------------------
CREATE TRIGGER processes_deleted_only_when_stopped_long_ago_holding_nothing BEFORE DELETE ON processes
WHEN OLD.stopped_at IS NULL
    OR OLD.stopped_at > coalesce((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), 0)
                        - (SELECT processes_keep_ms FROM retention WHERE kind = 'journal')
    OR EXISTS (SELECT 1 FROM actor_leases l WHERE l.process_identity = OLD.identity)
    OR EXISTS (SELECT 1 FROM execution_attempts t WHERE t.process_identity = OLD.identity AND t.state = 'ACTIVE')
    OR EXISTS (SELECT 1 FROM messages m WHERE m.state = 'CLAIMED' AND m.claim_process = OLD.identity)
BEGIN SELECT RAISE(ABORT, 'fence: a process is deleted only when it stopped longer ago than the retention policy and holds nothing'); END;
