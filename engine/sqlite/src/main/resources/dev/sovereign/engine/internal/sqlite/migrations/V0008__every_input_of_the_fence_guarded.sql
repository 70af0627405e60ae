-- Sovereign schema, version 8: every input of the fence guarded, after leases were attached to their holder's
-- session (issue 26, issue 32; docs/decisions/0011-a-lease-row-is-deleted-only-by-its-release.md). Applied
-- migrations are never edited.
--
-- Version 7 moved "who is alive" from the lease rows to the holder's session row (processes.heartbeat_at), and a
-- beat stopped writing lease rows. Two guards were written for the old design:
--   * the delete guard of version 3 (actor_leases_released_only_with_the_current_token) let a row go when its last
--     presented change marker was still the lease change counter's value. Beats used to move that counter; now
--     only lease writes do, so after a renewal or a detach the marker stayed "current" and a bare DELETE freed the
--     live lease (and DELETE + mint + INSERT took it over with nothing journalled). It is replaced below by a
--     release that states itself in the row and is carried out by that same statement;
--   * the takeover guard of version 7 reads the holder's heartbeat_at, which nothing guarded: a bare UPDATE could
--     move a live holder's session into the past. The session row is guarded below.
-- Time is the writer's, as in version 3: SQLite has no clock every writer shares, so where a rule needs "now" it
-- uses the time the write itself stamps.

-- ---- actor leases: deleted only by their release ----------------------------------------------------------------
-- A release states itself in the row: released_at (the release's own time, which the journal row carries) and
-- released_note (the journal row's detail), in an UPDATE that presents the current token like every lease write
-- (actor_leases_written_only_with_the_current_token). That UPDATE removes the row itself (an AFTER UPDATE trigger),
-- so a row carrying a release marker never outlives the statement that wrote it, and the only DELETE the schema
-- lets through is that one. The deletion is journalled by the database (LEASE_RELEASED, AFTER DELETE), so even a
-- release written by hand with a token read from the file shows in the journal.
ALTER TABLE actor_leases ADD COLUMN released_at INTEGER;
ALTER TABLE actor_leases ADD COLUMN released_note TEXT;
DROP TRIGGER actor_leases_released_only_with_the_current_token;
CREATE TRIGGER actor_leases_granted_unreleased BEFORE INSERT ON actor_leases
WHEN NEW.released_at IS NOT NULL OR NEW.released_note IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'fence: a lease is granted without a release marker; only its release writes one'); END;
CREATE TRIGGER actor_leases_release_states_its_time_and_keeps_the_grant BEFORE UPDATE ON actor_leases
WHEN (NEW.released_at IS NOT NULL OR NEW.released_note IS NOT NULL)
    AND (typeof(NEW.released_at) IS NOT 'integer' OR OLD.released_at IS NOT NULL
         OR NEW.token IS NOT OLD.token OR NEW.process_identity IS NOT OLD.process_identity)
BEGIN SELECT RAISE(ABORT, 'fence: a release states its time (an integer) and keeps the grant''s token and holder'); END;
CREATE TRIGGER actor_leases_released_only_by_their_release BEFORE DELETE ON actor_leases
WHEN OLD.released_at IS NULL OR OLD.presented_token IS NOT OLD.token
BEGIN SELECT RAISE(ABORT, 'fence: a lease is released only by a write that presents its current token and states the release in the row (released_at), which removes the row itself; a bare DELETE is refused'); END;
CREATE TRIGGER actor_leases_release_removes_the_row AFTER UPDATE ON actor_leases
WHEN NEW.released_at IS NOT NULL
BEGIN
    DELETE FROM actor_leases WHERE actor_id = NEW.actor_id;
END;
CREATE TRIGGER actor_leases_release_is_journalled AFTER DELETE ON actor_leases
BEGIN
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (OLD.released_at, 'LEASE_RELEASED', 'actor', OLD.actor_id, OLD.actor_id, OLD.process_identity, OLD.token,
                OLD.released_note);
END;

-- ---- the holder's session: what keeps an attached lease alive ---------------------------------------------------
-- Since version 7 an attached lease lives as long as its holder's processes.heartbeat_at says, and the takeover guard
-- reads it (actor_leases_takeover_waits_for_the_holders_session). A bare UPDATE moving it back, a value of another
-- type (text compares above every number, and then reads as 0), the row deleted (by a client with foreign_keys off,
-- SQLite's default) or renamed, or REPLACE (whose implicit delete fires no trigger unless recursive_triggers is on)
-- would each expire every attached lease of a live holder. The beat moves only forward (the engine stamps
-- max(heartbeat_at, now), so a clock step back keeps the session already stamped, decision 0600); an insert of an
-- identity that is already there changes nothing (the engine's own registration of a borrowed identity is
-- INSERT ... ON CONFLICT DO NOTHING, so it is ignored rather than refused). Forward has no bound: SQLite has no clock
-- every writer shares, so a session stamped far ahead by hand pins its holder's attached leases (docs/security.md).
CREATE TRIGGER processes_beat_only_forward BEFORE UPDATE ON processes
WHEN NEW.heartbeat_at IS NOT OLD.heartbeat_at
    AND (typeof(NEW.heartbeat_at) IS NOT 'integer' OR NEW.heartbeat_at < OLD.heartbeat_at)
BEGIN SELECT RAISE(ABORT, 'fence: a process''s heartbeat only moves forward, as an integer time'); END;
CREATE TRIGGER processes_keep_their_identity BEFORE UPDATE ON processes
WHEN NEW.identity IS NOT OLD.identity
BEGIN SELECT RAISE(ABORT, 'fence: a process never changes its identity'); END;
CREATE TRIGGER processes_never_replaced BEFORE INSERT ON processes
WHEN EXISTS (SELECT 1 FROM processes WHERE identity = NEW.identity)
BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER processes_kept_while_they_hold_a_lease BEFORE DELETE ON processes
WHEN EXISTS (SELECT 1 FROM actor_leases WHERE process_identity = OLD.identity)
BEGIN SELECT RAISE(ABORT, 'fence: a process is never deleted while a lease names it: its session keeps that lease alive'); END;

-- ---- message claims: an expiry guarded like an attempt's (version 5) ----------------------------------------------
-- Version 3 let a live claim be taken over or swept only once expired at the write's own time, but nothing guarded the
-- expiry itself: a bare UPDATE could move a live claim's claim_expires_at into the past (then sweep it back to NEW, or
-- mint a new claim over it, in the same transaction) or far into the future (frozen: nobody may claim the message
-- again and the supervisor never sweeps it). Now, when a claim's expiry is written: under the same claim token it only
-- moves forward, and only while the claim is still live at the write's own time (updated_at) — an expired claim is
-- not revived, it gets a new token; and any expiry written, for the same or a new claim, is an integer later than the
-- write's own time and at most 365 days after it, the longest claim TTL the API allows (decision 0602). The engine's
-- re-claim by the holder writes max(claim_expires_at, now + ttl), so a shorter TTL or a clock step back keeps the
-- expiry already promised (decision 0600).
CREATE TRIGGER messages_claims_expire_forward_within_a_year BEFORE UPDATE ON messages
WHEN NEW.state = 'CLAIMED'
    AND (NEW.claim_expires_at IS NOT OLD.claim_expires_at OR NEW.claim_token IS NOT OLD.claim_token)
    AND NOT (typeof(NEW.claim_expires_at) = 'integer' AND typeof(NEW.updated_at) = 'integer'
        AND NEW.claim_expires_at > NEW.updated_at AND NEW.claim_expires_at <= NEW.updated_at + 31536000000
        AND (NEW.claim_token IS NOT OLD.claim_token
             OR (NEW.claim_expires_at > OLD.claim_expires_at AND OLD.claim_expires_at > NEW.updated_at)))
BEGIN SELECT RAISE(ABORT, 'fence: a claim''s expiry is written later than the write''s own time and at most 365 days after it, and under the same claim only forward while the claim is live'); END;

-- ---- assignments: retry and acknowledge by the guards, not by who may write ----------------------------------------
-- A retry is a new CREATED assignment (assignments_start_as_created) of a FAILED or BLOCKED one, with that one's actor,
-- provider and workspace policy, and there is at most one: the unique index assignments_one_retry_each alone would let
-- INSERT OR REPLACE delete the earlier retry (its implicit delete fires no trigger unless recursive_triggers is on).
-- An acknowledgement is stamped once, on a FAILED or BLOCKED assignment, as an integer time not before the assignment
-- ended (its updated_at); never on insert. The engine stamps max(now, updated_at). Both are journalled by the engine
-- (ASSIGNMENT_RETRIED, ASSIGNMENT_ACKNOWLEDGED); one written by hand within these rules shows in the assignment only.
CREATE TRIGGER assignments_retry_only_a_failure_once BEFORE INSERT ON assignments
WHEN NEW.retry_of IS NOT NULL
    AND (NOT EXISTS (SELECT 1 FROM assignments o WHERE o.id = NEW.retry_of AND o.state IN ('FAILED', 'BLOCKED')
             AND o.actor_id IS NEW.actor_id AND o.provider_spec IS NEW.provider_spec
             AND o.workspace_policy IS NEW.workspace_policy)
         OR EXISTS (SELECT 1 FROM assignments r WHERE r.retry_of = NEW.retry_of))
BEGIN SELECT RAISE(ABORT, 'fence: a retry is of a FAILED or BLOCKED assignment, with its actor, provider and workspace policy, and an assignment is retried at most once'); END;
CREATE TRIGGER assignments_created_unacknowledged BEFORE INSERT ON assignments
WHEN NEW.acknowledged_at IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'fence: an assignment is created unacknowledged; only a FAILED or BLOCKED one is acknowledged'); END;
CREATE TRIGGER assignments_acknowledged_once_after_a_failure BEFORE UPDATE ON assignments
WHEN NEW.acknowledged_at IS NOT OLD.acknowledged_at
    AND NOT (OLD.acknowledged_at IS NULL AND OLD.state IN ('FAILED', 'BLOCKED') AND NEW.state IS OLD.state
             AND typeof(NEW.acknowledged_at) = 'integer' AND NEW.acknowledged_at >= OLD.updated_at)
BEGIN SELECT RAISE(ABORT, 'fence: an acknowledgement is stamped once, on a FAILED or BLOCKED assignment, not before it ended'); END;
