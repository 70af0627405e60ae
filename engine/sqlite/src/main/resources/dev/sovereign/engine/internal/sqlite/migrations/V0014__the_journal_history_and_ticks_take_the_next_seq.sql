-- Sovereign schema, version 14: the journal, the ledger's history and the supervisor's ticks take the next seq, one
-- above the largest before it, and the ticks lose AUTOINCREMENT. Applied migrations are never edited.
--
-- The standing attack suite (a new seed, 116116) found that a raw writer could append a tick with seq 2^63 - 1
-- (an upsert): "only appended" let it through, and every later tick failed with SQLITE_FULL, since AUTOINCREMENT
-- cannot go above the largest key. The journal and the history, without AUTOINCREMENT, would take a random free key
-- after such a row, which their "only appended" guard then refuses: every journalled write would fail for good. The
-- engine never names a seq: SQLite takes max(seq) + 1. That is now the rule for every row, so no row can be put
-- where the next one cannot follow. AUTOINCREMENT goes from the ticks because its counter lives in sqlite_sequence,
-- a table no trigger can guard (a raw writer could wind it to the end the same way).

-- ---- supervisor_ticks, without AUTOINCREMENT ---------------------------------------------------------------------
CREATE TABLE supervisor_ticks_v14 (
    seq              INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    process_identity TEXT NOT NULL,
    expired_leases   INTEGER NOT NULL,
    stale_processes  INTEGER NOT NULL,
    swept_claims     INTEGER NOT NULL,
    recovered        INTEGER NOT NULL,
    failures         INTEGER NOT NULL,
    report           TEXT NOT NULL
);
INSERT INTO supervisor_ticks_v14 (seq, at, process_identity, expired_leases, stale_processes, swept_claims,
                                  recovered, failures, report)
    SELECT seq, at, process_identity, expired_leases, stale_processes, swept_claims, recovered, failures, report
    FROM supervisor_ticks ORDER BY seq;
DROP TABLE supervisor_ticks;
ALTER TABLE supervisor_ticks_v14 RENAME TO supervisor_ticks;
CREATE INDEX supervisor_ticks_by_time ON supervisor_ticks (at);
-- The triggers of versions 3 and 10, which went with the old table, unchanged.
CREATE TRIGGER supervisor_ticks_never_updated BEFORE UPDATE ON supervisor_ticks
BEGIN SELECT RAISE(ABORT, 'fence: supervisor ticks are append-only'); END;
CREATE TRIGGER supervisor_ticks_never_deleted BEFORE DELETE ON supervisor_ticks
BEGIN SELECT RAISE(ABORT, 'fence: supervisor ticks are append-only'); END;
CREATE TRIGGER supervisor_ticks_never_replaced BEFORE INSERT ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM supervisor_ticks WHERE seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'fence: supervisor ticks are append-only'); END;
CREATE TRIGGER supervisor_ticks_only_appended AFTER INSERT ON supervisor_ticks
WHEN NEW.seq < (SELECT max(seq) FROM supervisor_ticks)
BEGIN SELECT RAISE(ABORT, 'fence: supervisor ticks are append-only'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_insert BEFORE INSERT ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_update BEFORE UPDATE ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_delete BEFORE DELETE ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;

-- ---- the next seq, for the three append-only tables -------------------------------------------------------------
-- After the row is in: its seq must be one above the largest below it (1 for the first). A row above the largest
-- is refused here, one below it by "only appended", an existing one by "never replaced".
CREATE TRIGGER fence_events_take_the_next_seq AFTER INSERT ON fence_events
WHEN NEW.seq IS NOT coalesce((SELECT max(seq) FROM fence_events WHERE seq < NEW.seq), 0) + 1
BEGIN SELECT RAISE(ABORT, 'fence: a journal row takes the next seq, one above the last'); END;
CREATE TRIGGER ledger_history_takes_the_next_seq AFTER INSERT ON ledger_history
WHEN NEW.seq IS NOT coalesce((SELECT max(seq) FROM ledger_history WHERE seq < NEW.seq), 0) + 1
BEGIN SELECT RAISE(ABORT, 'fence: a history row takes the next seq, one above the last'); END;
CREATE TRIGGER supervisor_ticks_take_the_next_seq AFTER INSERT ON supervisor_ticks
WHEN NEW.seq IS NOT coalesce((SELECT max(seq) FROM supervisor_ticks WHERE seq < NEW.seq), 0) + 1
BEGIN SELECT RAISE(ABORT, 'fence: a supervisor tick takes the next seq, one above the last'); END;
