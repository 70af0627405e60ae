-- Sovereign schema, version 6: fewer B-tree pages per write (issue 16; docs/decisions/0507-fewer-wal-pages-per-write.md).
-- Applied migrations are never edited.
--
-- In WAL mode a commit copies every page it dirtied into the -wal file (and fsyncs it at FULL), so a
-- B-tree a write touches costs a page. A page census (WalPageCensusProbe) of a grant at version 5: the
-- lease row in actor_leases AND in its separate primary-key index (a TEXT key in a rowid table), three
-- lease indexes, both counters, the journal row, three journal indexes and the journal's AUTOINCREMENT
-- counter (sqlite_sequence) — about 12 pages. This version removes three that buy nothing:
--   * actor_leases becomes WITHOUT ROWID on actor_id: the row lives in the primary-key B-tree itself,
--     so an acquire or a release no longer writes a second B-tree for the key;
--   * fence_events.seq loses AUTOINCREMENT: every journalled write stops rewriting sqlite_sequence.
--     A seq is still never reused: without AUTOINCREMENT SQLite takes max(seq) + 1, which could repeat a
--     seq only if the row holding the maximum were deleted, and no statement can delete a journal row
--     (fence_events_never_deleted; REPLACE's implicit delete is refused by fence_events_never_replaced,
--     BEFORE INSERT). Every seq ever handed out is still in the table, so max(seq) + 1 is always new;
--   * fence_events_by_time goes: no query reads the journal by time (the journal is read by seq, by
--     resource, by actor, and its rejections), and a write paid one page for it.
-- The rebuilds copy every row with its key (seqs, tokens and change markers unchanged), then recreate
-- every index and every trigger of the rebuilt tables with the text of the version that created it
-- (the migrator checks each guard against that text on every open). Triggers on OTHER tables that read
-- actor_leases or fence_events are left as they are: legacy_alter_table stops the rename from trying to
-- rewrite (and, with the old table already dropped, from refusing) them; they name the tables, not
-- their pages, so they read the new ones. Dropping a table fires none of its triggers.

-- ---- actor_leases, WITHOUT ROWID -------------------------------------------------------------------
CREATE TABLE actor_leases_v6 (
    actor_id               TEXT PRIMARY KEY REFERENCES actors (id),
    process_identity       TEXT NOT NULL REFERENCES processes (identity),
    token                  INTEGER NOT NULL CHECK (token > 0),
    ttl_ms                 INTEGER NOT NULL CHECK (ttl_ms > 0),
    acquired_at            INTEGER NOT NULL,
    renewed_at             INTEGER NOT NULL,
    expires_at             INTEGER NOT NULL,
    renewals               INTEGER NOT NULL DEFAULT 0,
    renewal_journalled_at  INTEGER NOT NULL,
    change_seq             INTEGER NOT NULL DEFAULT 0,
    presented_token        INTEGER,
    presented_change       INTEGER
) WITHOUT ROWID;
INSERT INTO actor_leases_v6 (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,
                             renewals, renewal_journalled_at, change_seq, presented_token, presented_change)
    SELECT actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at,
           renewals, renewal_journalled_at, change_seq, presented_token, presented_change FROM actor_leases;
DROP TABLE actor_leases;
PRAGMA legacy_alter_table = ON;
ALTER TABLE actor_leases_v6 RENAME TO actor_leases;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX actor_leases_by_expiry ON actor_leases (expires_at);
CREATE INDEX actor_leases_by_process ON actor_leases (process_identity);
CREATE INDEX actor_leases_by_change ON actor_leases (change_seq);
-- The triggers of versions 2 and 3, unchanged.
CREATE TRIGGER actor_leases_delete_leaves_tombstone AFTER DELETE ON actor_leases
BEGIN
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1;
    INSERT INTO lease_tombstones (actor_id, change_seq)
        SELECT OLD.actor_id, last_change FROM lease_change_counter WHERE id = 1
        ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq;
END;
CREATE TRIGGER actor_leases_insert_carries_change BEFORE INSERT ON actor_leases
WHEN NEW.change_seq <= 0 OR NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq'); END;
CREATE TRIGGER actor_leases_update_carries_change BEFORE UPDATE ON actor_leases
WHEN NEW.change_seq <= OLD.change_seq OR NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq'); END;
CREATE TRIGGER actor_leases_never_replaced BEFORE INSERT ON actor_leases
WHEN EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id)
BEGIN SELECT RAISE(ABORT, 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced'); END;
CREATE TRIGGER actor_leases_granted_with_a_fresh_token BEFORE INSERT ON actor_leases
WHEN NEW.token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a lease is granted with the token minted for it in the same transaction'); END;
CREATE TRIGGER actor_leases_released_only_with_the_current_token BEFORE DELETE ON actor_leases
WHEN OLD.presented_token IS NOT OLD.token
    OR OLD.presented_change IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a lease is released only by the transaction that presents its current token'); END;
CREATE TRIGGER actor_leases_keep_their_actor BEFORE UPDATE ON actor_leases
WHEN NEW.actor_id IS NOT OLD.actor_id
BEGIN SELECT RAISE(ABORT, 'fence: a lease row never changes its actor'); END;
CREATE TRIGGER actor_leases_written_only_with_the_current_token BEFORE UPDATE ON actor_leases
WHEN NEW.presented_change IS NOT NEW.change_seq OR NEW.presented_token IS NOT OLD.token
BEGIN SELECT RAISE(ABORT, 'fence: a lease is renewed or taken over only by a write that presents its current token'); END;
CREATE TRIGGER actor_leases_renewal_keeps_the_holder BEFORE UPDATE ON actor_leases
WHEN NEW.token IS OLD.token AND NEW.process_identity IS NOT OLD.process_identity
BEGIN SELECT RAISE(ABORT, 'fence: a renewal keeps the holder; another process needs a takeover with a new token'); END;
CREATE TRIGGER actor_leases_takeover_mints_and_waits_for_expiry BEFORE UPDATE ON actor_leases
WHEN NEW.token IS NOT OLD.token AND (NEW.token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
    OR NEW.token <= OLD.token OR OLD.expires_at > NEW.acquired_at)
BEGIN SELECT RAISE(ABORT, 'fence: a takeover needs an expired lease and the token minted for it in the same transaction'); END;

-- ---- fence_events, without AUTOINCREMENT ------------------------------------------------------------
CREATE TABLE fence_events_v6 (
    seq              INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN (
                         'LEASE_ACQUIRED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_TAKEN_OVER',
                         'ATTEMPT_STARTED', 'ATTEMPT_DONE', 'ATTEMPT_SUPERSEDED', 'ATTEMPT_RECOVERED',
                         'ATTEMPT_STOLEN', 'ASSIGNMENT_CREATED', 'ASSIGNMENT_RETRIED', 'ASSIGNMENT_ACKNOWLEDGED',
                         'CLAIM_GRANTED', 'CLAIM_SWEPT', 'MESSAGE_SENT', 'MESSAGE_DONE', 'MESSAGE_RETRIED',
                         'MESSAGE_DEAD', 'PROCESS_STARTED', 'PROCESS_STOPPED', 'REJECTED')),
    resource_type    TEXT NOT NULL CHECK (resource_type IN ('actor', 'attempt', 'assignment', 'message', 'process')),
    resource_id      TEXT NOT NULL,
    actor_id         TEXT,
    process_identity TEXT,
    token            INTEGER,
    presented_token  INTEGER,
    current_token    INTEGER,
    category         TEXT,
    detail           TEXT
);
INSERT INTO fence_events_v6 (seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,
                             presented_token, current_token, category, detail)
    SELECT seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,
           presented_token, current_token, category, detail FROM fence_events ORDER BY seq;
DROP TABLE fence_events;
PRAGMA legacy_alter_table = ON;
ALTER TABLE fence_events_v6 RENAME TO fence_events;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX fence_events_by_resource ON fence_events (resource_type, resource_id, seq);
CREATE INDEX fence_events_by_actor ON fence_events (actor_id, seq);
CREATE INDEX fence_events_rejections ON fence_events (seq) WHERE kind = 'REJECTED';
-- The triggers of versions 1 and 3, unchanged. (The BEFORE INSERT trigger still sees -1 in NEW.seq for
-- an automatic key, as it did with AUTOINCREMENT.)
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
