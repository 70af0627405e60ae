-- Sovereign PostgreSQL schema, version 1: the PostgreSQL equal of the SQLite schema's versions 1-4
-- taken together (same tables, columns and meaning; same guards, same messages). Applied migrations
-- are never edited: add a new file instead. See docs/decisions/0900-postgresql-schema-and-guards.md.
--
-- The migrator (PgMigrator) runs this script in one transaction under an advisory lock, with
-- search_path set to '<the ledger schema>, pg_catalog, pg_temp', so the objects land in the ledger's
-- schema. The last block pins every function's search_path to 'pg_catalog, <the ledger schema>,
-- pg_temp': a guard then means the built-in clock_timestamp(), txid_current(), = ... and the ledger's
-- own tables, whatever the calling session's path says. Without the pin a session could shadow
-- token_counter with a temporary table (pg_temp is otherwise searched FIRST for tables), and a role
-- with CREATE on a schema early on the path (PostgreSQL 14 still grants CREATE on public to PUBLIC)
-- could shadow a built-in function such as clock_timestamp() with its own.
--
-- Times are BIGINT epoch milliseconds, as on SQLite and in the Java records, but every expiry
-- decision on PostgreSQL reads the SERVER's clock: sovereign_now_ms(), inside the write. One clock
-- for every host, so a host's skewed clock cannot even cost liveness (SPEC 15). Safety still rests on
-- tokens and pointers only; time decides only when a takeover is allowed (SPEC 3).
--
-- Every message a guard raises carries SQLSTATE SV001; those of the fence proper start with 'fence:',
-- as on SQLite, so the adapter can tell a refused write from a broken database.

-- ---- the server's clock ---------------------------------------------------------------------------
-- clock_timestamp(), not now(): now() is the transaction's start, which a long transaction would
-- hold back. floor() so a millisecond is never rounded into the future.
CREATE FUNCTION sovereign_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint
$$;

-- One function for the guards that refuse a statement outright (append-only tables, TRUNCATE): its one
-- argument is the sentence. Row triggers return nothing, as the statement never gets that far.
CREATE FUNCTION sovereign_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'SV001', MESSAGE = TG_ARGV[0];
END
$$;

-- ---- the ONE fencing-token counter -----------------------------------------------------------------
-- One row, strictly increasing, never deleted, never reused: a token is never re-issued, not even
-- after every lease row has been deleted (decision 0002). Why not a SEQUENCE: nextval() is outside
-- transactions — values are handed out in CALL order, not COMMIT order, and a rolled-back nextval
-- leaves a gap. Transaction A may draw 7, B draw 8 and commit first; A then commits a grant with 7
-- AFTER a grant with 8 is visible. A fencing token must be strictly increasing in COMMIT order, so the
-- token is minted by 'UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING
-- last_token' in the same transaction as the grant. That costs a row lock held until commit: grants
-- (and everything else that mints: attempts, claims) are serialised through this one row, for the
-- length of their transactions. Keep those transactions short.
-- last_xact is PostgreSQL's only addition: the transaction (txid_current()) that last raised the
-- counter, written by the guard itself whatever the statement says. With it a guard can tell "minted
-- in THIS transaction" from "equal to the counter", which with concurrent writers is not the same.
CREATE TABLE token_counter (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    last_token BIGINT  NOT NULL CHECK (last_token >= 0),
    last_xact  BIGINT  NOT NULL DEFAULT 0
);
INSERT INTO token_counter (id, last_token) VALUES (1, 0);

CREATE TABLE processes (
    identity              TEXT PRIMARY KEY CHECK (identity LIKE 'proc\_%' ESCAPE '\' AND length(identity) BETWEEN 6 AND 100),
    pid                   INTEGER,
    host                  TEXT,
    kind                  TEXT    NOT NULL,
    label                 TEXT,
    started_at            BIGINT  NOT NULL,
    heartbeat_at          BIGINT  NOT NULL,
    heartbeat_interval_ms BIGINT  NOT NULL CHECK (heartbeat_interval_ms > 0),
    stopped_at            BIGINT
);
CREATE INDEX processes_running_by_heartbeat ON processes (heartbeat_at) WHERE stopped_at IS NULL;

CREATE TABLE actors (
    id               TEXT   PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
    workspace_policy TEXT   NOT NULL DEFAULT 'temporary' CHECK (workspace_policy IN ('temporary', 'persistent')),
    created_at       BIGINT NOT NULL
);

-- ---- the lease change counter and marker (SQLite version 2, decision 0414) --------------------------
CREATE TABLE lease_change_counter (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    last_change BIGINT  NOT NULL CHECK (last_change >= 0),
    last_xact   BIGINT  NOT NULL DEFAULT 0
);
INSERT INTO lease_change_counter (id, last_change) VALUES (1, 0);

-- One row per hosted actor. A takeover updates the row (new process, new token); it is never replaced.
-- presented_token / presented_change: what a renewal, takeover or release states it acts for.
CREATE TABLE actor_leases (
    actor_id               TEXT   PRIMARY KEY REFERENCES actors (id),
    process_identity       TEXT   NOT NULL REFERENCES processes (identity),
    token                  BIGINT NOT NULL CHECK (token > 0),
    ttl_ms                 BIGINT NOT NULL CHECK (ttl_ms > 0),
    acquired_at            BIGINT NOT NULL,
    renewed_at             BIGINT NOT NULL,
    expires_at             BIGINT NOT NULL,
    renewals               BIGINT NOT NULL DEFAULT 0,
    renewal_journalled_at  BIGINT NOT NULL,
    change_seq             BIGINT NOT NULL DEFAULT 0,
    presented_token        BIGINT,
    presented_change       BIGINT
);
CREATE INDEX actor_leases_by_expiry ON actor_leases (expires_at);
CREATE INDEX actor_leases_by_process ON actor_leases (process_identity);
CREATE INDEX actor_leases_by_change ON actor_leases (change_seq);

CREATE TABLE lease_tombstones (
    actor_id   TEXT   PRIMARY KEY,
    change_seq BIGINT NOT NULL
);
CREATE INDEX lease_tombstones_by_change ON lease_tombstones (change_seq);

-- ---- assignments and their attempts ----------------------------------------------------------------
CREATE TABLE assignments (
    id               TEXT   PRIMARY KEY,
    actor_id         TEXT   NOT NULL REFERENCES actors (id),
    provider_spec    TEXT   NOT NULL,
    workspace_policy TEXT   NOT NULL,
    state            TEXT   NOT NULL CHECK (state IN ('CREATED', 'RUNNING', 'COMPLETED', 'BLOCKED', 'FAILED')),
    current_attempt  TEXT,
    retry_of         TEXT   REFERENCES assignments (id),
    acknowledged_at  BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    ended_by_attempt TEXT,
    ended_via        TEXT   CHECK (ended_via IS NULL OR ended_via IN ('attempt', 'recovery')),
    CHECK (current_attempt IS NULL OR state = 'RUNNING')
);
CREATE INDEX assignments_by_actor_state ON assignments (actor_id, state, created_at);
CREATE INDEX assignments_by_state ON assignments (state, updated_at);
CREATE UNIQUE INDEX assignments_one_retry_each ON assignments (retry_of) WHERE retry_of IS NOT NULL;

CREATE TABLE execution_attempts (
    id               TEXT   PRIMARY KEY,
    assignment_id    TEXT   NOT NULL REFERENCES assignments (id),
    actor_id         TEXT   NOT NULL REFERENCES actors (id),
    process_identity TEXT   NOT NULL REFERENCES processes (identity),
    token            BIGINT NOT NULL UNIQUE CHECK (token > 0),
    lease_token      BIGINT NOT NULL CHECK (lease_token > 0),
    state            TEXT   NOT NULL CHECK (state IN ('ACTIVE', 'DONE', 'SUPERSEDED', 'RECOVERED', 'LOST')),
    ttl_ms           BIGINT NOT NULL CHECK (ttl_ms > 0),
    started_at       BIGINT NOT NULL,
    renewed_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    ended_at         BIGINT
);
CREATE INDEX attempts_active_by_expiry ON execution_attempts (expires_at) WHERE state = 'ACTIVE';
CREATE INDEX attempts_by_assignment ON execution_attempts (assignment_id, started_at);
CREATE INDEX attempts_active_by_process ON execution_attempts (process_identity) WHERE state = 'ACTIVE';
-- The two tables point at each other; the foreign keys are immediate (NOT DEFERRABLE, the default), so
-- SET CONSTRAINTS ALL DEFERRED changes nothing here.
ALTER TABLE assignments ADD CONSTRAINT assignments_current_attempt_fkey
    FOREIGN KEY (current_attempt) REFERENCES execution_attempts (id);
ALTER TABLE assignments ADD CONSTRAINT assignments_ended_by_attempt_fkey
    FOREIGN KEY (ended_by_attempt) REFERENCES execution_attempts (id);

-- The canonical record of what one attempt produced: at most one per assignment, by construction.
CREATE TABLE receipts (
    id               BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    assignment_id    TEXT    NOT NULL UNIQUE REFERENCES assignments (id),
    attempt_id       TEXT    NOT NULL UNIQUE REFERENCES execution_attempts (id),
    attempt_token    BIGINT  NOT NULL,
    process_identity TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('completed', 'blocked', 'failed')),
    failure_category TEXT,
    outcome_known    INTEGER NOT NULL CHECK (outcome_known IN (0, 1)),
    summary          TEXT,
    created_at       BIGINT  NOT NULL
);

-- ---- the mailbox -------------------------------------------------------------------------------------
CREATE TABLE messages (
    id               TEXT    PRIMARY KEY,
    sender           TEXT    NOT NULL CHECK (length(sender) BETWEEN 1 AND 200),
    recipient        TEXT    NOT NULL REFERENCES actors (id),
    subject          TEXT    NOT NULL,
    body             TEXT,
    state            TEXT    NOT NULL CHECK (state IN ('NEW', 'CLAIMED', 'DONE', 'DEAD')),
    claim_actor      TEXT,
    claim_process    TEXT,
    claim_token      BIGINT  CHECK (claim_token IS NULL OR claim_token > 0),
    claim_expires_at BIGINT,
    retry_count      INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    max_retries      INTEGER NOT NULL DEFAULT 3 CHECK (max_retries >= 0),
    created_at       BIGINT  NOT NULL,
    updated_at       BIGINT  NOT NULL,
    finished_with    BIGINT,
    CHECK (state <> 'CLAIMED' OR (claim_actor IS NOT NULL AND claim_process IS NOT NULL
                                  AND claim_token IS NOT NULL AND claim_expires_at IS NOT NULL)),
    CHECK (state <> 'NEW' OR (claim_actor IS NULL AND claim_process IS NULL
                              AND claim_token IS NULL AND claim_expires_at IS NULL))
);
CREATE INDEX messages_inbox ON messages (recipient, state, created_at);
CREATE INDEX messages_claims_by_expiry ON messages (claim_expires_at) WHERE state = 'CLAIMED';

-- ---- the append-only fence journal and the supervisor's ticks --------------------------------------
-- seq comes from an identity sequence: unique and increasing in CALL order, not in commit order (see
-- token_counter). A reader that tails the journal by seq must allow for a row with a lower seq that
-- commits after one with a higher seq (decision 0900, open question).
CREATE TABLE fence_events (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at               BIGINT NOT NULL,
    kind             TEXT   NOT NULL CHECK (kind IN (
                         'LEASE_ACQUIRED', 'LEASE_RENEWED', 'LEASE_RELEASED', 'LEASE_TAKEN_OVER',
                         'ATTEMPT_STARTED', 'ATTEMPT_DONE', 'ATTEMPT_SUPERSEDED', 'ATTEMPT_RECOVERED',
                         'ATTEMPT_STOLEN', 'ASSIGNMENT_CREATED', 'ASSIGNMENT_RETRIED', 'ASSIGNMENT_ACKNOWLEDGED',
                         'CLAIM_GRANTED', 'CLAIM_SWEPT', 'MESSAGE_SENT', 'MESSAGE_DONE', 'MESSAGE_RETRIED',
                         'MESSAGE_DEAD', 'PROCESS_STARTED', 'PROCESS_STOPPED', 'REJECTED')),
    resource_type    TEXT   NOT NULL CHECK (resource_type IN ('actor', 'attempt', 'assignment', 'message', 'process')),
    resource_id      TEXT   NOT NULL,
    actor_id         TEXT,
    process_identity TEXT,
    token            BIGINT,
    presented_token  BIGINT,
    current_token    BIGINT,
    category         TEXT,
    detail           TEXT
);
CREATE INDEX fence_events_by_time ON fence_events (at);
CREATE INDEX fence_events_by_resource ON fence_events (resource_type, resource_id, seq);
CREATE INDEX fence_events_by_actor ON fence_events (actor_id, seq);
CREATE INDEX fence_events_rejections ON fence_events (seq) WHERE kind = 'REJECTED';

CREATE TABLE supervisor_ticks (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at               BIGINT NOT NULL,
    process_identity TEXT   NOT NULL,
    expired_leases   INTEGER NOT NULL,
    stale_processes  INTEGER NOT NULL,
    swept_claims     INTEGER NOT NULL,
    recovered        INTEGER NOT NULL,
    failures         INTEGER NOT NULL,
    report           TEXT   NOT NULL
);
CREATE INDEX supervisor_ticks_by_time ON supervisor_ticks (at);

-- ---- the ledger's mark and the migration record -----------------------------------------------------
-- Both written by the migrator in this migration's transaction: ledger_mark once and never again
-- (lab_sandbox = 1 only on a ledger created for the lab), schema_migrations one row per version,
-- append-only. The row with the highest schema_version IS the schema version (PostgreSQL has no
-- user_version), and the table with its sovereign_* columns is how an open recognises a ledger.
CREATE TABLE ledger_mark (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    lab_sandbox INTEGER NOT NULL CHECK (lab_sandbox IN (0, 1)),
    marked_at   BIGINT  NOT NULL
);

CREATE TABLE schema_migrations (
    schema_version    INTEGER PRIMARY KEY CHECK (schema_version >= 1),
    sovereign_version TEXT    NOT NULL,
    sovereign_commit  TEXT    NOT NULL,
    migrated_at       BIGINT  NOT NULL
);

-- =====================================================================================================
-- The guards (SPEC 14): PL/pgSQL trigger functions, each the equal of its SQLite twin (named in the
-- comments). PostgreSQL differs from SQLite in ways that make some twins simpler and add new holes:
--   * no REPLACE: a duplicate key is refused by the key itself, and INSERT ... ON CONFLICT DO UPDATE
--     fires the BEFORE UPDATE guards on the existing row (and the BEFORE INSERT guards first);
--   * TRUNCATE fires no row trigger: every guarded table has a BEFORE TRUNCATE statement trigger
--     (TRUNCATE ... CASCADE fires those of every table it reaches);
--   * COPY FROM and MERGE (PostgreSQL 15+) fire the row triggers like INSERT/UPDATE/DELETE do;
--   * several transactions write at once, so "minted in the same transaction" is checked against the
--     counter's last_xact, not only its value, and a guard that relies on a lease row locks it FOR
--     SHARE first, so a concurrent takeover is waited for and then seen;
--   * DDL (DROP / DISABLE TRIGGER, CREATE OR REPLACE FUNCTION) and session_replication_role = replica
--     switch triggers off: only the tables' owner can do the first, only a superuser the second. The
--     worker role must own nothing (issue 19); every open checks the guards (PgMigrator).
-- =====================================================================================================

-- token_counter_single_row, token_counter_only_increases (and the counter's last_xact stamp)
CREATE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM token_counter) THEN
            RAISE EXCEPTION 'fence: the fencing-token counter has one row; it cannot be inserted again or replaced' USING ERRCODE = 'SV001';
        END IF;
        NEW.last_xact := 0;
        RETURN NEW;
    END IF;
    IF NEW.last_token <= OLD.last_token OR NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    END IF;
    NEW.last_xact := txid_current();
    RETURN NEW;
END
$$;
CREATE TRIGGER token_counter_guard BEFORE INSERT OR UPDATE ON token_counter FOR EACH ROW EXECUTE FUNCTION token_counter_guard();
CREATE TRIGGER token_counter_never_deleted BEFORE DELETE ON token_counter FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('the fencing-token counter cannot be deleted');
CREATE TRIGGER token_counter_never_truncated BEFORE TRUNCATE ON token_counter FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('the fencing-token counter cannot be deleted');

-- lease_change_counter_single_row, lease_change_counter_only_increases
CREATE FUNCTION lease_change_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM lease_change_counter) THEN
            RAISE EXCEPTION 'fence: the lease change counter has one row; it cannot be inserted again or replaced' USING ERRCODE = 'SV001';
        END IF;
        NEW.last_xact := 0;
        RETURN NEW;
    END IF;
    IF NEW.last_change <= OLD.last_change OR NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the lease change counter only increases' USING ERRCODE = 'SV001';
    END IF;
    NEW.last_xact := txid_current();
    RETURN NEW;
END
$$;
CREATE TRIGGER lease_change_counter_guard BEFORE INSERT OR UPDATE ON lease_change_counter FOR EACH ROW EXECUTE FUNCTION lease_change_counter_guard();
CREATE TRIGGER lease_change_counter_never_deleted BEFORE DELETE ON lease_change_counter FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('the lease change counter cannot be deleted');
CREATE TRIGGER lease_change_counter_never_truncated BEFORE TRUNCATE ON lease_change_counter FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('the lease change counter cannot be deleted');

-- ledger_mark_written_once, ledger_mark_sandbox_only_when_empty; _never_updated, _never_deleted
CREATE FUNCTION ledger_mark_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_mark) THEN
        RAISE EXCEPTION 'fence: the ledger mark is written once, when the ledger is created' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.lab_sandbox = 1 AND ((SELECT last_token FROM token_counter WHERE id = 1) > 0
            OR EXISTS (SELECT 1 FROM actors) OR EXISTS (SELECT 1 FROM processes) OR EXISTS (SELECT 1 FROM fence_events)) THEN
        RAISE EXCEPTION 'fence: only a new, empty ledger can be marked as a lab sandbox' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER ledger_mark_written_once BEFORE INSERT ON ledger_mark FOR EACH ROW EXECUTE FUNCTION ledger_mark_guard();
CREATE TRIGGER ledger_mark_never_changed BEFORE DELETE OR UPDATE ON ledger_mark FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: the ledger mark cannot change');
CREATE TRIGGER ledger_mark_never_truncated BEFORE TRUNCATE ON ledger_mark FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: the ledger mark cannot change');

-- schema_migrations_never_replaced, _never_updated, _never_deleted
CREATE TRIGGER schema_migrations_never_changed BEFORE DELETE OR UPDATE ON schema_migrations FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('the migration record is append-only');
CREATE TRIGGER schema_migrations_never_truncated BEFORE TRUNCATE ON schema_migrations FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('the migration record is append-only');

-- fence_events_never_replaced, fence_events_only_appended; _never_updated, _never_deleted.
-- A row's seq must be the value its own insert just drew from the sequence (currval in this session):
-- an explicit seq (OVERRIDING SYSTEM VALUE) can neither collide with a row, nor land before the last
-- one (history written into the past), nor jump ahead. Not "seq > max(seq)": with concurrent writers a
-- seq drawn earlier may legitimately commit after a later one.
CREATE FUNCTION fence_events_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    drawn bigint;
BEGIN
    BEGIN
        drawn := currval(pg_get_serial_sequence(TG_TABLE_NAME, 'seq'));
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;
    END;
    IF NEW.seq IS DISTINCT FROM drawn OR EXISTS (SELECT 1 FROM fence_events WHERE seq = NEW.seq) THEN
        RAISE EXCEPTION 'fence: the fence journal is append-only' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER fence_events_only_appended BEFORE INSERT ON fence_events FOR EACH ROW EXECUTE FUNCTION fence_events_guard();
CREATE TRIGGER fence_events_never_changed BEFORE DELETE OR UPDATE ON fence_events FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('the fence journal is append-only');
CREATE TRIGGER fence_events_never_truncated BEFORE TRUNCATE ON fence_events FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('the fence journal is append-only');

-- supervisor_ticks_never_replaced, _only_appended, _never_updated, _never_deleted
CREATE FUNCTION supervisor_ticks_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    drawn bigint;
BEGIN
    BEGIN
        drawn := currval(pg_get_serial_sequence(TG_TABLE_NAME, 'seq'));
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;
    END;
    IF NEW.seq IS DISTINCT FROM drawn OR EXISTS (SELECT 1 FROM supervisor_ticks WHERE seq = NEW.seq) THEN
        RAISE EXCEPTION 'fence: supervisor ticks are append-only' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER supervisor_ticks_only_appended BEFORE INSERT ON supervisor_ticks FOR EACH ROW EXECUTE FUNCTION supervisor_ticks_guard();
CREATE TRIGGER supervisor_ticks_never_changed BEFORE DELETE OR UPDATE ON supervisor_ticks FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: supervisor ticks are append-only');
CREATE TRIGGER supervisor_ticks_never_truncated BEFORE TRUNCATE ON supervisor_ticks FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: supervisor ticks are append-only');

-- ---- actor leases --------------------------------------------------------------------------------------
-- actor_leases_never_replaced, _granted_with_a_fresh_token, _insert_carries_change
CREATE FUNCTION actor_leases_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    changes lease_change_counter%ROWTYPE;
BEGIN
    IF EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO tokens FROM token_counter WHERE id = 1;
    IF NEW.token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'fence: a lease is granted with the token minted for it in the same transaction' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO changes FROM lease_change_counter WHERE id = 1;
    IF NEW.change_seq <= 0 OR NEW.change_seq IS DISTINCT FROM changes.last_change OR changes.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actor_leases_guard_insert BEFORE INSERT ON actor_leases FOR EACH ROW EXECUTE FUNCTION actor_leases_guard_insert();

-- actor_leases_keep_their_actor, _update_carries_change, _written_only_with_the_current_token,
-- _renewal_keeps_the_holder, _takeover_mints_and_waits_for_expiry (on the server's clock)
CREATE FUNCTION actor_leases_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    changes lease_change_counter%ROWTYPE;
BEGIN
    IF NEW.actor_id IS DISTINCT FROM OLD.actor_id THEN
        RAISE EXCEPTION 'fence: a lease row never changes its actor' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO changes FROM lease_change_counter WHERE id = 1;
    IF NEW.change_seq <= OLD.change_seq OR NEW.change_seq IS DISTINCT FROM changes.last_change
            OR changes.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.presented_change IS DISTINCT FROM NEW.change_seq OR NEW.presented_token IS DISTINCT FROM OLD.token THEN
        RAISE EXCEPTION 'fence: a lease is renewed or taken over only by a write that presents its current token' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.token IS NOT DISTINCT FROM OLD.token AND NEW.process_identity IS DISTINCT FROM OLD.process_identity THEN
        RAISE EXCEPTION 'fence: a renewal keeps the holder; another process needs a takeover with a new token' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.token IS DISTINCT FROM OLD.token THEN
        SELECT * INTO tokens FROM token_counter WHERE id = 1;
        IF NEW.token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current()
                OR NEW.token <= OLD.token OR OLD.expires_at > sovereign_now_ms() THEN
            RAISE EXCEPTION 'fence: a takeover needs an expired lease and the token minted for it in the same transaction' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actor_leases_guard_update BEFORE UPDATE ON actor_leases FOR EACH ROW EXECUTE FUNCTION actor_leases_guard_update();

-- actor_leases_released_only_with_the_current_token: the same transaction first writes the row
-- presenting the token (which raises the change counter), then deletes it. A bare DELETE — a buggy
-- client, or a hand-typed "take over" by DELETE + INSERT — is refused; so is a DELETE in a later
-- transaction after a renewal left a matching token in the row (last_xact).
CREATE FUNCTION actor_leases_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes lease_change_counter%ROWTYPE;
BEGIN
    SELECT * INTO changes FROM lease_change_counter WHERE id = 1;
    IF OLD.presented_token IS DISTINCT FROM OLD.token OR OLD.presented_change IS DISTINCT FROM changes.last_change
            OR changes.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'fence: a lease is released only by the transaction that presents its current token' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;
CREATE TRIGGER actor_leases_guard_delete BEFORE DELETE ON actor_leases FOR EACH ROW EXECUTE FUNCTION actor_leases_guard_delete();
CREATE TRIGGER actor_leases_never_truncated BEFORE TRUNCATE ON actor_leases FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: a lease is released only by the transaction that presents its current token');

-- actor_leases_delete_leaves_tombstone (SQLite version 2): a released lease leaves its actor and the
-- change counter's value of the delete, so a reader that reads only changes sees the release.
CREATE FUNCTION actor_leases_leave_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1;
    INSERT INTO lease_tombstones (actor_id, change_seq)
        SELECT OLD.actor_id, last_change FROM lease_change_counter WHERE id = 1
        ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN NULL;
END
$$;
CREATE TRIGGER actor_leases_delete_leaves_tombstone AFTER DELETE ON actor_leases FOR EACH ROW EXECUTE FUNCTION actor_leases_leave_tombstone();

-- ---- execution attempts ----------------------------------------------------------------------------
-- attempts_never_replaced, attempts_start_under_the_current_lease
CREATE FUNCTION execution_attempts_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
BEGIN
    IF EXISTS (SELECT 1 FROM execution_attempts WHERE id = NEW.id OR token = NEW.token) THEN
        RAISE EXCEPTION 'fence: an attempt is never inserted twice or replaced' USING ERRCODE = 'SV001';
    END IF;
    -- Wait for a concurrent takeover of the actor's lease to commit, and see its result.
    PERFORM 1 FROM actor_leases WHERE actor_id = NEW.actor_id FOR SHARE;
    SELECT * INTO tokens FROM token_counter WHERE id = 1;
    IF NEW.state IS DISTINCT FROM 'ACTIVE' OR NEW.token IS DISTINCT FROM tokens.last_token
            OR tokens.last_xact <> txid_current()
            OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.actor_id AND l.token = NEW.lease_token
                           AND l.process_identity = NEW.process_identity)
            OR NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = NEW.assignment_id AND a.actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an attempt starts ACTIVE, with a freshly minted token, bound to the current lease of its actor held by its own process' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER execution_attempts_guard_insert BEFORE INSERT ON execution_attempts FOR EACH ROW EXECUTE FUNCTION execution_attempts_guard_insert();

-- attempts_keep_their_identity, attempts_ended_are_final
CREATE FUNCTION execution_attempts_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.token IS DISTINCT FROM OLD.token OR NEW.lease_token IS DISTINCT FROM OLD.lease_token
            OR NEW.assignment_id IS DISTINCT FROM OLD.assignment_id OR NEW.actor_id IS DISTINCT FROM OLD.actor_id
            OR NEW.process_identity IS DISTINCT FROM OLD.process_identity OR NEW.started_at IS DISTINCT FROM OLD.started_at THEN
        RAISE EXCEPTION 'fence: an attempt never changes its id, token, lease token, assignment, actor or process' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.state IS DISTINCT FROM 'ACTIVE' THEN
        RAISE EXCEPTION 'fence: an ended attempt is final' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER execution_attempts_guard_update BEFORE UPDATE ON execution_attempts FOR EACH ROW EXECUTE FUNCTION execution_attempts_guard_update();
CREATE TRIGGER attempts_never_deleted BEFORE DELETE ON execution_attempts FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: attempts are never deleted');
CREATE TRIGGER attempts_never_truncated BEFORE TRUNCATE ON execution_attempts FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: attempts are never deleted');

-- ---- assignments: the terminal fence -----------------------------------------------------------------
-- assignments_never_replaced, assignments_start_as_created
CREATE FUNCTION assignments_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM assignments WHERE id = NEW.id) THEN
        RAISE EXCEPTION 'fence: an assignment is never inserted twice or replaced' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state IS DISTINCT FROM 'CREATED' OR NEW.current_attempt IS NOT NULL OR NEW.ended_by_attempt IS NOT NULL
            OR NEW.ended_via IS NOT NULL THEN
        RAISE EXCEPTION 'fence: an assignment is created in state CREATED, with no attempt' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER assignments_guard_insert BEFORE INSERT ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_guard_insert();
CREATE TRIGGER assignments_never_deleted BEFORE DELETE ON assignments FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: assignments are never deleted');
CREATE TRIGGER assignments_never_truncated BEFORE TRUNCATE ON assignments FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: assignments are never deleted');

-- assignments_keep_their_identity, _move_forward_only, _ended_are_final, _point_only_at_a_fresh_attempt,
-- _end_only_through_their_fence. The write that ends an assignment states which attempt ends it
-- (ended_by_attempt) and how (ended_via): 'attempt' — its own current attempt, whose bound lease token
-- is still the actor's current lease held by the attempt's process; 'recovery' — the supervisor, for
-- an attempt that has expired on the server's clock and is still current (or whose fence an operator
-- stole, with no live attempt left), and only to FAILED. Only on a lab sandbox is the terminal fence
-- left to the client.
CREATE FUNCTION assignments_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    now_ms bigint;
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.actor_id IS DISTINCT FROM OLD.actor_id
            OR NEW.provider_spec IS DISTINCT FROM OLD.provider_spec OR NEW.workspace_policy IS DISTINCT FROM OLD.workspace_policy
            OR NEW.retry_of IS DISTINCT FROM OLD.retry_of OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'fence: an assignment never changes its id, actor, provider, workspace policy or origin' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state IS DISTINCT FROM OLD.state AND NOT ((OLD.state = 'CREATED' AND NEW.state = 'RUNNING')
            OR (OLD.state = 'RUNNING' AND NEW.state IN ('COMPLETED', 'BLOCKED', 'FAILED'))) THEN
        RAISE EXCEPTION 'fence: an assignment moves only CREATED -> RUNNING -> COMPLETED, BLOCKED or FAILED' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.state IN ('COMPLETED', 'BLOCKED', 'FAILED') AND (NEW.current_attempt IS NOT NULL
            OR NEW.ended_by_attempt IS DISTINCT FROM OLD.ended_by_attempt OR NEW.ended_via IS DISTINCT FROM OLD.ended_via
            OR (OLD.acknowledged_at IS NOT NULL AND NEW.acknowledged_at IS DISTINCT FROM OLD.acknowledged_at)) THEN
        RAISE EXCEPTION 'fence: an ended assignment is final; only an acknowledgement can be added' USING ERRCODE = 'SV001';
    END IF;
    -- A stolen fence (RUNNING with no pointer) is never pointed again: only the supervisor ends it. A
    -- live attempt is never pushed aside: the engine supersedes an expired one (state SUPERSEDED) first.
    IF NEW.current_attempt IS NOT NULL AND NEW.current_attempt IS DISTINCT FROM OLD.current_attempt THEN
        SELECT * INTO tokens FROM token_counter WHERE id = 1;
        IF (OLD.state = 'RUNNING' AND OLD.current_attempt IS NULL)
                OR EXISTS (SELECT 1 FROM execution_attempts live WHERE live.id = OLD.current_attempt AND live.state = 'ACTIVE')
                OR tokens.last_xact <> txid_current()
                OR NOT EXISTS (SELECT 1 FROM execution_attempts t WHERE t.id = NEW.current_attempt AND t.assignment_id = OLD.id
                               AND t.state = 'ACTIVE' AND t.token = tokens.last_token) THEN
            RAISE EXCEPTION 'fence: current_attempt can only point at the ACTIVE attempt of this assignment just started with a freshly minted token, after the previous one ended, and never again once an operator stole the fence' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF OLD.state = 'RUNNING' AND NEW.state IN ('COMPLETED', 'BLOCKED', 'FAILED')
            AND COALESCE((SELECT lab_sandbox FROM ledger_mark WHERE id = 1), 0) = 0 THEN
        -- Wait for a concurrent takeover of the actor's lease to commit, and see its result.
        PERFORM 1 FROM actor_leases WHERE actor_id = OLD.actor_id FOR SHARE;
        now_ms := sovereign_now_ms();
        IF NOT (NEW.ended_by_attempt IS NOT NULL AND NEW.current_attempt IS NULL
                AND EXISTS (SELECT 1 FROM execution_attempts t WHERE t.id = NEW.ended_by_attempt AND t.assignment_id = OLD.id
                    AND t.state = 'ACTIVE'
                    AND ((NEW.ended_via = 'attempt' AND t.id IS NOT DISTINCT FROM OLD.current_attempt
                          AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = t.actor_id AND l.token = t.lease_token
                                      AND l.process_identity = t.process_identity))
                      OR (NEW.ended_via = 'recovery' AND NEW.state = 'FAILED' AND t.expires_at <= now_ms
                          AND (t.id IS NOT DISTINCT FROM OLD.current_attempt
                               OR (OLD.current_attempt IS NULL AND NOT EXISTS (SELECT 1 FROM execution_attempts live
                                   WHERE live.assignment_id = OLD.id AND live.state = 'ACTIVE'
                                   AND live.expires_at > now_ms))))))) THEN
            RAISE EXCEPTION 'fence: an assignment ends only by its current attempt while the actor lease still carries that attempt''s bound token and process, or by a recovery of its expired attempt' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER assignments_guard_update BEFORE UPDATE ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_guard_update();

-- ---- receipts: only from the attempt that ended the assignment ---------------------------------------
-- receipts_never_replaced, receipts_only_from_the_ending_attempt, receipts_of_a_recovery_never_guess_success
CREATE FUNCTION receipts_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id OR assignment_id = NEW.assignment_id
               OR attempt_id = NEW.attempt_id) THEN
        RAISE EXCEPTION 'fence: receipts are immutable; an assignment has at most one' USING ERRCODE = 'SV001';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM assignments a JOIN execution_attempts t ON t.id = a.ended_by_attempt
                   WHERE a.id = NEW.assignment_id AND a.state IN ('COMPLETED', 'BLOCKED', 'FAILED')
                   AND a.ended_by_attempt IS NOT DISTINCT FROM NEW.attempt_id AND t.token IS NOT DISTINCT FROM NEW.attempt_token) THEN
        RAISE EXCEPTION 'fence: a receipt names the attempt whose fenced terminal write ended its assignment, with that attempt''s token' USING ERRCODE = 'SV001';
    END IF;
    IF (SELECT ended_via FROM assignments WHERE id = NEW.assignment_id) IS NOT DISTINCT FROM 'recovery'
            AND (NEW.status IS DISTINCT FROM 'failed' OR NEW.failure_category IS DISTINCT FROM 'worker_lost'
                 OR NEW.outcome_known IS DISTINCT FROM 0) THEN
        RAISE EXCEPTION 'fence: a recovery''s receipt is failed, worker_lost, outcome unknown: a recovery never guesses success' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER receipts_guard_insert BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION receipts_guard_insert();
CREATE TRIGGER receipts_never_changed BEFORE DELETE OR UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('receipts are immutable');
CREATE TRIGGER receipts_never_truncated BEFORE TRUNCATE ON receipts FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('receipts are immutable');

-- ---- messages ----------------------------------------------------------------------------------------
-- messages_never_replaced, messages_sent_as_new
CREATE FUNCTION messages_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM messages WHERE id = NEW.id) THEN
        RAISE EXCEPTION 'fence: a message is never inserted twice or replaced' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state IS DISTINCT FROM 'NEW' THEN
        RAISE EXCEPTION 'fence: a message is sent in state NEW' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_guard_insert BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_insert();
CREATE TRIGGER messages_never_deleted BEFORE DELETE ON messages FOR EACH ROW EXECUTE FUNCTION sovereign_refuse('fence: messages are never deleted');
CREATE TRIGGER messages_never_truncated BEFORE TRUNCATE ON messages FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: messages are never deleted');

-- messages_finished_are_final, _keep_their_identity, _move_forward_only, _claimed_with_a_fresh_token,
-- _reclaimed_only_by_the_holder, _finished_only_with_the_current_claim, _swept_only_when_expired.
-- A finish (complete, dead-letter, re-queue by dead-letter) states the claim token it presents in
-- finished_with; claim tokens are fresh for every claim, so a write that states nothing is refused.
CREATE FUNCTION messages_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
BEGIN
    IF OLD.state IN ('DONE', 'DEAD') THEN
        RAISE EXCEPTION 'a finished message cannot change' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.recipient IS DISTINCT FROM OLD.recipient OR NEW.sender IS DISTINCT FROM OLD.sender
            OR NEW.subject IS DISTINCT FROM OLD.subject OR NEW.body IS DISTINCT FROM OLD.body
            OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'fence: a message never changes its id, sender, recipient, subject or body' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state IS DISTINCT FROM OLD.state AND NOT ((OLD.state = 'NEW' AND NEW.state = 'CLAIMED')
            OR (OLD.state = 'CLAIMED' AND NEW.state IN ('NEW', 'DONE', 'DEAD'))) THEN
        RAISE EXCEPTION 'fence: a message moves only NEW -> CLAIMED -> DONE, DEAD or NEW again' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.state = 'CLAIMED' AND NEW.claim_token IS DISTINCT FROM OLD.claim_token THEN
        PERFORM 1 FROM actor_leases WHERE actor_id = NEW.recipient FOR SHARE;
        SELECT * INTO tokens FROM token_counter WHERE id = 1;
        IF NEW.claim_token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current()
                OR NEW.claim_actor IS DISTINCT FROM NEW.recipient
                OR (OLD.state = 'CLAIMED' AND OLD.claim_expires_at > sovereign_now_ms())
                OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.recipient
                               AND l.process_identity = NEW.claim_process) THEN
            RAISE EXCEPTION 'fence: a claim is granted with a freshly minted token, to a process hosting the recipient, and only over an expired claim' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF OLD.state = 'CLAIMED' AND NEW.state = 'CLAIMED' AND NEW.claim_token IS NOT DISTINCT FROM OLD.claim_token
            AND (NEW.claim_process IS DISTINCT FROM OLD.claim_process OR NEW.claim_actor IS DISTINCT FROM OLD.claim_actor) THEN
        RAISE EXCEPTION 'fence: a claim keeps its token only for the process that holds it' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.state = 'CLAIMED' AND (NEW.state IN ('DONE', 'DEAD')
            OR (NEW.state = 'NEW' AND NEW.retry_count IS DISTINCT FROM OLD.retry_count)) THEN
        PERFORM 1 FROM actor_leases WHERE actor_id = OLD.claim_actor FOR SHARE;
        IF NEW.finished_with IS DISTINCT FROM OLD.claim_token
                OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.claim_actor
                               AND l.process_identity = OLD.claim_process) THEN
            RAISE EXCEPTION 'fence: a message is finished only with its current claim token, by the claiming process while it still hosts the actor' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF OLD.state = 'CLAIMED' AND NEW.state = 'NEW' AND NEW.retry_count IS NOT DISTINCT FROM OLD.retry_count
            AND OLD.claim_expires_at > sovereign_now_ms() THEN
        RAISE EXCEPTION 'fence: a live claim is not swept' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_guard_update BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_update();

-- ---- every function sees only the built-ins and the ledger; every guard fires in every session ------
-- ENABLE ALWAYS: a guard fires also under session_replication_role = replica, which otherwise switches
-- every ordinary trigger off for the session, leaving no trace in the schema. Only a superuser can set
-- that role, but nobody needs it on this ledger. The price: a logical-replication subscriber of these
-- tables would run the guards while applying (decision 0900). Every open checks tgenabled = 'A' and
-- each function's search_path.
DO $$
DECLARE
    f record;
    t record;
BEGIN
    FOR f IN SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = current_schema() AND p.proname LIKE ANY (ARRAY['sovereign\_%', '%\_guard%', '%\_tombstone']) LOOP
        EXECUTE format('ALTER FUNCTION %I() SET search_path = pg_catalog, %I, pg_temp', f.proname, current_schema());
    END LOOP;
    FOR t IN SELECT g.tgname, c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
             JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE NOT g.tgisinternal AND n.nspname = current_schema() LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER %I', t.relname, t.tgname);
    END LOOP;
END
$$;
