-- Sovereign schema, version 3: the database itself enforces the fence (SPEC 14). Applied migrations
-- are never edited. See docs/decisions/0006-the-database-enforces-the-fence.md.
--
-- The engine's compare-and-set statements already carry the fence in their WHERE clauses. The
-- triggers below refuse what a badly behaved client writes instead: a bug, a fault switch, a
-- hand-typed statement in the sqlite3 shell. Three rules shape them:
--   * a guarded write must STATE what it acts for (the attempt that ends an assignment, the token a
--     lease renewal presents, the claim token a message finish presents) in a column of the row it
--     writes, and the trigger compares that with the row's OLD values and the actor's current lease;
--     a write that states nothing is refused;
--   * every guard has a BEFORE INSERT twin, so REPLACE / INSERT OR REPLACE / upserts cannot remove a
--     guarded row behind the back of its DELETE trigger (REPLACE's implicit delete fires no trigger
--     unless the connection set recursive_triggers, and other clients may not have);
--   * keys never change, so UPDATE OR REPLACE cannot delete a guarded row by colliding with it.
-- Time is the writer's: where a rule needs "now" it uses the time the write itself stamps
-- (updated_at, acquired_at). Safety rests on tokens and pointers, which the database checks; time
-- only decides when a takeover is allowed (SPEC 3).
-- Every message raised by a fence guard starts with 'fence:' so the engine can tell it apart.

-- ---- the ledger's mark: is this file a lab sandbox? -------------------------------------------
-- One row, written in the same transaction as this migration (by the migrator) and never again.
-- lab_sandbox = 1 only when the file was created for the lab (nothing in it yet): the one kind of
-- ledger on which the lab's broken-fence mode may switch the terminal fence off.
CREATE TABLE ledger_mark (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    lab_sandbox INTEGER NOT NULL CHECK (lab_sandbox IN (0, 1)),
    marked_at   INTEGER NOT NULL
);
CREATE TRIGGER ledger_mark_written_once BEFORE INSERT ON ledger_mark
WHEN EXISTS (SELECT 1 FROM ledger_mark)
BEGIN SELECT RAISE(ABORT, 'fence: the ledger mark is written once, when the ledger is created'); END;
CREATE TRIGGER ledger_mark_sandbox_only_when_empty BEFORE INSERT ON ledger_mark
WHEN NEW.lab_sandbox = 1 AND ((SELECT last_token FROM token_counter WHERE id = 1) > 0
    OR EXISTS (SELECT 1 FROM actors) OR EXISTS (SELECT 1 FROM processes) OR EXISTS (SELECT 1 FROM fence_events))
BEGIN SELECT RAISE(ABORT, 'fence: only a new, empty ledger can be marked as a lab sandbox'); END;
CREATE TRIGGER ledger_mark_never_updated BEFORE UPDATE ON ledger_mark
BEGIN SELECT RAISE(ABORT, 'fence: the ledger mark cannot change'); END;
CREATE TRIGGER ledger_mark_never_deleted BEFORE DELETE ON ledger_mark
BEGIN SELECT RAISE(ABORT, 'fence: the ledger mark cannot change'); END;

-- ---- counters: one row each, never inserted again ----------------------------------------------
CREATE TRIGGER token_counter_single_row BEFORE INSERT ON token_counter
WHEN EXISTS (SELECT 1 FROM token_counter)
BEGIN SELECT RAISE(ABORT, 'fence: the fencing-token counter has one row; it cannot be inserted again or replaced'); END;
CREATE TRIGGER lease_change_counter_single_row BEFORE INSERT ON lease_change_counter
WHEN EXISTS (SELECT 1 FROM lease_change_counter)
BEGIN SELECT RAISE(ABORT, 'fence: the lease change counter has one row; it cannot be inserted again or replaced'); END;

-- ---- the journal and the supervisor's ticks: append-only -----------------------------------------
-- An insert with an explicit seq may neither collide with a row (REPLACE) nor land before the last
-- one (history written into the past). A BEFORE trigger sees the -1 SQLite puts in NEW.seq for an
-- automatic key, so the "not before the last" test runs AFTER the insert, on the real key.
CREATE TRIGGER fence_events_never_replaced BEFORE INSERT ON fence_events
WHEN EXISTS (SELECT 1 FROM fence_events WHERE seq = NEW.seq)
BEGIN SELECT RAISE(ABORT, 'fence: the fence journal is append-only'); END;
CREATE TRIGGER fence_events_only_appended AFTER INSERT ON fence_events
WHEN NEW.seq < (SELECT max(seq) FROM fence_events)
BEGIN SELECT RAISE(ABORT, 'fence: the fence journal is append-only'); END;
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

-- ---- actor leases --------------------------------------------------------------------------------
-- A renewal or a takeover states the token it presents (presented_token) together with the change
-- marker of its own write (presented_change = change_seq), so a write that does not state a token is
-- refused even when an earlier write left a matching one in the row.
ALTER TABLE actor_leases ADD COLUMN presented_token INTEGER;
ALTER TABLE actor_leases ADD COLUMN presented_change INTEGER;
CREATE TRIGGER actor_leases_never_replaced BEFORE INSERT ON actor_leases
WHEN EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id)
BEGIN SELECT RAISE(ABORT, 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced'); END;
CREATE TRIGGER actor_leases_granted_with_a_fresh_token BEFORE INSERT ON actor_leases
WHEN NEW.token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'fence: a lease is granted with the token minted for it in the same transaction'); END;
-- A release states its token too: the same transaction first writes the row presenting the token
-- (presented_change = the counter's current value), then deletes it. A bare DELETE — a buggy client,
-- or a hand-typed "take over" by DELETE + INSERT — is refused.
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

-- ---- execution attempts --------------------------------------------------------------------------
CREATE TRIGGER attempts_never_replaced BEFORE INSERT ON execution_attempts
WHEN EXISTS (SELECT 1 FROM execution_attempts WHERE id = NEW.id OR token = NEW.token)
BEGIN SELECT RAISE(ABORT, 'fence: an attempt is never inserted twice or replaced'); END;
CREATE TRIGGER attempts_start_under_the_current_lease BEFORE INSERT ON execution_attempts
WHEN NEW.state IS NOT 'ACTIVE' OR NEW.token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
    OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.actor_id AND l.token = NEW.lease_token
                   AND l.process_identity = NEW.process_identity)
    OR NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = NEW.assignment_id AND a.actor_id = NEW.actor_id)
BEGIN SELECT RAISE(ABORT, 'fence: an attempt starts ACTIVE, with a freshly minted token, bound to the current lease of its actor held by its own process'); END;
CREATE TRIGGER attempts_keep_their_identity BEFORE UPDATE ON execution_attempts
WHEN NEW.id IS NOT OLD.id OR NEW.token IS NOT OLD.token OR NEW.lease_token IS NOT OLD.lease_token
    OR NEW.assignment_id IS NOT OLD.assignment_id OR NEW.actor_id IS NOT OLD.actor_id
    OR NEW.process_identity IS NOT OLD.process_identity OR NEW.started_at IS NOT OLD.started_at
BEGIN SELECT RAISE(ABORT, 'fence: an attempt never changes its id, token, lease token, assignment, actor or process'); END;
CREATE TRIGGER attempts_ended_are_final BEFORE UPDATE ON execution_attempts
WHEN OLD.state IS NOT 'ACTIVE'
BEGIN SELECT RAISE(ABORT, 'fence: an ended attempt is final'); END;
CREATE TRIGGER attempts_never_deleted BEFORE DELETE ON execution_attempts
BEGIN SELECT RAISE(ABORT, 'fence: attempts are never deleted'); END;

-- ---- assignments: the terminal fence -------------------------------------------------------------
-- The write that ends an assignment states which attempt ends it (ended_by_attempt) and how
-- (ended_via): 'attempt' — its own current attempt, whose bound lease token is still the actor's
-- current lease held by the attempt's process; 'recovery' — the supervisor, for an attempt that has
-- expired at the write's own time and is still current (or whose fence an operator stole, with no
-- live attempt left), and only to FAILED: a recovery never guesses success (SPEC 10). Only on a lab sandbox (ledger_mark) is the terminal fence left to the client,
-- so the lab can show what its absence costs.
ALTER TABLE assignments ADD COLUMN ended_by_attempt TEXT REFERENCES execution_attempts (id);
ALTER TABLE assignments ADD COLUMN ended_via TEXT CHECK (ended_via IS NULL OR ended_via IN ('attempt', 'recovery'));
CREATE TRIGGER assignments_never_replaced BEFORE INSERT ON assignments
WHEN EXISTS (SELECT 1 FROM assignments WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'fence: an assignment is never inserted twice or replaced'); END;
CREATE TRIGGER assignments_start_as_created BEFORE INSERT ON assignments
WHEN NEW.state IS NOT 'CREATED' OR NEW.current_attempt IS NOT NULL OR NEW.ended_by_attempt IS NOT NULL
    OR NEW.ended_via IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'fence: an assignment is created in state CREATED, with no attempt'); END;
CREATE TRIGGER assignments_never_deleted BEFORE DELETE ON assignments
BEGIN SELECT RAISE(ABORT, 'fence: assignments are never deleted'); END;
CREATE TRIGGER assignments_keep_their_identity BEFORE UPDATE ON assignments
WHEN NEW.id IS NOT OLD.id OR NEW.actor_id IS NOT OLD.actor_id OR NEW.provider_spec IS NOT OLD.provider_spec
    OR NEW.workspace_policy IS NOT OLD.workspace_policy OR NEW.retry_of IS NOT OLD.retry_of
    OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'fence: an assignment never changes its id, actor, provider, workspace policy or origin'); END;
CREATE TRIGGER assignments_move_forward_only BEFORE UPDATE ON assignments
WHEN NEW.state IS NOT OLD.state AND NOT ((OLD.state = 'CREATED' AND NEW.state = 'RUNNING')
    OR (OLD.state = 'RUNNING' AND NEW.state IN ('COMPLETED', 'BLOCKED', 'FAILED')))
BEGIN SELECT RAISE(ABORT, 'fence: an assignment moves only CREATED -> RUNNING -> COMPLETED, BLOCKED or FAILED'); END;
CREATE TRIGGER assignments_ended_are_final BEFORE UPDATE ON assignments
WHEN OLD.state IN ('COMPLETED', 'BLOCKED', 'FAILED') AND (NEW.current_attempt IS NOT NULL
    OR NEW.ended_by_attempt IS NOT OLD.ended_by_attempt OR NEW.ended_via IS NOT OLD.ended_via
    OR (OLD.acknowledged_at IS NOT NULL AND NEW.acknowledged_at IS NOT OLD.acknowledged_at))
BEGIN SELECT RAISE(ABORT, 'fence: an ended assignment is final; only an acknowledgement can be added'); END;
-- A stolen fence (RUNNING with no pointer) is never pointed again: only the supervisor ends it. A live
-- attempt is never pushed aside: the engine supersedes an expired one (state SUPERSEDED) first.
CREATE TRIGGER assignments_point_only_at_a_fresh_attempt BEFORE UPDATE ON assignments
WHEN NEW.current_attempt IS NOT NULL AND NEW.current_attempt IS NOT OLD.current_attempt
    AND ((OLD.state = 'RUNNING' AND OLD.current_attempt IS NULL)
         OR EXISTS (SELECT 1 FROM execution_attempts live WHERE live.id = OLD.current_attempt
                    AND live.state = 'ACTIVE')
         OR NOT EXISTS (SELECT 1 FROM execution_attempts t WHERE t.id = NEW.current_attempt AND t.assignment_id = OLD.id
                        AND t.state = 'ACTIVE' AND t.token = (SELECT last_token FROM token_counter WHERE id = 1)))
BEGIN SELECT RAISE(ABORT, 'fence: current_attempt can only point at the ACTIVE attempt of this assignment just started with a freshly minted token, after the previous one ended, and never again once an operator stole the fence'); END;
CREATE TRIGGER assignments_end_only_through_their_fence BEFORE UPDATE ON assignments
WHEN OLD.state = 'RUNNING' AND NEW.state IN ('COMPLETED', 'BLOCKED', 'FAILED')
    AND COALESCE((SELECT lab_sandbox FROM ledger_mark WHERE id = 1), 0) = 0
    AND NOT (NEW.ended_by_attempt IS NOT NULL AND NEW.current_attempt IS NULL
        AND EXISTS (SELECT 1 FROM execution_attempts t WHERE t.id = NEW.ended_by_attempt AND t.assignment_id = OLD.id
            AND t.state = 'ACTIVE'
            AND ((NEW.ended_via = 'attempt' AND t.id IS OLD.current_attempt
                  AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = t.actor_id AND l.token = t.lease_token
                              AND l.process_identity = t.process_identity))
              OR (NEW.ended_via = 'recovery' AND NEW.state = 'FAILED' AND t.expires_at <= NEW.updated_at
                  AND (t.id IS OLD.current_attempt
                       OR (OLD.current_attempt IS NULL AND NOT EXISTS (SELECT 1 FROM execution_attempts live
                           WHERE live.assignment_id = OLD.id AND live.state = 'ACTIVE'
                           AND live.expires_at > NEW.updated_at)))))))
BEGIN SELECT RAISE(ABORT, 'fence: an assignment ends only by its current attempt while the actor lease still carries that attempt''s bound token and process, or by a recovery of its expired attempt'); END;

-- ---- receipts: only from the attempt that ended the assignment -----------------------------------
CREATE TRIGGER receipts_never_replaced BEFORE INSERT ON receipts
WHEN EXISTS (SELECT 1 FROM receipts WHERE id = NEW.id OR assignment_id = NEW.assignment_id
             OR attempt_id = NEW.attempt_id)
BEGIN SELECT RAISE(ABORT, 'fence: receipts are immutable; an assignment has at most one'); END;
CREATE TRIGGER receipts_only_from_the_ending_attempt BEFORE INSERT ON receipts
WHEN NOT EXISTS (SELECT 1 FROM assignments a JOIN execution_attempts t ON t.id = a.ended_by_attempt
                 WHERE a.id = NEW.assignment_id AND a.state IN ('COMPLETED', 'BLOCKED', 'FAILED')
                 AND a.ended_by_attempt IS NEW.attempt_id AND t.token IS NEW.attempt_token)
BEGIN SELECT RAISE(ABORT, 'fence: a receipt names the attempt whose fenced terminal write ended its assignment, with that attempt''s token'); END;
-- A recovery's receipt says what a recovery knows: failed, worker_lost, outcome unknown.
CREATE TRIGGER receipts_of_a_recovery_never_guess_success BEFORE INSERT ON receipts
WHEN (SELECT ended_via FROM assignments WHERE id = NEW.assignment_id) IS 'recovery'
    AND (NEW.status IS NOT 'failed' OR NEW.failure_category IS NOT 'worker_lost' OR NEW.outcome_known IS NOT 0)
BEGIN SELECT RAISE(ABORT, 'fence: a recovery''s receipt is failed, worker_lost, outcome unknown: a recovery never guesses success'); END;

-- ---- messages --------------------------------------------------------------------------------------
-- A finish (complete, dead-letter, re-queue by dead-letter) states the claim token it presents in
-- finished_with; claim tokens are fresh for every claim, so a write that states nothing (NULL, or a
-- token left by an earlier claim) is refused.
ALTER TABLE messages ADD COLUMN finished_with INTEGER;
CREATE TRIGGER messages_never_replaced BEFORE INSERT ON messages
WHEN EXISTS (SELECT 1 FROM messages WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'fence: a message is never inserted twice or replaced'); END;
CREATE TRIGGER messages_sent_as_new BEFORE INSERT ON messages
WHEN NEW.state IS NOT 'NEW'
BEGIN SELECT RAISE(ABORT, 'fence: a message is sent in state NEW'); END;
CREATE TRIGGER messages_never_deleted BEFORE DELETE ON messages
BEGIN SELECT RAISE(ABORT, 'fence: messages are never deleted'); END;
CREATE TRIGGER messages_keep_their_identity BEFORE UPDATE ON messages
WHEN NEW.id IS NOT OLD.id OR NEW.recipient IS NOT OLD.recipient OR NEW.sender IS NOT OLD.sender
    OR NEW.subject IS NOT OLD.subject OR NEW.body IS NOT OLD.body OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'fence: a message never changes its id, sender, recipient, subject or body'); END;
CREATE TRIGGER messages_move_forward_only BEFORE UPDATE ON messages
WHEN NEW.state IS NOT OLD.state AND NOT ((OLD.state = 'NEW' AND NEW.state = 'CLAIMED')
    OR (OLD.state = 'CLAIMED' AND NEW.state IN ('NEW', 'DONE', 'DEAD')))
BEGIN SELECT RAISE(ABORT, 'fence: a message moves only NEW -> CLAIMED -> DONE, DEAD or NEW again'); END;
CREATE TRIGGER messages_claimed_with_a_fresh_token BEFORE UPDATE ON messages
WHEN NEW.state = 'CLAIMED' AND NEW.claim_token IS NOT OLD.claim_token
    AND (NEW.claim_token IS NOT (SELECT last_token FROM token_counter WHERE id = 1)
         OR NEW.claim_actor IS NOT NEW.recipient
         OR (OLD.state = 'CLAIMED' AND OLD.claim_expires_at > NEW.updated_at)
         OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.recipient
                        AND l.process_identity = NEW.claim_process))
BEGIN SELECT RAISE(ABORT, 'fence: a claim is granted with a freshly minted token, to a process hosting the recipient, and only over an expired claim'); END;
CREATE TRIGGER messages_reclaimed_only_by_the_holder BEFORE UPDATE ON messages
WHEN OLD.state = 'CLAIMED' AND NEW.state = 'CLAIMED' AND NEW.claim_token IS OLD.claim_token
    AND (NEW.claim_process IS NOT OLD.claim_process OR NEW.claim_actor IS NOT OLD.claim_actor)
BEGIN SELECT RAISE(ABORT, 'fence: a claim keeps its token only for the process that holds it'); END;
CREATE TRIGGER messages_finished_only_with_the_current_claim BEFORE UPDATE ON messages
WHEN OLD.state = 'CLAIMED' AND (NEW.state IN ('DONE', 'DEAD')
        OR (NEW.state = 'NEW' AND NEW.retry_count IS NOT OLD.retry_count))
    AND (NEW.finished_with IS NOT OLD.claim_token
         OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = OLD.claim_actor
                        AND l.process_identity = OLD.claim_process))
BEGIN SELECT RAISE(ABORT, 'fence: a message is finished only with its current claim token, by the claiming process while it still hosts the actor'); END;
CREATE TRIGGER messages_swept_only_when_expired BEFORE UPDATE ON messages
WHEN OLD.state = 'CLAIMED' AND NEW.state = 'NEW' AND NEW.retry_count IS OLD.retry_count
    AND OLD.claim_expires_at > NEW.updated_at
BEGIN SELECT RAISE(ABORT, 'fence: a live claim is not swept'); END;
