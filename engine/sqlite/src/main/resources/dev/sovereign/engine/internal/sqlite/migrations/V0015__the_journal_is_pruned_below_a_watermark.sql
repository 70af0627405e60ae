-- Sovereign schema, version 15: the journal is pruned, but only below a watermark the database checks, and a
-- process refused a live lease again and again is counted, not journalled row by row (decisions 0018 and 0019).
-- Applied migrations are never edited.
--
-- Until now nothing was ever deleted: the journal, the supervisor's ticks and the refusals of contending processes
-- grew for as long as the ledger lived. Deleting is now allowed, and only this way:
--   * the policy (how long the journal is kept, at least an hour) is one row of `retention`, set by an operator;
--   * its `pruned_below` is the watermark: a journal row with a smaller seq may be deleted, no other, and only when it
--     is older than the policy too. It only moves
--     forward, never past the newest row (rows appended later are always above it), and only over rows older than
--     the policy, measured from the newest row's own time (the ledger's clock, not the pruning process's);
--   * even below the watermark the database keeps what a live row still needs: the ledger's own events (restores,
--     bumps, a ledger that went backwards), the grant of each actor's current lease, every event
--     of a run that is not settled (running, or failed or blocked and neither retried nor acknowledged) and of its
--     attempts, every event of an unfinished message, and the newest event of each actor, existing assignment,
--     existing message and running process;
--   * the supervisor's ticks older than the policy may go, never the newest;
--   * a contention window older than the policy may go.
-- Every refusal that presents a token keeps its own journal row, as before (decision 0005).

CREATE TABLE retention (
    kind         TEXT PRIMARY KEY CHECK (kind IN ('journal')),
    keep_ms      INTEGER NOT NULL CHECK (typeof(keep_ms) = 'integer' AND keep_ms BETWEEN 3600000 AND 3153600000000),
    pruned_below INTEGER NOT NULL DEFAULT 0 CHECK (typeof(pruned_below) = 'integer' AND pruned_below >= 0),
    pruned_rows  INTEGER NOT NULL DEFAULT 0 CHECK (typeof(pruned_rows) = 'integer' AND pruned_rows >= 0),
    pruned_at    INTEGER CHECK (pruned_at IS NULL OR typeof(pruned_at) = 'integer'),
    set_at       INTEGER CHECK (set_at IS NULL OR typeof(set_at) = 'integer'),
    set_by       TEXT
);
-- 30 days: a month of history to look back on; the bound of a busy ledger (docs/operations.md).
INSERT INTO retention (kind, keep_ms) VALUES ('journal', 2592000000);

CREATE TRIGGER retention_never_inserted BEFORE INSERT ON retention
BEGIN SELECT RAISE(ABORT, 'fence: the retention policy has one row per kind, written by the schema'); END;
CREATE TRIGGER retention_never_deleted BEFORE DELETE ON retention
BEGIN SELECT RAISE(ABORT, 'fence: the retention policy has one row per kind, written by the schema'); END;
CREATE TRIGGER retention_keeps_its_kind BEFORE UPDATE ON retention
WHEN NEW.kind IS NOT OLD.kind
BEGIN SELECT RAISE(ABORT, 'fence: the retention policy has one row per kind, written by the schema'); END;
CREATE TRIGGER retention_watermark_moves_forward BEFORE UPDATE ON retention
WHEN NEW.pruned_below < OLD.pruned_below OR NEW.pruned_rows < OLD.pruned_rows
    OR (OLD.pruned_at IS NOT NULL AND (NEW.pruned_at IS NULL OR NEW.pruned_at < OLD.pruned_at))
BEGIN SELECT RAISE(ABORT, 'fence: the journal''s pruning watermark only moves forward'); END;
CREATE TRIGGER retention_watermark_stays_below_the_newest_row BEFORE UPDATE ON retention
WHEN NEW.pruned_below > OLD.pruned_below
    AND NEW.pruned_below > coalesce((SELECT max(seq) FROM fence_events), 0)
BEGIN SELECT RAISE(ABORT, 'fence: the journal''s pruning watermark never passes its newest row'); END;
CREATE TRIGGER retention_watermark_covers_only_old_rows BEFORE UPDATE ON retention
WHEN NEW.pruned_below > OLD.pruned_below
    AND EXISTS (SELECT 1 FROM fence_events e WHERE e.seq >= OLD.pruned_below AND e.seq < NEW.pruned_below
                AND e.at > (SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1) - NEW.keep_ms)
BEGIN SELECT RAISE(ABORT, 'fence: the journal''s pruning watermark covers only rows older than the retention policy'); END;
CREATE TRIGGER retention_retired_takes_no_update BEFORE UPDATE ON retention
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;

-- ---- the journal: deleted only below the watermark, never what a live row needs ----------------------------------
DROP TRIGGER fence_events_never_deleted;
CREATE TRIGGER fence_events_deleted_only_below_the_watermark BEFORE DELETE ON fence_events
WHEN OLD.seq >= coalesce((SELECT pruned_below FROM retention WHERE kind = 'journal'), 0)
    OR OLD.at > (SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1)
                - (SELECT keep_ms FROM retention WHERE kind = 'journal')
BEGIN SELECT RAISE(ABORT, 'fence: the fence journal is append-only above its pruning watermark'); END;
CREATE TRIGGER fence_events_ledger_events_kept BEFORE DELETE ON fence_events
WHEN OLD.resource_type = 'ledger'
BEGIN SELECT RAISE(ABORT, 'fence: the ledger''s own events (restores, bumps, going backwards) are never pruned'); END;
CREATE TRIGGER fence_events_grant_of_a_current_lease_kept BEFORE DELETE ON fence_events
WHEN OLD.kind IN ('LEASE_ACQUIRED', 'LEASE_TAKEN_OVER')
    AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.actor_id AND l.token = OLD.token)
BEGIN SELECT RAISE(ABORT, 'fence: the grant of an actor''s current lease is never pruned'); END;
CREATE TRIGGER fence_events_of_an_unsettled_run_kept BEFORE DELETE ON fence_events
WHEN OLD.resource_type IN ('assignment', 'attempt')
    AND EXISTS (SELECT 1 FROM assignments a
                WHERE a.id = CASE OLD.resource_type WHEN 'assignment' THEN OLD.resource_id
                             ELSE (SELECT t.assignment_id FROM execution_attempts t WHERE t.id = OLD.resource_id) END
                AND (a.state IN ('CREATED', 'RUNNING')
                     OR (a.state IN ('FAILED', 'BLOCKED') AND a.acknowledged_at IS NULL
                         AND NOT EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = a.id))))
BEGIN SELECT RAISE(ABORT, 'fence: the events of a run that is not settled are never pruned'); END;
CREATE TRIGGER fence_events_of_an_unfinished_message_kept BEFORE DELETE ON fence_events
WHEN OLD.resource_type = 'message'
    AND EXISTS (SELECT 1 FROM messages m WHERE m.id = OLD.resource_id AND m.state NOT IN ('DONE', 'DEAD'))
BEGIN SELECT RAISE(ABORT, 'fence: the events of an unfinished message are never pruned'); END;
CREATE TRIGGER fence_events_newest_of_each_resource_kept BEFORE DELETE ON fence_events
WHEN NOT EXISTS (SELECT 1 FROM fence_events n WHERE n.resource_type = OLD.resource_type
                 AND n.resource_id = OLD.resource_id AND n.seq > OLD.seq)
    AND (OLD.resource_type = 'actor'
         OR (OLD.resource_type = 'assignment' AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = OLD.resource_id))
         OR (OLD.resource_type = 'message' AND EXISTS (SELECT 1 FROM messages m WHERE m.id = OLD.resource_id))
         OR (OLD.resource_type = 'process'
             AND EXISTS (SELECT 1 FROM processes p WHERE p.identity = OLD.resource_id AND p.stopped_at IS NULL)))
BEGIN SELECT RAISE(ABORT, 'fence: the newest event of each actor, assignment, message and running process is kept'); END;

-- ---- the supervisor's ticks: the old ones go, never the newest ---------------------------------------------------
DROP TRIGGER supervisor_ticks_never_deleted;
CREATE TRIGGER supervisor_ticks_deleted_only_when_old BEFORE DELETE ON supervisor_ticks
WHEN OLD.seq >= (SELECT max(seq) FROM supervisor_ticks)
    OR OLD.at > (SELECT n.at FROM supervisor_ticks n ORDER BY n.seq DESC LIMIT 1)
                - (SELECT keep_ms FROM retention WHERE kind = 'journal')
BEGIN SELECT RAISE(ABORT, 'fence: a supervisor tick is deleted only when older than the retention policy, never the newest'); END;

-- ---- contention: a process refused a live lease, counted per ten-minute window -----------------------------------
-- The window's first refusal is journalled as before (`first_seq` names its row); each further refusal of the same
-- process for the same actor in the window adds one to `refusals` and moves `last_at`, within the window. The engine
-- counts only in a window whose `first_seq` is that process's journalled refusal in the window, so a window written
-- by hand cannot keep another process's refusal out of the journal.
CREATE TABLE lease_contention (
    actor_id         TEXT NOT NULL,
    process_identity TEXT NOT NULL,
    window_start     INTEGER NOT NULL CHECK (typeof(window_start) = 'integer' AND window_start % 600000 = 0),
    first_at         INTEGER NOT NULL CHECK (typeof(first_at) = 'integer'),
    last_at          INTEGER NOT NULL CHECK (typeof(last_at) = 'integer'),
    refusals         INTEGER NOT NULL CHECK (typeof(refusals) = 'integer' AND refusals >= 1),
    holder_token     INTEGER,
    first_seq        INTEGER NOT NULL,
    PRIMARY KEY (actor_id, process_identity, window_start),
    CHECK (first_at >= window_start AND first_at < window_start + 600000 AND last_at >= first_at
           AND last_at < window_start + 600000)
) WITHOUT ROWID;
CREATE INDEX lease_contention_by_window ON lease_contention (window_start);

CREATE TRIGGER lease_contention_never_replaced BEFORE INSERT ON lease_contention
WHEN EXISTS (SELECT 1 FROM lease_contention c WHERE c.actor_id = NEW.actor_id
             AND c.process_identity = NEW.process_identity AND c.window_start = NEW.window_start)
BEGIN SELECT RAISE(ABORT, 'fence: a contention window is counted on, never replaced'); END;
CREATE TRIGGER lease_contention_opens_with_one_refusal BEFORE INSERT ON lease_contention
WHEN NEW.refusals <> 1 OR NEW.last_at <> NEW.first_at
BEGIN SELECT RAISE(ABORT, 'fence: a contention window opens with its first refusal'); END;
CREATE TRIGGER lease_contention_counts_forward BEFORE UPDATE ON lease_contention
WHEN NEW.actor_id IS NOT OLD.actor_id OR NEW.process_identity IS NOT OLD.process_identity
    OR NEW.window_start IS NOT OLD.window_start OR NEW.first_at IS NOT OLD.first_at
    OR NEW.first_seq IS NOT OLD.first_seq OR NEW.refusals <> OLD.refusals + 1 OR NEW.last_at < OLD.last_at
BEGIN SELECT RAISE(ABORT, 'fence: a contention window only counts one more refusal at a time'); END;
CREATE TRIGGER lease_contention_deleted_only_when_old BEFORE DELETE ON lease_contention
WHEN OLD.last_at > coalesce((SELECT n.at FROM fence_events n ORDER BY n.seq DESC LIMIT 1), 0)
                   - (SELECT keep_ms FROM retention WHERE kind = 'journal')
BEGIN SELECT RAISE(ABORT, 'fence: a contention window is deleted only when older than the retention policy'); END;
CREATE TRIGGER lease_contention_retired_takes_no_insert BEFORE INSERT ON lease_contention
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_contention_retired_takes_no_update BEFORE UPDATE ON lease_contention
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_contention_retired_takes_no_delete BEFORE DELETE ON lease_contention
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
