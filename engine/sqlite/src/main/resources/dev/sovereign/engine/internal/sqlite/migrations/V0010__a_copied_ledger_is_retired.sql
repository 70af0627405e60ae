-- Sovereign schema: a ledger moved to a server by `sovereign copy` is retired (issue 32;
-- docs/decisions/0915-a-copied-ledger-is-retired.md). Applied migrations are never edited.
--
-- `sovereign copy` reads a file while holding its write lock, commits the rows on the server, and only then
-- writes the one row below in the same file transaction. From that commit on the file takes no write at all:
-- every table a grant, a beat, a run, a claim, a finish, a journal row or a supervisor pass writes refuses it,
-- so a worker still pointed at the file cannot mint a token the server also mints, complete a message the
-- server also completes, or end a run the server still has running. Reads stay allowed (status and the console
-- say where the ledger went). One row, written once, never changed or removed, not replaceable.
CREATE TABLE ledger_retirement (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    moved_to    TEXT NOT NULL CHECK (length(moved_to) > 0),
    retired_at  INTEGER NOT NULL
);
CREATE TRIGGER ledger_retirement_written_once BEFORE INSERT ON ledger_retirement
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: a ledger is retired once; its retirement cannot change'); END;
CREATE TRIGGER ledger_retirement_never_updated BEFORE UPDATE ON ledger_retirement
BEGIN SELECT RAISE(ABORT, 'fence: a ledger is retired once; its retirement cannot change'); END;
CREATE TRIGGER ledger_retirement_never_deleted BEFORE DELETE ON ledger_retirement
BEGIN SELECT RAISE(ABORT, 'fence: a ledger is retired once; its retirement cannot change'); END;

-- Every write to the ledger's tables, refused once it is retired (the message is the engine's cue).
CREATE TRIGGER token_counter_retired_takes_no_insert BEFORE INSERT ON token_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER token_counter_retired_takes_no_update BEFORE UPDATE ON token_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER token_counter_retired_takes_no_delete BEFORE DELETE ON token_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_change_counter_retired_takes_no_insert BEFORE INSERT ON lease_change_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_change_counter_retired_takes_no_update BEFORE UPDATE ON lease_change_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_change_counter_retired_takes_no_delete BEFORE DELETE ON lease_change_counter
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER processes_retired_takes_no_insert BEFORE INSERT ON processes
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER processes_retired_takes_no_update BEFORE UPDATE ON processes
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER processes_retired_takes_no_delete BEFORE DELETE ON processes
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actors_retired_takes_no_insert BEFORE INSERT ON actors
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actors_retired_takes_no_update BEFORE UPDATE ON actors
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actors_retired_takes_no_delete BEFORE DELETE ON actors
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actor_leases_retired_takes_no_insert BEFORE INSERT ON actor_leases
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actor_leases_retired_takes_no_update BEFORE UPDATE ON actor_leases
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER actor_leases_retired_takes_no_delete BEFORE DELETE ON actor_leases
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_tombstones_retired_takes_no_insert BEFORE INSERT ON lease_tombstones
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_tombstones_retired_takes_no_update BEFORE UPDATE ON lease_tombstones
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER lease_tombstones_retired_takes_no_delete BEFORE DELETE ON lease_tombstones
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER assignments_retired_takes_no_insert BEFORE INSERT ON assignments
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER assignments_retired_takes_no_update BEFORE UPDATE ON assignments
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER assignments_retired_takes_no_delete BEFORE DELETE ON assignments
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER execution_attempts_retired_takes_no_insert BEFORE INSERT ON execution_attempts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER execution_attempts_retired_takes_no_update BEFORE UPDATE ON execution_attempts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER execution_attempts_retired_takes_no_delete BEFORE DELETE ON execution_attempts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER receipts_retired_takes_no_insert BEFORE INSERT ON receipts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER receipts_retired_takes_no_update BEFORE UPDATE ON receipts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER receipts_retired_takes_no_delete BEFORE DELETE ON receipts
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER messages_retired_takes_no_insert BEFORE INSERT ON messages
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER messages_retired_takes_no_update BEFORE UPDATE ON messages
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER messages_retired_takes_no_delete BEFORE DELETE ON messages
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER fence_events_retired_takes_no_insert BEFORE INSERT ON fence_events
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER fence_events_retired_takes_no_update BEFORE UPDATE ON fence_events
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER fence_events_retired_takes_no_delete BEFORE DELETE ON fence_events
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_insert BEFORE INSERT ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_update BEFORE UPDATE ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
CREATE TRIGGER supervisor_ticks_retired_takes_no_delete BEFORE DELETE ON supervisor_ticks
WHEN EXISTS (SELECT 1 FROM ledger_retirement)
BEGIN SELECT RAISE(ABORT, 'fence: retired: this ledger was moved to a server by sovereign copy and takes no more writes'); END;
