-- Sovereign PostgreSQL schema, version 16: the common case of a message claim and of its completion as ONE call
-- (issue 28; decision 0920). Applied migrations are never edited.
--
-- Until version 15 a claim sent nine statements before its COMMIT (the message, the token counter FOR UPDATE, the
-- recipient's lease FOR SHARE, the message FOR UPDATE, the server's clock, the counter for the sanity check, the
-- mint, the UPDATE, the journal row) and a completion seven. These functions send the same statements from inside
-- the server, in the same order (decision 0900: token counter, lease, message), with the times from
-- sovereign_now_ms() read once after the locks, and write the rows and the journal row the engine's full path
-- (JdbcMailbox) writes. They do ONLY the simple case; otherwise they write nothing and return no row, and the
-- engine runs its full path in the same transaction, which asks the rule book (MailboxRules) and words every
-- refusal. A function never refuses and never decides what the rule book would not allow:
--   * sovereign_claim            — a NEW message addressed to the actor, whose lease is the caller's, sane, and
--                                  live at the server's clock (its effective expiry: an attached lease lives as
--                                  long as its holder's session beats, LeaseSql.effective): mint, the claim UPDATE,
--                                  journal CLAIM_GRANTED. A claimed message (the holder's renewal, a takeover of an
--                                  expired claim, a refusal), a finished one, another actor, a lease that is not
--                                  the caller's, expired or corrupt: nothing.
--   * sovereign_message_complete — the finishing UPDATE with the engine's guard (the presented token is the
--                                  current claim's, the caller claimed it and still holds the actor's lease, not
--                                  from an older epoch), journal MESSAGE_DONE. A corrupt lease row (it fails a
--                                  finish closed) or no row matched: nothing.
-- "Sane" is LeaseRules.corruption: a token the counter issued, an expiry a renewal could have written.
--
-- They are no way around the fence: SECURITY INVOKER (checked on every open, as for the guards), every row they
-- write passes the same triggers (messages_guard_update wants the token minted in this transaction, a process
-- hosting the recipient, the current claim token to finish), and a caller can do through them exactly what its
-- own privileges let it do by hand. VOLATILE, so each statement reads after the one before it, as the engine's
-- statements do. EXECUTE is taken from PUBLIC and given to the worker group role (decision 0902).

CREATE FUNCTION sovereign_claim(p_message text, p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF messages LANGUAGE plpgsql VOLATILE AS $$
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
    SELECT last_token INTO last_issued FROM token_counter WHERE id = 1 FOR UPDATE;
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
    UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token INTO minted;
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

CREATE FUNCTION sovereign_message_complete(p_message text, p_token bigint, p_process text) RETURNS SETOF messages LANGUAGE plpgsql VOLATILE AS $$
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
    IF FOUND AND (held.token <= 0 OR held.token > (SELECT c.last_token FROM token_counter c WHERE c.id = 1)
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

DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_claim(text, text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_message_complete(text, bigint, text) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    REVOKE EXECUTE ON FUNCTION sovereign_claim(text, text, text, bigint), sovereign_message_complete(text, bigint, text) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_claim(text, text, text, bigint), sovereign_message_complete(text, bigint, text) TO %I', worker);
END
$$;
