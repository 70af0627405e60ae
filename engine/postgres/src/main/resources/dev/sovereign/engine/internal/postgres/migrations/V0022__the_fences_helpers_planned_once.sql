-- Sovereign PostgreSQL schema, version 22: the two helpers every lease write calls are planned once per session, and
-- the lease functions call them once (issue 28; decision 0926). Applied migrations are never edited.
--
-- Measured with pg_stat_statements (track=all) and pg_stat_user_functions on one connection: version 19's
-- sovereign_token_stripe and sovereign_last_token are SQL functions, and a SQL function that carries a SET clause (the
-- pinned search_path every function of the ledger has) is never inlined: each call from PL/pgSQL planned its one
-- SELECT again, about 24 µs for the stripe and 68 µs for the greatest token, where the statement itself takes 3 and
-- 10. A grant called the stripe four times (twice itself, twice in the guards), a release the greatest token once:
-- about 160 µs of the 290 µs the lease functions spent above the contract's own floor. As PL/pgSQL functions their
-- plans are kept by the session, and their results are the same for every argument (the stripe is the same
-- expression: an actor's stripe never changes, which its tokens' order depends on).
--
-- The lease functions keep every check and lock, in the same order; only how they ask changes:
--   * the grant computes its stripe once;
--   * the release and the renewal ask whether the presented token was issued against the actor's own stripe, not the
--     greatest of the 64: at most 63 above the stripe's row. A token minted on the row since version 19 has the row's
--     residue modulo 64 and the row steps by 64, so for it that is exactly "at or below the row"; a token minted
--     before version 19 is at or below the old counter, and version 19 started every stripe within 63 below it (as
--     the copy and a new epoch do). A stripe set back below a live token of its own is seen even when another stripe
--     is higher. The release's compare-and-set is its UPDATE: the row is the caller's, under the presented token,
--     sane, issued; otherwise the release writes nothing and returns false, and the engine's full path words the
--     refusal, as before;
--   * the beat compares each attached row with the greatest token read once in its own statement's snapshot (a scalar
--     subquery), not with a call per row.

CREATE OR REPLACE FUNCTION sovereign_token_stripe(p_actor text) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN get_byte(sha256(convert_to(p_actor, 'UTF8')), 0) % 64;
END
$$;

CREATE OR REPLACE FUNCTION sovereign_last_token() RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT max(last_token) FROM token_counter);
END
$$;

-- Version 19's grant; the stripe computed once.
CREATE OR REPLACE FUNCTION sovereign_lease_grant(p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    stripe integer;
    now_ms bigint;
    minted bigint;
    granted actor_leases%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 OR NOT EXISTS (SELECT 1 FROM actors WHERE id = p_actor) THEN
        RETURN;
    END IF;
    stripe := sovereign_token_stripe(p_actor);
    PERFORM 1 FROM token_counter WHERE id = stripe FOR UPDATE;
    -- a new snapshot: a grant that held the stripe before this one has committed its row by now
    PERFORM 1 FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF FOUND THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE token_counter SET last_token = last_token + 64 WHERE id = stripe RETURNING last_token INTO minted;
    INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at, renewals,
                              renewal_journalled_at, change_seq, attached)
        VALUES (p_actor, p_process, minted, p_ttl_ms, now_ms, now_ms, now_ms + p_ttl_ms, 0, now_ms, txid_current(), true)
        RETURNING * INTO granted;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_ACQUIRED', 'actor', p_actor, p_actor, p_process, minted, 'ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT granted;
END
$$;

-- Version 19's renewal; the presented token checked against the actor's stripe (at most 63 above its row).
CREATE OR REPLACE FUNCTION sovereign_lease_renew(p_actor text, p_process text, p_token bigint, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    held actor_leases%ROWTYPE;
    renewed actor_leases%ROWTYPE;
BEGIN
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > (SELECT t.last_token FROM token_counter t WHERE t.id = sovereign_token_stripe(p_actor)) + 63
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

-- Version 19's release; its compare-and-set is the UPDATE that states the token (no read before it).
CREATE OR REPLACE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    -- the release states its token in the row first (a bare DELETE is refused), then deletes it
    UPDATE actor_leases SET change_seq = txid_current(), presented_token = p_token, presented_change = txid_current()
        WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token
            AND token <= (SELECT t.last_token FROM token_counter t WHERE t.id = sovereign_token_stripe(p_actor)) + 63
            AND ttl_ms > 0 AND expires_at <= renewed_at + ttl_ms;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    DELETE FROM actor_leases WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)
        VALUES (sovereign_now_ms(), 'LEASE_RELEASED', 'actor', p_actor, p_actor, p_process, p_token);
    RETURN true;
END
$$;

-- Version 19's beat; the greatest token read once per statement.
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
            AND l.token > 0 AND l.token <= (SELECT sovereign_last_token())
            AND l.ttl_ms > 0 AND l.expires_at <= l.renewed_at + l.ttl_ms;
END
$$;

-- CREATE OR REPLACE gives a function the settings it names, none: every function written here is pinned again
-- (EXECUTE granted on them is kept by the replacement).
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['sovereign_token_stripe(text)', 'sovereign_last_token()',
            'sovereign_lease_grant(text, text, bigint)', 'sovereign_lease_renew(text, text, bigint, bigint)',
            'sovereign_lease_release(text, text, bigint)', 'sovereign_beat(text)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f, current_schema());
    END LOOP;
END
$$;
