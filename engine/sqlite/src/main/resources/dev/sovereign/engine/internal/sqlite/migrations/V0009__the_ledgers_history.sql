-- Sovereign schema, version 9: the fencing-token counter holds a whole number that moves only by minting, and the
-- ledger's history only moves forward (issue 26 items 7 and "the file's history", issue 32 item 2;
-- docs/decisions/0603, 0604 and 0605). Applied migrations are never edited.
--
-- A token is epoch * 2^40 + n, 1 <= n < 2^40, epoch 0 .. 2^23 - 1 (so every token fits a signed 64-bit integer).
-- Every ledger before this version is in epoch 0: its tokens keep their values. Within an epoch the counter
-- steps by exactly one per UPDATE (one mint) and never onto the next epoch's start (n = 0): the epoch's last
-- token is epoch * 2^40 + 2^40 - 1, and every token that could have been issued in an epoch is below the next
-- epoch's start. The counter jumps only to the start of a later epoch, and only when ledger_history records that
-- jump (a restore or a fence bump) with the counter's current value as its from_token: so a backup put back in
-- place by 'sovereign restore', or a ledger bumped after it went backwards, issues tokens above every token the
-- lost history could have issued. The halt: once an engine that had seen a token above the counter records
-- that the ledger went backwards (a 'backwards' row, the history's last), the counter does not step again until
-- a restore or a bump starts a new epoch.

-- ---- the ledger's history: append-only --------------------------------------------------------------------
--   backup    — written into a COPY by 'sovereign backup' (never into the live ledger): a file whose last row is
--               a backup is not a live ledger, and every open refuses it until 'sovereign restore' puts it in place;
--   restore   — 'sovereign restore' started a new epoch in the restored copy;
--   bump      — 'sovereign fence bump' started a new epoch;
--   backwards — an engine found the counter below a token it had seen (the file was copied back by hand).
-- epoch: the ledger's epoch after the row; from_token: the counter when the row was written; to_token: the
-- counter the row allows (a new epoch's start for restore and bump, else from_token); seen_token: for
-- backwards, the highest token the engine had seen.
CREATE TABLE ledger_history (
    seq              INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL CHECK (typeof(at) = 'integer'),
    kind             TEXT    NOT NULL CHECK (kind IN ('backup', 'restore', 'bump', 'backwards')),
    epoch            INTEGER NOT NULL CHECK (typeof(epoch) = 'integer' AND epoch BETWEEN 0 AND 8388607),
    from_token       INTEGER NOT NULL CHECK (typeof(from_token) = 'integer' AND from_token >= 0),
    to_token         INTEGER NOT NULL CHECK (typeof(to_token) = 'integer' AND to_token >= from_token),
    seen_token       INTEGER CHECK (seen_token IS NULL OR typeof(seen_token) = 'integer'),
    process_identity TEXT,
    backup_id        TEXT,
    detail           TEXT    NOT NULL
);
CREATE TRIGGER ledger_history_never_updated BEFORE UPDATE ON ledger_history
BEGIN SELECT RAISE(ABORT, 'fence: the ledger''s history is append-only'); END;
CREATE TRIGGER ledger_history_never_deleted BEFORE DELETE ON ledger_history
BEGIN SELECT RAISE(ABORT, 'fence: the ledger''s history is append-only'); END;
CREATE TRIGGER ledger_history_never_replaced BEFORE INSERT ON ledger_history
WHEN EXISTS (SELECT 1 FROM ledger_history WHERE seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'fence: the ledger''s history is append-only'); END;
CREATE TRIGGER ledger_history_only_appended AFTER INSERT ON ledger_history
WHEN NEW.seq < (SELECT max(seq) FROM ledger_history)
BEGIN SELECT RAISE(ABORT, 'fence: the ledger''s history is append-only'); END;
-- A row states the counter as it is; a new epoch is later than every epoch before it, later than the epoch of
-- every token an engine reported seeing, and starts at its first token; a backwards row reports a token above
-- the counter.
CREATE TRIGGER ledger_history_states_the_counter BEFORE INSERT ON ledger_history
WHEN NEW.from_token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
    OR (NEW.kind IN ('backup', 'backwards')
        AND (NEW.to_token IS NOT NEW.from_token OR NEW.epoch IS NOT NEW.from_token / 1099511627776))
    OR (NEW.kind IN ('restore', 'bump')
        AND (NEW.to_token IS NOT NEW.epoch * 1099511627776
             OR NEW.epoch <= NEW.from_token / 1099511627776
             OR NEW.epoch <= COALESCE((SELECT max(epoch) FROM ledger_history), 0)
             OR NEW.epoch <= COALESCE((SELECT max(seen_token) FROM ledger_history WHERE kind = 'backwards'), 0) / 1099511627776))
    OR (NEW.kind = 'backwards' AND (NEW.seen_token IS NULL OR NEW.seen_token <= NEW.from_token))
BEGIN SELECT RAISE(ABORT, 'fence: a history row states the counter as it is, and a new epoch starts above every epoch and every token seen before it'); END;

-- ---- the counter: a whole number, moved only by minting or to a recorded epoch's start --------------------
-- Version 1's CHECK (last_token >= 0) let text, blobs and reals in (SQLite compares them above every number).
CREATE TRIGGER token_counter_holds_a_whole_number BEFORE UPDATE ON token_counter
WHEN typeof(NEW.last_token) IS NOT 'integer' OR NEW.last_token < 0
BEGIN SELECT RAISE(ABORT, 'fence: the fencing-token counter holds a whole number from 0 to 2^63 - 1'); END;
CREATE TRIGGER token_counter_inserted_as_a_whole_number BEFORE INSERT ON token_counter
WHEN typeof(NEW.last_token) IS NOT 'integer' OR NEW.last_token < 0
BEGIN SELECT RAISE(ABORT, 'fence: the fencing-token counter holds a whole number from 0 to 2^63 - 1'); END;
CREATE TRIGGER token_counter_stays_in_its_epoch BEFORE UPDATE ON token_counter
WHEN typeof(NEW.last_token) = 'integer' AND NEW.last_token = OLD.last_token + 1 AND NEW.last_token % 1099511627776 = 0
    AND NOT EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind IN ('restore', 'bump')
                    AND h.from_token = OLD.last_token AND h.to_token = NEW.last_token)
BEGIN SELECT RAISE(ABORT, 'fence: the fencing-token counter has issued every token of its epoch; run sovereign fence bump to start the next'); END;
CREATE TRIGGER token_counter_stops_when_the_ledger_went_backwards BEFORE UPDATE ON token_counter
WHEN typeof(NEW.last_token) = 'integer' AND NEW.last_token = OLD.last_token + 1
    AND (SELECT kind FROM ledger_history ORDER BY seq DESC LIMIT 1) IS 'backwards'
BEGIN SELECT RAISE(ABORT, 'fence: the ledger went backwards (an engine had seen a token above its counter); it issues no token until sovereign fence bump starts a new epoch'); END;
-- (A value not above the old one is version 1's token_counter_only_increases to refuse.)
CREATE TRIGGER token_counter_moves_only_by_minting BEFORE UPDATE ON token_counter
WHEN typeof(NEW.last_token) = 'integer' AND NEW.last_token > OLD.last_token + 1
    AND NOT EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind IN ('restore', 'bump')
                    AND h.from_token = OLD.last_token AND h.to_token = NEW.last_token)
BEGIN SELECT RAISE(ABORT, 'fence: the fencing-token counter moves only by one step per mint, or to the start of an epoch the ledger''s history records'); END;
-- The lease change counter holds whole numbers too (its version-3 guards keep it increasing and single).
CREATE TRIGGER lease_change_counter_holds_a_whole_number BEFORE UPDATE ON lease_change_counter
WHEN typeof(NEW.last_change) IS NOT 'integer' OR NEW.last_change < 0
BEGIN SELECT RAISE(ABORT, 'fence: the lease change counter holds a whole number'); END;

-- ---- a claim granted before the ledger's current epoch is lost ---------------------------------------------
-- A restore or a bump deletes every lease row (their holders must take them again, with tokens of the new
-- epoch). An attempt of an older epoch can then neither be renewed nor end through its fence (both need the
-- lease row with its bound token); a claim needs only its process to host the actor again, so it is refused
-- here once the actor's lease is of a later epoch than the claim: it expires and the supervisor sweeps it.
CREATE TRIGGER messages_finished_only_in_the_claims_epoch BEFORE UPDATE ON messages
WHEN OLD.state = 'CLAIMED' AND (NEW.state IN ('DONE', 'DEAD')
        OR (NEW.state = 'NEW' AND NEW.retry_count IS NOT OLD.retry_count))
    AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.claim_actor
                AND l.token / 1099511627776 > OLD.claim_token / 1099511627776)
BEGIN SELECT RAISE(ABORT, 'fence: a claim granted before the ledger''s current epoch (a restore or a fence bump) is lost: it cannot finish the message'); END;

-- ---- the journal: the history's events ---------------------------------------------------------------------
-- Three kinds (LEDGER_RESTORED, FENCE_BUMPED, LEDGER_WENT_BACKWARDS) about the resource type 'ledger'. SQLite
-- cannot widen a CHECK in place: the table is rebuilt as version 6 did, every row with its key, then every index
-- and trigger of it recreated with the text of the version that created it (the migrator checks each guard
-- against that text on every open); triggers on other tables that read fence_events are left as they are.
CREATE TABLE fence_events_v8 (
    seq              INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN (
                         'LEASE_ACQUIRED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_TAKEN_OVER',
                         'ATTEMPT_STARTED', 'ATTEMPT_DONE', 'ATTEMPT_SUPERSEDED', 'ATTEMPT_RECOVERED',
                         'ATTEMPT_STOLEN', 'ASSIGNMENT_CREATED', 'ASSIGNMENT_RETRIED', 'ASSIGNMENT_ACKNOWLEDGED',
                         'CLAIM_GRANTED', 'CLAIM_SWEPT', 'MESSAGE_SENT', 'MESSAGE_DONE', 'MESSAGE_RETRIED',
                         'MESSAGE_DEAD', 'PROCESS_STARTED', 'PROCESS_STOPPED', 'REJECTED',
                         'LEDGER_RESTORED', 'FENCE_BUMPED', 'LEDGER_WENT_BACKWARDS')),
    resource_type    TEXT NOT NULL CHECK (resource_type IN ('actor', 'attempt', 'assignment', 'message', 'process', 'ledger')),
    resource_id      TEXT NOT NULL,
    actor_id         TEXT,
    process_identity TEXT,
    token            INTEGER,
    presented_token  INTEGER,
    current_token    INTEGER,
    category         TEXT,
    detail           TEXT
);
INSERT INTO fence_events_v8 (seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,
                             presented_token, current_token, category, detail)
    SELECT seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,
           presented_token, current_token, category, detail FROM fence_events ORDER BY seq;
DROP TABLE fence_events;
PRAGMA legacy_alter_table = ON;
ALTER TABLE fence_events_v8 RENAME TO fence_events;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX fence_events_by_resource ON fence_events (resource_type, resource_id, seq);
CREATE INDEX fence_events_by_actor ON fence_events (actor_id, seq);
CREATE INDEX fence_events_rejections ON fence_events (seq) WHERE kind = 'REJECTED';
-- The triggers of versions 1 and 3 (as version 6 recreated them), unchanged.
CREATE TRIGGER fence_events_never_updated BEFORE UPDATE ON fence_events
BEGIN SELECT RAISE(ABORT, 'the fence journal is append-only'); END;
CREATE TRIGGER fence_events_never_deleted BEFORE DELETE ON fence_events
BEGIN SELECT RAISE(ABORT, 'the fence journal is append-only'); END;
CREATE TRIGGER fence_events_never_replaced BEFORE INSERT ON fence_events
WHEN EXISTS (SELECT 1 FROM fence_events WHERE seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'fence: the fence journal is append-only'); END;
CREATE TRIGGER fence_events_only_appended AFTER INSERT ON fence_events
WHEN NEW.seq < (SELECT max(seq) FROM fence_events)
BEGIN SELECT RAISE(ABORT, 'fence: the fence journal is append-only'); END;
