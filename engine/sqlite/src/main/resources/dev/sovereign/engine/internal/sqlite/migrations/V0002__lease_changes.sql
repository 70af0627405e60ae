-- Sovereign schema, version 2: a change marker on actor leases, so a reader (the console) can read
-- only the lease rows that changed since its last snapshot. Applied migrations are never edited.
-- See docs/decisions/0414-lease-change-marker.md.

-- The lease change counter: bumped by every transaction that writes actor_leases (the engine in
-- the statement's own transaction, a release by the trigger below). Like token_counter, its single
-- row can never be deleted and its value only increases, so a marker is never handed out twice.
CREATE TABLE lease_change_counter (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    last_change INTEGER NOT NULL CHECK (last_change >= 0)
);
INSERT INTO lease_change_counter (id, last_change) VALUES (1, 0);
CREATE TRIGGER lease_change_counter_never_deleted BEFORE DELETE ON lease_change_counter
BEGIN SELECT RAISE(ABORT, 'the lease change counter cannot be deleted'); END;
CREATE TRIGGER lease_change_counter_only_increases BEFORE UPDATE ON lease_change_counter
WHEN NEW.last_change <= OLD.last_change OR NEW.id <> OLD.id
BEGIN SELECT RAISE(ABORT, 'the lease change counter only increases'); END;

-- The counter's value when the row was last written. Rows from version 1 keep 0: a reader's first
-- snapshot reads every row anyway.
ALTER TABLE actor_leases ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX actor_leases_by_change ON actor_leases (change_seq);

-- A deleted (released) lease leaves no row to carry a marker: its actor is remembered here with the
-- counter value of the delete. One row per actor at most, so the table is bounded by the actors.
CREATE TABLE lease_tombstones (
    actor_id   TEXT PRIMARY KEY,
    change_seq INTEGER NOT NULL
);
CREATE INDEX lease_tombstones_by_change ON lease_tombstones (change_seq);
CREATE TRIGGER actor_leases_delete_leaves_tombstone AFTER DELETE ON actor_leases
BEGIN
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1;
    INSERT INTO lease_tombstones (actor_id, change_seq)
        SELECT OLD.actor_id, last_change FROM lease_change_counter WHERE id = 1
        ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq;
END;

-- The guard: no write path can forget the marker. An inserted or updated lease row must carry the
-- counter's current value, which a transaction gets by bumping the counter (the write lock
-- serialises writers). An update must also raise the row's marker, so a statement that leaves
-- change_seq alone is refused even while the counter still holds the value of the row's own last
-- write; an insert must carry a positive one, so the default 0 is refused while the counter is 0.
-- (A trigger cannot see whether the bump happened in the SAME transaction: that part is the
-- engine's, Tx.nextLeaseChange() right before the write. See decision 0414.)
CREATE TRIGGER actor_leases_insert_carries_change BEFORE INSERT ON actor_leases
WHEN NEW.change_seq <= 0 OR NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq'); END;
CREATE TRIGGER actor_leases_update_carries_change BEFORE UPDATE ON actor_leases
WHEN NEW.change_seq <= OLD.change_seq OR NEW.change_seq IS NOT (SELECT last_change FROM lease_change_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq'); END;
