-- Sovereign schema, version 1. Applied migrations are never edited: add a new file instead.
-- All times are INTEGER epoch milliseconds. Expiry is always derived (expires_at <= now).

-- The ONE fencing-token counter shared by every kind of grant. Its single row can never be
-- deleted and its value can never go down, so a token is never re-issued, not even after
-- every lease row has been deleted.
CREATE TABLE token_counter (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    last_token INTEGER NOT NULL CHECK (last_token >= 0)
);
INSERT INTO token_counter (id, last_token) VALUES (1, 0);
CREATE TRIGGER token_counter_never_deleted BEFORE DELETE ON token_counter
BEGIN SELECT RAISE(ABORT, 'the fencing-token counter cannot be deleted'); END;
CREATE TRIGGER token_counter_only_increases BEFORE UPDATE ON token_counter
WHEN NEW.last_token <= OLD.last_token OR NEW.id <> OLD.id
BEGIN SELECT RAISE(ABORT, 'the fencing-token counter only increases'); END;

CREATE TABLE processes (
    identity              TEXT PRIMARY KEY CHECK (identity LIKE 'proc\_%' ESCAPE '\' AND length(identity) BETWEEN 6 AND 100),
    pid                   INTEGER,
    host                  TEXT,
    kind                  TEXT NOT NULL,
    label                 TEXT,
    started_at            INTEGER NOT NULL,
    heartbeat_at          INTEGER NOT NULL,
    heartbeat_interval_ms INTEGER NOT NULL CHECK (heartbeat_interval_ms > 0),
    stopped_at            INTEGER
);
CREATE INDEX processes_running_by_heartbeat ON processes (heartbeat_at) WHERE stopped_at IS NULL;

CREATE TABLE actors (
    id               TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
    workspace_policy TEXT NOT NULL DEFAULT 'temporary' CHECK (workspace_policy IN ('temporary', 'persistent')),
    created_at       INTEGER NOT NULL
);

-- One row per hosted actor. A takeover replaces the row (new process, new token).
CREATE TABLE actor_leases (
    actor_id               TEXT PRIMARY KEY REFERENCES actors (id),
    process_identity       TEXT NOT NULL REFERENCES processes (identity),
    token                  INTEGER NOT NULL CHECK (token > 0),
    ttl_ms                 INTEGER NOT NULL CHECK (ttl_ms > 0),
    acquired_at            INTEGER NOT NULL,
    renewed_at             INTEGER NOT NULL,
    expires_at             INTEGER NOT NULL,
    renewals               INTEGER NOT NULL DEFAULT 0,
    renewal_journalled_at  INTEGER NOT NULL
);
CREATE INDEX actor_leases_by_expiry ON actor_leases (expires_at);
CREATE INDEX actor_leases_by_process ON actor_leases (process_identity);

CREATE TABLE assignments (
    id               TEXT PRIMARY KEY,
    actor_id         TEXT NOT NULL REFERENCES actors (id),
    provider_spec    TEXT NOT NULL,
    workspace_policy TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('CREATED', 'RUNNING', 'COMPLETED', 'BLOCKED', 'FAILED')),
    current_attempt  TEXT REFERENCES execution_attempts (id),
    retry_of         TEXT REFERENCES assignments (id),
    acknowledged_at  INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    CHECK (current_attempt IS NULL OR state = 'RUNNING')
);
CREATE INDEX assignments_by_actor_state ON assignments (actor_id, state, created_at);
CREATE INDEX assignments_by_state ON assignments (state, updated_at);
CREATE UNIQUE INDEX assignments_one_retry_each ON assignments (retry_of) WHERE retry_of IS NOT NULL;

CREATE TABLE execution_attempts (
    id               TEXT PRIMARY KEY,
    assignment_id    TEXT NOT NULL REFERENCES assignments (id),
    actor_id         TEXT NOT NULL REFERENCES actors (id),
    process_identity TEXT NOT NULL REFERENCES processes (identity),
    token            INTEGER NOT NULL UNIQUE CHECK (token > 0),
    lease_token      INTEGER NOT NULL CHECK (lease_token > 0),
    state            TEXT NOT NULL CHECK (state IN ('ACTIVE', 'DONE', 'SUPERSEDED', 'RECOVERED', 'LOST')),
    ttl_ms           INTEGER NOT NULL CHECK (ttl_ms > 0),
    started_at       INTEGER NOT NULL,
    renewed_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    ended_at         INTEGER
);
CREATE INDEX attempts_active_by_expiry ON execution_attempts (expires_at) WHERE state = 'ACTIVE';
CREATE INDEX attempts_by_assignment ON execution_attempts (assignment_id, started_at);
CREATE INDEX attempts_active_by_process ON execution_attempts (process_identity) WHERE state = 'ACTIVE';

-- The canonical record of what one attempt produced. At most one per assignment: a second
-- canonical receipt is impossible by construction, not only by the fence.
CREATE TABLE receipts (
    id               INTEGER PRIMARY KEY,
    assignment_id    TEXT NOT NULL UNIQUE REFERENCES assignments (id),
    attempt_id       TEXT NOT NULL UNIQUE REFERENCES execution_attempts (id),
    attempt_token    INTEGER NOT NULL,
    process_identity TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('completed', 'blocked', 'failed')),
    failure_category TEXT,
    outcome_known    INTEGER NOT NULL CHECK (outcome_known IN (0, 1)),
    summary          TEXT,
    created_at       INTEGER NOT NULL
);
CREATE TRIGGER receipts_never_updated BEFORE UPDATE ON receipts
BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END;
CREATE TRIGGER receipts_never_deleted BEFORE DELETE ON receipts
BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END;

CREATE TABLE messages (
    id               TEXT PRIMARY KEY,
    sender           TEXT NOT NULL CHECK (length(sender) BETWEEN 1 AND 200),
    recipient        TEXT NOT NULL REFERENCES actors (id),
    subject          TEXT NOT NULL,
    body             TEXT,
    state            TEXT NOT NULL CHECK (state IN ('NEW', 'CLAIMED', 'DONE', 'DEAD')),
    claim_actor      TEXT,
    claim_process    TEXT,
    claim_token      INTEGER CHECK (claim_token IS NULL OR claim_token > 0),
    claim_expires_at INTEGER,
    retry_count      INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    max_retries      INTEGER NOT NULL DEFAULT 3 CHECK (max_retries >= 0),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    CHECK (state <> 'CLAIMED' OR (claim_actor IS NOT NULL AND claim_process IS NOT NULL
                                  AND claim_token IS NOT NULL AND claim_expires_at IS NOT NULL)),
    CHECK (state <> 'NEW' OR (claim_actor IS NULL AND claim_process IS NULL
                              AND claim_token IS NULL AND claim_expires_at IS NULL))
);
CREATE INDEX messages_inbox ON messages (recipient, state, created_at);
CREATE INDEX messages_claims_by_expiry ON messages (claim_expires_at) WHERE state = 'CLAIMED';
CREATE TRIGGER messages_finished_are_final BEFORE UPDATE ON messages
WHEN OLD.state IN ('DONE', 'DEAD')
BEGIN SELECT RAISE(ABORT, 'a finished message cannot change'); END;

-- The append-only fence journal: every grant, renewal, release, takeover, sweep, recovery
-- and rejection.
CREATE TABLE fence_events (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
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
CREATE INDEX fence_events_by_time ON fence_events (at);
CREATE INDEX fence_events_by_resource ON fence_events (resource_type, resource_id, seq);
CREATE INDEX fence_events_by_actor ON fence_events (actor_id, seq);
CREATE INDEX fence_events_rejections ON fence_events (seq) WHERE kind = 'REJECTED';
CREATE TRIGGER fence_events_never_updated BEFORE UPDATE ON fence_events
BEGIN SELECT RAISE(ABORT, 'the fence journal is append-only'); END;
CREATE TRIGGER fence_events_never_deleted BEFORE DELETE ON fence_events
BEGIN SELECT RAISE(ABORT, 'the fence journal is append-only'); END;

-- Each supervisor tick's report, so the console can show the last one.
CREATE TABLE supervisor_ticks (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    at               INTEGER NOT NULL,
    process_identity TEXT NOT NULL,
    expired_leases   INTEGER NOT NULL,
    stale_processes  INTEGER NOT NULL,
    swept_claims     INTEGER NOT NULL,
    recovered        INTEGER NOT NULL,
    failures         INTEGER NOT NULL,
    report           TEXT NOT NULL
);
CREATE INDEX supervisor_ticks_by_time ON supervisor_ticks (at);
