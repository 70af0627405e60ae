-- Sovereign PostgreSQL schema, version 20: one mint carries one write (decision 0925). Applied migrations are never
-- edited.
--
-- Until version 19 a guard asked of a new lease, takeover, attempt or claim only that its token be the value its stripe
-- of the counter (the one counter, before 19) minted in the same transaction. Nothing stopped that transaction from
-- writing the same value a second time: mint once, insert the leases of two free actors of one stripe with it, and one
-- token was issued twice (contract §2: a token is never issued twice). Found by an attack on the stripes of version 19;
-- it was there since version 1. Now the write that carries a mint marks its stripe's row used (last_xact becomes the
-- negative of this transaction's id), every such guard asks for an unused mint, and the assignment's pointer moves only
-- to the attempt that used this transaction's mint. Only a mint marks a row as minted in this transaction: an epoch's
-- start and a halt leave last_xact at 0 (a halt stamped it until now, and a worker login that reported a ledger gone
-- backwards could then write an issued token again in the same transaction).

-- Version 19's counter guard with two changes. A USE: the write that carries a freshly minted token marks its
-- stripe's row used (last_xact from this transaction's id to its negative), so one mint cannot carry a second write;
-- every guard below asks for an unused mint of this transaction. And only a mint stamps the row as minted in this
-- transaction: an epoch's start and a halt leave last_xact at 0 (until version 19 they stamped it, and a worker that
-- halted the ledger could then write an issued token again in the same transaction).
CREATE OR REPLACE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        RAISE EXCEPTION 'fence: the fencing-token counter has one row per stripe; a row cannot be inserted again or replaced' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.last_token = OLD.last_token AND NEW.halted = OLD.halted AND OLD.last_xact = txid_current()
            AND NEW.last_xact = -txid_current() THEN
        RETURN NEW; -- a use of this transaction's mint, once
    END IF;
    IF NEW.last_token = OLD.last_token + 64 AND NEW.last_token / 1099511627776 = OLD.last_token / 1099511627776
            AND NOT OLD.halted AND NOT NEW.halted THEN
        NEW.last_xact := txid_current(); -- a mint
        RETURN NEW;
    ELSIF NEW.last_token > OLD.last_token
            AND EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind IN ('restore', 'bump')
                        AND h.from_token >= OLD.last_token AND h.to_token + NEW.id = NEW.last_token) THEN
        NEW.halted := false; -- a new epoch's start, as the history states it: it ends a halt
    ELSIF NEW.last_token = OLD.last_token AND NEW.halted AND NOT OLD.halted
            AND EXISTS (SELECT 1 FROM ledger_history h WHERE h.kind = 'backwards' AND h.from_token >= OLD.last_token) THEN
        NULL; -- the halt of a ledger gone backwards
    ELSIF OLD.halted AND NEW.last_token = OLD.last_token + 64 THEN
        RAISE EXCEPTION 'fence: the ledger went backwards (an engine had seen a token above its counter); it issues no token until sovereign fence bump starts a new epoch' USING ERRCODE = 'SV001';
    ELSIF NEW.last_token = OLD.last_token + 64 THEN
        RAISE EXCEPTION 'fence: the fencing-token counter has issued every token of its epoch; run sovereign fence bump to start the next' USING ERRCODE = 'SV001';
    ELSIF NEW.last_token <= OLD.last_token THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    ELSE
        RAISE EXCEPTION 'fence: the fencing-token counter moves only by one step per mint, or to the start of an epoch the ledger''s history records' USING ERRCODE = 'SV001';
    END IF;
    NEW.last_xact := 0; -- nothing minted: nothing to write with
    RETURN NEW;
END
$$;


-- Version 19's lease insert guard; the mint it carries is used.
CREATE OR REPLACE FUNCTION actor_leases_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    now_ms bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO tokens FROM token_counter WHERE id = sovereign_token_stripe(NEW.actor_id);
    IF NEW.token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'fence: a lease is granted with the token minted for it in the same transaction' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.change_seq IS DISTINCT FROM txid_current() THEN
        RAISE EXCEPTION 'a lease write must carry its own transaction''s id (txid_current()) in change_seq, its change marker' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.ttl_ms > 31536000000 THEN
        RAISE EXCEPTION 'fence: a lease''s TTL is at most 365 days' USING ERRCODE = 'SV001';
    END IF;
    now_ms := sovereign_now_ms();
    IF NEW.acquired_at > now_ms OR NEW.renewed_at > now_ms OR NEW.expires_at > NEW.renewed_at + NEW.ttl_ms THEN
        RAISE EXCEPTION 'fence: a lease''s times come from the server''s clock: granted and renewed no later than now, expiring no later than its renewal plus its TTL' USING ERRCODE = 'SV001';
    END IF;
    UPDATE token_counter SET last_xact = -txid_current() WHERE id = sovereign_token_stripe(NEW.actor_id);
    RETURN NEW;
END
$$;


-- Version 19's lease update guard; a takeover's mint is used.
CREATE OR REPLACE FUNCTION actor_leases_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    now_ms bigint;
    beat bigint;
BEGIN
    IF NEW.actor_id IS DISTINCT FROM OLD.actor_id THEN
        RAISE EXCEPTION 'fence: a lease row never changes its actor' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.change_seq IS DISTINCT FROM txid_current() THEN
        RAISE EXCEPTION 'a lease write must carry its own transaction''s id (txid_current()) in change_seq, its change marker' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.presented_change IS DISTINCT FROM NEW.change_seq OR NEW.presented_token IS DISTINCT FROM OLD.token THEN
        RAISE EXCEPTION 'fence: a lease is renewed or taken over only by a write that presents its current token' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.token IS NOT DISTINCT FROM OLD.token AND NEW.process_identity IS DISTINCT FROM OLD.process_identity THEN
        RAISE EXCEPTION 'fence: a renewal keeps the holder; another process needs a takeover with a new token' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.ttl_ms > 31536000000 THEN
        RAISE EXCEPTION 'fence: a lease''s TTL is at most 365 days' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.token IS DISTINCT FROM OLD.token THEN
        SELECT * INTO tokens FROM token_counter WHERE id = sovereign_token_stripe(NEW.actor_id);
        now_ms := sovereign_now_ms();
        IF NEW.token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current()
                OR NEW.token <= OLD.token OR OLD.expires_at > now_ms THEN
            RAISE EXCEPTION 'fence: a takeover needs an expired lease and the token minted for it in the same transaction' USING ERRCODE = 'SV001';
        END IF;
        IF OLD.attached THEN
            -- waits for a beat of the holder in flight, then reads the beat it committed
            SELECT p.heartbeat_at INTO beat FROM processes p WHERE p.identity = OLD.process_identity FOR SHARE;
            IF beat + OLD.ttl_ms > now_ms THEN
                RAISE EXCEPTION 'fence: a takeover of an attached lease waits until its holder''s heartbeat has expired too' USING ERRCODE = 'SV001';
            END IF;
        END IF;
        IF NEW.acquired_at > now_ms OR NEW.renewed_at > now_ms OR NEW.expires_at > NEW.renewed_at + NEW.ttl_ms THEN
            RAISE EXCEPTION 'fence: a lease''s times come from the server''s clock: granted and renewed no later than now, expiring no later than its renewal plus its TTL' USING ERRCODE = 'SV001';
        END IF;
        UPDATE token_counter SET last_xact = -txid_current() WHERE id = sovereign_token_stripe(NEW.actor_id);
    ELSIF OLD.attached AND NOT NEW.attached THEN
        SELECT p.heartbeat_at INTO beat FROM processes p WHERE p.identity = OLD.process_identity;
        IF NEW.ttl_ms IS DISTINCT FROM OLD.ttl_ms OR NEW.acquired_at IS DISTINCT FROM OLD.acquired_at
                OR NEW.renewed_at IS DISTINCT FROM greatest(OLD.renewed_at, coalesce(beat, OLD.renewed_at))
                OR NEW.expires_at IS DISTINCT FROM greatest(OLD.expires_at, coalesce(beat + OLD.ttl_ms, OLD.expires_at)) THEN
            RAISE EXCEPTION 'fence: a lease is detached from its holder''s session only as it stands: its renewal and expiry become the ones the session gave it, and nothing else changes' USING ERRCODE = 'SV001';
        END IF;
    ELSIF NEW.renewed_at IS DISTINCT FROM OLD.renewed_at OR NEW.expires_at IS DISTINCT FROM OLD.expires_at
            OR NEW.ttl_ms IS DISTINCT FROM OLD.ttl_ms OR NEW.acquired_at IS DISTINCT FROM OLD.acquired_at THEN
        now_ms := sovereign_now_ms();
        IF NEW.acquired_at IS DISTINCT FROM OLD.acquired_at OR NEW.renewed_at > greatest(OLD.renewed_at, now_ms)
                OR NEW.expires_at > NEW.renewed_at + NEW.ttl_ms THEN
            RAISE EXCEPTION 'fence: a lease''s times come from the server''s clock: granted and renewed no later than now, expiring no later than its renewal plus its TTL' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;


-- Version 19's attempt guard; the attempt's mint is used.
CREATE OR REPLACE FUNCTION execution_attempts_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
BEGIN
    IF EXISTS (SELECT 1 FROM execution_attempts WHERE id = NEW.id OR token = NEW.token) THEN
        RAISE EXCEPTION 'fence: an attempt is never inserted twice or replaced' USING ERRCODE = 'SV001';
    END IF;
    -- Wait for a concurrent takeover of the actor's lease to commit, and see its result.
    PERFORM 1 FROM actor_leases WHERE actor_id = NEW.actor_id FOR SHARE;
    SELECT * INTO tokens FROM token_counter WHERE id = sovereign_token_stripe(NEW.actor_id);
    IF NEW.state IS DISTINCT FROM 'ACTIVE' OR NEW.token IS DISTINCT FROM tokens.last_token
            OR tokens.last_xact <> txid_current()
            OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.actor_id AND l.token = NEW.lease_token
                           AND l.process_identity = NEW.process_identity)
            OR NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = NEW.assignment_id AND a.actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an attempt starts ACTIVE, with a freshly minted token, bound to the current lease of its actor held by its own process' USING ERRCODE = 'SV001';
    END IF;
    UPDATE token_counter SET last_xact = -txid_current() WHERE id = sovereign_token_stripe(NEW.actor_id);
    RETURN NEW;
END
$$;


-- Version 19's assignment guard: the pointer moves only to the attempt that used this transaction's mint.
CREATE OR REPLACE FUNCTION assignments_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
        SELECT * INTO tokens FROM token_counter WHERE id = sovereign_token_stripe(OLD.actor_id);
        IF (OLD.state = 'RUNNING' AND OLD.current_attempt IS NULL)
                OR EXISTS (SELECT 1 FROM execution_attempts live WHERE live.id = OLD.current_attempt AND live.state = 'ACTIVE')
                OR tokens.last_xact <> -txid_current()
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


-- Version 19's message guard; a new claim's mint is used.
CREATE OR REPLACE FUNCTION messages_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
        SELECT * INTO tokens FROM token_counter WHERE id = sovereign_token_stripe(NEW.recipient);
        IF NEW.claim_token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current()
                OR NEW.claim_actor IS DISTINCT FROM NEW.recipient
                OR (OLD.state = 'CLAIMED' AND OLD.claim_expires_at > sovereign_now_ms())
                OR NOT EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = NEW.recipient
                               AND l.process_identity = NEW.claim_process) THEN
            RAISE EXCEPTION 'fence: a claim is granted with a freshly minted token, to a process hosting the recipient, and only over an expired claim' USING ERRCODE = 'SV001';
        END IF;
        UPDATE token_counter SET last_xact = -txid_current() WHERE id = sovereign_token_stripe(NEW.recipient);
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

DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['token_counter_guard()', 'actor_leases_guard_insert()', 'actor_leases_guard_update()',
            'execution_attempts_guard_insert()', 'assignments_guard_update()', 'messages_guard_update()'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f, current_schema());
    END LOOP;
END
$$;
