-- Sovereign PostgreSQL schema, version 5: the common case of a lease grant, renewal and release as ONE call
-- (issue 16; docs/decisions/0506-postgresql-lease-writes-in-one-round-trip.md). Applied migrations are never
-- edited.
--
-- Until version 4 a grant was about nine client round trips (the actor, the two counter locks, the lease row
-- FOR UPDATE, the server's clock, the mint, the change marker, the INSERT, the journal INSERT, then COMMIT)
-- where the floor (BEGIN; UPDATE one row; COMMIT) has two. These functions send the same statements from
-- inside the server: the same rows and columns, the same lock order (decision 0900: token counter, lease
-- change counter, lease row), times from sovereign_now_ms() read once after the locks, the journal row the
-- engine writes. They do ONLY the simple case, and otherwise write nothing and return nothing (no row,
-- false), and the engine runs its full path (PgLeases) in the same transaction: that path asks the rule book
-- (decision 0008), which words every refusal; a function never refuses and never decides anything the rule
-- book would not allow:
--   * sovereign_lease_grant   — the actor exists and has NO lease row: mint, raise the change marker, INSERT
--                               the lease, journal LEASE_ACQUIRED. A live row (a refusal), an expired one (a
--                               takeover, journalled with the old holder), an unknown actor: nothing.
--   * sovereign_lease_renew   — the row is the caller's, with the presented token, and sane: the renewal
--                               UPDATE presenting the token, journal LEASE_RENEWED. Otherwise nothing.
--   * sovereign_lease_release — the row is the caller's, with the presented token, and sane: state the token,
--                               DELETE, journal LEASE_RELEASED. Otherwise false, nothing written.
-- "Sane" is LeaseRules.corruption: a token the counter issued, an expiry a renewal could have written; a
-- corrupt row is evidence and is never renewed or deleted.
--
-- They are no way around the fence. SECURITY INVOKER (checked on every open, as for the guards): a caller
-- can do through them exactly what its own privileges let it do by hand, and every row they write passes the
-- same triggers, which still refuse a raw statement (a grant over a live lease, a release without the
-- token). A process identity is a fencing identity, not authentication (decision 0802): a worker login may
-- name any process, through a function or by hand alike. EXECUTE is taken from PUBLIC and given to the
-- worker group role of version 3 (the operator is a member of it).

CREATE FUNCTION sovereign_lease_grant(p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    minted bigint;
    change bigint;
    granted actor_leases%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 OR NOT EXISTS (SELECT 1 FROM actors WHERE id = p_actor) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM token_counter WHERE id = 1 FOR UPDATE;
    PERFORM 1 FROM lease_change_counter WHERE id = 1 FOR UPDATE;
    -- a new snapshot: a grant that held the counter before this one has committed its row by now
    PERFORM 1 FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF FOUND THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token INTO minted;
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change INTO change;
    INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at, renewals,
                              renewal_journalled_at, change_seq)
        VALUES (p_actor, p_process, minted, p_ttl_ms, now_ms, now_ms, now_ms + p_ttl_ms, 0, now_ms, change)
        RETURNING * INTO granted;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_ACQUIRED', 'actor', p_actor, p_actor, p_process, minted, 'ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT granted;
END
$$;

-- p_ttl_ms <= 0 keeps the lease's own TTL (PgLeases.renew without a TTL).
CREATE FUNCTION sovereign_lease_renew(p_actor text, p_process text, p_token bigint, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    change bigint;
    held actor_leases%ROWTYPE;
    renewed actor_leases%ROWTYPE;
BEGIN
    PERFORM 1 FROM lease_change_counter WHERE id = 1 FOR UPDATE;
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > (SELECT last_token FROM token_counter WHERE id = 1)
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change INTO change;
    UPDATE actor_leases SET renewed_at = now_ms,
            ttl_ms = CASE WHEN p_ttl_ms > 0 THEN p_ttl_ms ELSE ttl_ms END,
            expires_at = now_ms + CASE WHEN p_ttl_ms > 0 THEN p_ttl_ms ELSE ttl_ms END,
            renewals = renewals + 1, renewal_journalled_at = now_ms, change_seq = change,
            presented_token = p_token, presented_change = change
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

CREATE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    change bigint;
    held actor_leases%ROWTYPE;
BEGIN
    PERFORM 1 FROM lease_change_counter WHERE id = 1 FOR UPDATE;
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > (SELECT last_token FROM token_counter WHERE id = 1)
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms THEN
        RETURN false;
    END IF;
    UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change INTO change;
    -- the release states its token in the row first (a bare DELETE is refused, version 1), then deletes it
    UPDATE actor_leases SET change_seq = change, presented_token = p_token, presented_change = change
        WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token;
    DELETE FROM actor_leases WHERE actor_id = p_actor AND process_identity = p_process AND token = p_token;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token)
        VALUES (sovereign_now_ms(), 'LEASE_RELEASED', 'actor', p_actor, p_actor, p_process, p_token);
    RETURN true;
END
$$;

-- As in versions 1 to 4: the functions see only the built-ins and the ledger, whatever the caller's
-- search_path says. EXECUTE for the worker group role (decision 0902's names), not for PUBLIC.
DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_renew(text, text, bigint, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_release(text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    REVOKE EXECUTE ON FUNCTION sovereign_lease_grant(text, text, bigint), sovereign_lease_renew(text, text, bigint, bigint),
        sovereign_lease_release(text, text, bigint) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_lease_grant(text, text, bigint), sovereign_lease_renew(text, text, bigint, bigint),'
        ' sovereign_lease_release(text, text, bigint) TO %I', worker);
END
$$;
