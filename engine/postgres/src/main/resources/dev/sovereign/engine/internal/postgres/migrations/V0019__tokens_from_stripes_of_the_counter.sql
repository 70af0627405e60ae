-- Sovereign PostgreSQL schema, version 19: tokens minted from 64 stripes of the counter, each an actor's by a hash of
-- its id (issue 28; decision 0924, step 2 of decision 0922 done another way). Applied migrations are never edited.
--
-- Until version 18 every grant, attempt and claim of every connection minted from the one token_counter row and held
-- it until its COMMIT: they queued one behind the other through their fsyncs, and 16 connections granted no faster
-- than one (decision 0911). The contract asks tokens unique forever and increasing per resource in commit order (an
-- actor's lease, an assignment's attempts, a message's claims), not one order across resources. So the counter has
-- 64 rows now, ids 0 to 63; an actor's resources mint from the row sovereign_token_stripe(actor) names (the first
-- byte of the SHA-256 of its id, modulo 64: the same on every server and version, as it must be for ever), and each
-- row steps by 64 from its own id: stripe s issues only tokens equal to s modulo 64, so no two stripes issue one token.
-- Every rule of the one row holds per row, unchanged in kind: a mint is one step (64), within its epoch, stamped with
-- the transaction that took it (last_xact); a token is written only with the value its stripe minted in the same
-- transaction; the row stays locked to COMMIT, so an actor's tokens still increase in commit order. An attempt mints
-- on its assignment's actor's stripe, a claim on its recipient's. "The counter" as one number (the sanity checks, the
-- history, the console) is the greatest of the rows: sovereign_last_token().
--
-- The stripes start from the one counter's value L: each the highest number at or below L on its own residue, and
-- never below its epoch's start, so every stripe's next token is above every token issued before (the row whose
-- residue L has keeps L). A new epoch (restore, fence bump) sets every stripe to the epoch's start plus its id; a
-- ledger gone backwards halts every stripe.

-- ---- the stripe of an actor, and the counter's highest token ---------------------------------------------------
CREATE FUNCTION sovereign_token_stripe(p_actor text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT get_byte(sha256(convert_to(p_actor, 'UTF8')), 0) % 64
$$;

CREATE FUNCTION sovereign_last_token() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT max(last_token) FROM token_counter
$$;

-- ---- the counter's rows: one per stripe -------------------------------------------------------------------------
-- Version 10's guard, per row: a mint is one step of 64 within the row's epoch; a new epoch's start is the epoch the
-- history records plus the row's id; a halt as before. A row is never inserted (the 63 new ones below are written
-- with the guard off, inside this migration, as the copy writes a new ledger's counter).
CREATE OR REPLACE FUNCTION token_counter_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        RAISE EXCEPTION 'fence: the fencing-token counter has one row per stripe; a row cannot be inserted again or replaced' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.id <> OLD.id THEN
        RAISE EXCEPTION 'the fencing-token counter only increases' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.last_token = OLD.last_token + 64 AND NEW.last_token / 1099511627776 = OLD.last_token / 1099511627776
            AND NOT OLD.halted AND NOT NEW.halted THEN
        NULL; -- a mint
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
    NEW.last_xact := txid_current();
    RETURN NEW;
END
$$;

ALTER TABLE token_counter DROP CONSTRAINT token_counter_id_check;
ALTER TABLE token_counter ADD CONSTRAINT token_counter_id_check CHECK (id BETWEEN 0 AND 63);
ALTER TABLE token_counter DISABLE TRIGGER token_counter_guard;
INSERT INTO token_counter (id, last_token, last_xact, halted)
    SELECT s, 0, 0, c.halted FROM generate_series(0, 63) s, token_counter c WHERE c.id = 1 AND s <> 1;
UPDATE token_counter SET last_token = greatest(
        l.last - ((((l.last - token_counter.id) % 64) + 64) % 64),
        (l.last / 1099511627776) * 1099511627776 + token_counter.id),
    last_xact = 0
    FROM (SELECT last_token AS last FROM token_counter WHERE id = 1) l;
ALTER TABLE token_counter ENABLE ALWAYS TRIGGER token_counter_guard;

-- Version 18's insert guard; the token minted for it on its actor's stripe.
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
    RETURN NEW;
END
$$;

-- Version 18's update guard; a takeover's token minted on the actor's stripe.
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

-- Version 1's attempt guard; the attempt's token minted on its actor's stripe.
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
    RETURN NEW;
END
$$;

-- Version 1's assignment guard; the new attempt's token minted on the assignment's actor's stripe.
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

-- Version 1's message guard; a claim's token minted on its recipient's stripe.
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

-- Version 1's mark guard; a ledger that minted nothing has every stripe at its own number.
CREATE OR REPLACE FUNCTION ledger_mark_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_mark) THEN
        RAISE EXCEPTION 'fence: the ledger mark is written once, when the ledger is created' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.lab_sandbox = 1 AND (EXISTS (SELECT 1 FROM token_counter WHERE last_token <> id)
            OR EXISTS (SELECT 1 FROM actors) OR EXISTS (SELECT 1 FROM processes) OR EXISTS (SELECT 1 FROM fence_events)) THEN
        RAISE EXCEPTION 'fence: only a new, empty ledger can be marked as a lab sandbox' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;

-- Version 18's grant, minting on the actor's stripe.
CREATE OR REPLACE FUNCTION sovereign_lease_grant(p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    minted bigint;
    granted actor_leases%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 OR NOT EXISTS (SELECT 1 FROM actors WHERE id = p_actor) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM token_counter WHERE id = sovereign_token_stripe(p_actor) FOR UPDATE;
    -- a new snapshot: a grant that held the stripe before this one has committed its row by now
    PERFORM 1 FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF FOUND THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE token_counter SET last_token = last_token + 64 WHERE id = sovereign_token_stripe(p_actor)
        RETURNING last_token INTO minted;
    INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at, renewals,
                              renewal_journalled_at, change_seq, attached)
        VALUES (p_actor, p_process, minted, p_ttl_ms, now_ms, now_ms, now_ms + p_ttl_ms, 0, now_ms, txid_current(), true)
        RETURNING * INTO granted;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_ACQUIRED', 'actor', p_actor, p_actor, p_process, minted, 'ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT granted;
END
$$;

-- Version 18's renewal; "a token the counter issued" is the greatest of the stripes.
CREATE OR REPLACE FUNCTION sovereign_lease_renew(p_actor text, p_process text, p_token bigint, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    held actor_leases%ROWTYPE;
    renewed actor_leases%ROWTYPE;
BEGIN
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > sovereign_last_token()
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE actor_leases SET renewed_at = now_ms,
            ttl_ms = CASE WHEN p_ttl_ms > 0 THEN p_ttl_ms ELSE ttl_ms END,
            expires_at = now_ms + CASE WHEN p_ttl_ms > 0 THEN p_ttl_ms ELSE ttl_ms END,
            renewals = renewals + 1, renewal_journalled_at = now_ms, change_seq = txid_current(),
            presented_token = p_token, presented_change = txid_current(), attached = true
        WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token
        RETURNING * INTO renewed;
    -- the detail as Java's Instant.toString() writes it: milliseconds only when there are some
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_RENEWED', 'actor', p_actor, p_actor, p_process, p_token, 'renewed until '
            || to_char(to_timestamp((renewed.expires_at - renewed.expires_at % 1000) / 1000) AT TIME ZONE 'UTC',
                       'YYYY-MM-DD"T"HH24:MI:SS')
            || CASE WHEN renewed.expires_at % 1000 = 0 THEN '' ELSE '.' || lpad((renewed.expires_at % 1000)::text, 3, '0') END
            || 'Z');
    RETURN NEXT renewed;
END
$$;

-- Version 18's release; the same.
CREATE OR REPLACE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    held actor_leases%ROWTYPE;
BEGIN
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > sovereign_last_token()
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN false;
    END IF;
    -- the release states its token in the row first (a bare DELETE is refused), then deletes it
    UPDATE actor_leases SET change_seq = txid_current(), presented_token = p_token, presented_change = txid_current()
        WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token;
    DELETE FROM actor_leases WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)
        VALUES (sovereign_now_ms(), 'LEASE_RELEASED', 'actor', p_actor, p_actor, p_process, p_token);
    RETURN true;
END
$$;

-- Version 15's beat; the counter it returns and checks against is the greatest of the stripes.
CREATE OR REPLACE FUNCTION sovereign_beat(p_process text, OUT beat_at bigint, OUT last_token bigint, OUT attached bigint, OUT token_residues numeric) RETURNS record LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    UPDATE processes SET heartbeat_at = sovereign_now_ms() WHERE identity = p_process
        RETURNING processes.heartbeat_at INTO beat_at;
    last_token := sovereign_last_token();
    -- the session check (LeaseSql.checkColumns over JdbcHeartbeat's session rows, SessionCheck.P1): the count and
    -- the sum of the residues of the tokens, over this session's attached rows that are sane
    SELECT count(*), coalesce(sum(l.token % 4294967291), 0) INTO attached, token_residues
        FROM actor_leases l
        WHERE l.process_identity = p_process AND l.attached
            AND l.token > 0 AND l.token <= sovereign_last_token()
            AND l.ttl_ms > 0 AND l.expires_at <= l.renewed_at + l.ttl_ms;
END
$$;

-- Version 16's claim, locking and minting on the recipient's stripe.
CREATE OR REPLACE FUNCTION sovereign_claim(p_message text, p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF messages LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    seen messages%ROWTYPE;
    held actor_leases%ROWTYPE;
    last_issued bigint;
    beat bigint;
    now_ms bigint;
    minted bigint;
    claimed messages%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM messages WHERE id = p_message;
    IF NOT FOUND OR seen.state <> 'NEW' OR seen.recipient IS DISTINCT FROM p_actor THEN
        RETURN;
    END IF;
    PERFORM 1 FROM token_counter WHERE id = sovereign_token_stripe(p_actor) FOR UPDATE;
    last_issued := sovereign_last_token();
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR SHARE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM messages WHERE id = p_message FOR UPDATE;
    IF NOT FOUND OR seen.state <> 'NEW' OR seen.recipient IS DISTINCT FROM p_actor THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    IF held.process_identity IS DISTINCT FROM p_process
            OR held.token <= 0 OR held.token > last_issued
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN;
    END IF;
    IF held.attached THEN
        SELECT p.heartbeat_at INTO beat FROM processes p WHERE p.identity = held.process_identity;
    END IF;
    IF (CASE WHEN held.attached THEN greatest(held.expires_at, coalesce(beat + held.ttl_ms, held.expires_at))
             ELSE held.expires_at END) <= now_ms THEN
        RETURN;
    END IF;
    UPDATE token_counter SET last_token = last_token + 64 WHERE id = sovereign_token_stripe(p_actor)
        RETURNING last_token INTO minted;
    UPDATE messages SET state = 'CLAIMED', claim_actor = p_actor, claim_process = p_process, claim_token = minted,
            claim_expires_at = now_ms + p_ttl_ms, updated_at = now_ms
        WHERE id = p_message AND state = 'NEW'
        RETURNING * INTO claimed;
    -- the detail as Java's Instant.toString() writes it: milliseconds only when there are some
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'CLAIM_GRANTED', 'message', p_message, p_actor, p_process, minted, 'claimed until '
            || to_char(to_timestamp((claimed.claim_expires_at - claimed.claim_expires_at % 1000) / 1000) AT TIME ZONE 'UTC',
                       'YYYY-MM-DD"T"HH24:MI:SS')
            || CASE WHEN claimed.claim_expires_at % 1000 = 0 THEN ''
                    ELSE '.' || lpad((claimed.claim_expires_at % 1000)::text, 3, '0') END
            || 'Z');
    RETURN NEXT claimed;
END
$$;

-- Version 16's completion.
CREATE OR REPLACE FUNCTION sovereign_message_complete(p_message text, p_token bigint, p_process text) RETURNS SETOF messages LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    seen messages%ROWTYPE;
    held actor_leases%ROWTYPE;
    now_ms bigint;
    done messages%ROWTYPE;
BEGIN
    SELECT * INTO seen FROM messages WHERE id = p_message;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO held FROM actor_leases WHERE actor_id = seen.recipient FOR SHARE;
    IF FOUND AND (held.token <= 0 OR held.token > sovereign_last_token()
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM messages WHERE id = p_message FOR UPDATE;
    now_ms := sovereign_now_ms();
    -- JdbcMailbox.FINISH_GUARD, the epoch span 2^40 (FencingTokens.EPOCH_SPAN)
    UPDATE messages SET state = 'DONE', updated_at = now_ms, finished_with = p_token
        WHERE id = p_message AND state = 'CLAIMED' AND claim_token = p_token AND claim_process = p_process
            AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = messages.claim_actor
                        AND l.process_identity = p_process
                        AND l.token / 1099511627776 <= messages.claim_token / 1099511627776)
        RETURNING * INTO done;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'MESSAGE_DONE', 'message', p_message, done.claim_actor, p_process, p_token, 'completed');
    RETURN NEXT done;
END
$$;

-- Version 17's start, locking and minting on the assignment's actor's stripe.
CREATE OR REPLACE FUNCTION sovereign_attempt_start(p_assignment text, p_attempt text, p_process text, p_lease_token bigint, p_ttl_ms bigint) RETURNS SETOF execution_attempts LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    seen assignments%ROWTYPE;
    held actor_leases%ROWTYPE;
    last_issued bigint;
    beat bigint;
    now_ms bigint;
    minted bigint;
    started execution_attempts%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM assignments WHERE id = p_assignment;
    IF NOT FOUND OR seen.state <> 'CREATED' OR seen.current_attempt IS NOT NULL THEN
        RETURN;
    END IF;
    PERFORM 1 FROM token_counter WHERE id = sovereign_token_stripe(seen.actor_id) FOR UPDATE;
    last_issued := sovereign_last_token();
    SELECT * INTO held FROM actor_leases WHERE actor_id = seen.actor_id FOR SHARE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM assignments WHERE id = p_assignment FOR UPDATE;
    IF NOT FOUND OR seen.state <> 'CREATED' OR seen.current_attempt IS NOT NULL THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    IF held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_lease_token
            OR held.token <= 0 OR held.token > last_issued
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN;
    END IF;
    IF held.attached THEN
        SELECT p.heartbeat_at INTO beat FROM processes p WHERE p.identity = held.process_identity;
    END IF;
    IF (CASE WHEN held.attached THEN greatest(held.expires_at, coalesce(beat + held.ttl_ms, held.expires_at))
             ELSE held.expires_at END) <= now_ms THEN
        RETURN;
    END IF;
    UPDATE token_counter SET last_token = last_token + 64 WHERE id = sovereign_token_stripe(seen.actor_id)
        RETURNING last_token INTO minted;
    INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token, state, ttl_ms,
                                    started_at, renewed_at, expires_at)
        VALUES (p_attempt, seen.id, seen.actor_id, p_process, minted, p_lease_token, 'ACTIVE', p_ttl_ms,
                now_ms, now_ms, now_ms + p_ttl_ms)
        RETURNING * INTO started;
    UPDATE assignments SET state = 'RUNNING', current_attempt = p_attempt, updated_at = now_ms
        WHERE id = seen.id AND state = 'CREATED' AND current_attempt IS NULL;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'ATTEMPT_STARTED', 'attempt', p_attempt, seen.actor_id, p_process, minted,
                'assignment ' || seen.id || '; bound to actor lease token ' || p_lease_token || '; ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT started;
END
$$;

-- Version 17's terminal write.
CREATE OR REPLACE FUNCTION sovereign_attempt_finish(p_attempt text, p_process text, p_status text, p_failure_category text, p_outcome_known integer, p_summary text, OUT ended assignments, OUT done execution_attempts, OUT receipt receipts) RETURNS SETOF record LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    attempt execution_attempts%ROWTYPE;
    held actor_leases%ROWTYPE;
    terminal text;
    now_ms bigint;
BEGIN
    -- RunRules.terminalState
    terminal := CASE p_status WHEN 'completed' THEN 'COMPLETED' WHEN 'blocked' THEN 'BLOCKED' WHEN 'failed' THEN 'FAILED' END;
    IF terminal IS NULL OR p_outcome_known IS NULL THEN
        RETURN;
    END IF;
    SELECT * INTO attempt FROM execution_attempts t WHERE t.id = p_attempt;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO held FROM actor_leases l WHERE l.actor_id = attempt.actor_id FOR SHARE;
    IF FOUND AND (held.token <= 0 OR held.token > sovereign_last_token()
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM execution_attempts t WHERE t.id = p_attempt FOR UPDATE;
    now_ms := sovereign_now_ms();
    UPDATE assignments a SET state = terminal, current_attempt = NULL, updated_at = now_ms,
            ended_by_attempt = p_attempt, ended_via = 'attempt'
        WHERE a.id = attempt.assignment_id AND a.state = 'RUNNING' AND a.current_attempt = p_attempt
            AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = a.actor_id
                        AND l.token = attempt.lease_token AND l.process_identity = p_process)
        RETURNING a.* INTO ended;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status, failure_category,
                          outcome_known, summary, created_at)
        VALUES (attempt.assignment_id, p_attempt, attempt.token, attempt.process_identity, p_status,
                p_failure_category, p_outcome_known, p_summary, now_ms)
        RETURNING * INTO receipt;
    UPDATE execution_attempts t SET state = 'DONE', ended_at = now_ms WHERE t.id = p_attempt AND t.state = 'ACTIVE'
        RETURNING t.* INTO done;
    IF NOT FOUND THEN
        -- as the full path's changedUnderLock: the whole transaction runs again (PgDatabase.write)
        RAISE EXCEPTION 'attempt % changed under its row lock (current, not ACTIVE)', p_attempt USING ERRCODE = '40001';
    END IF;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'ATTEMPT_DONE', 'attempt', p_attempt, attempt.actor_id, p_process, attempt.token,
                'assignment ' || attempt.assignment_id || ' → ' || terminal || '; receipt ' || receipt.id);
    RETURN NEXT;
END
$$;

-- Version 10's history guard: the counter as it is, the greatest of the stripes, all locked in order.
CREATE OR REPLACE FUNCTION ledger_history_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    drawn bigint;
    last_issued bigint;
BEGIN
    BEGIN
        drawn := currval(pg_get_serial_sequence(TG_TABLE_NAME, 'seq'));
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;
    END;
    IF NEW.seq IS DISTINCT FROM drawn OR EXISTS (SELECT 1 FROM ledger_history WHERE seq = NEW.seq) THEN
        RAISE EXCEPTION 'fence: the ledger''s history is append-only' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.kind IN ('backup', 'restore', 'bump')
            AND NOT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'fence: only the ledger''s owner starts a new epoch of its token counter' USING ERRCODE = 'SV001';
    END IF;
    PERFORM 1 FROM token_counter ORDER BY id FOR UPDATE;
    last_issued := sovereign_last_token();
    IF NEW.from_token IS DISTINCT FROM last_issued
            OR (NEW.kind IN ('backup', 'backwards')
                AND (NEW.to_token IS DISTINCT FROM NEW.from_token OR NEW.epoch IS DISTINCT FROM NEW.from_token / 1099511627776))
            OR (NEW.kind IN ('restore', 'bump')
                AND (NEW.to_token IS DISTINCT FROM NEW.epoch * 1099511627776
                     OR NEW.epoch <= NEW.from_token / 1099511627776
                     OR NEW.epoch <= COALESCE((SELECT max(epoch) FROM ledger_history), 0)
                     OR NEW.epoch <= COALESCE((SELECT max(seen_token) FROM ledger_history WHERE kind = 'backwards'), 0) / 1099511627776))
            OR (NEW.kind = 'backwards' AND (NEW.seen_token IS NULL OR NEW.seen_token <= NEW.from_token)) THEN
        RAISE EXCEPTION 'fence: a history row states the counter as it is, and a new epoch starts above every epoch and every token seen before it' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;

-- Version 10's halt, of every stripe.
CREATE OR REPLACE FUNCTION ledger_history_halts_the_counter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'backwards' THEN
        UPDATE token_counter SET halted = true WHERE NOT halted;
    END IF;
    RETURN NULL;
END
$$;

-- CREATE OR REPLACE gives a function the settings it names, none: every function written here is pinned again (EXECUTE
-- on the one-call writes is kept by the replacement; the two new functions are read by the guards and the engine, so
-- PUBLIC keeps EXECUTE on them, as on sovereign_now_ms()).
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['sovereign_token_stripe(text)', 'sovereign_last_token()', 'token_counter_guard()',
            'actor_leases_guard_insert()', 'actor_leases_guard_update()', 'execution_attempts_guard_insert()',
            'assignments_guard_update()', 'messages_guard_update()', 'ledger_mark_guard()',
            'sovereign_lease_grant(text, text, bigint)', 'sovereign_lease_renew(text, text, bigint, bigint)',
            'sovereign_lease_release(text, text, bigint)', 'sovereign_beat(text)',
            'sovereign_claim(text, text, text, bigint)', 'sovereign_message_complete(text, bigint, text)',
            'sovereign_attempt_start(text, text, text, bigint, bigint)',
            'sovereign_attempt_finish(text, text, text, text, integer, text)', 'ledger_history_guard()',
            'ledger_history_halts_the_counter()'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f, current_schema());
    END LOOP;
END
$$;
