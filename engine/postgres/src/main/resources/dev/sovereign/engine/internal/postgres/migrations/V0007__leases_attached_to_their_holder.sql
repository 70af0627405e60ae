-- Sovereign PostgreSQL schema, version 7: a lease kept alive by its holder's heartbeat (issue 16,
-- docs/decisions/0509-leases-attached-to-their-holders-session.md), the twin of the SQLite schema's version 7.
-- Applied migrations are never edited.
--
-- A lease row may be ATTACHED to its holder's session, the holder's row in processes: its effective expiry is
-- then the later of its own expires_at and the holder's last heartbeat (the server's clock) plus the lease's own
-- TTL, so one beat (one processes row) keeps every attached lease of the process alive, however many it holds.
-- Safety does not change: a takeover still mints a greater token and every write still presents the row's
-- token; only WHEN a takeover is allowed reads the session. Rows written before this version are not attached.
ALTER TABLE actor_leases ADD COLUMN attached boolean NOT NULL DEFAULT false;

-- The supervisor's worklist of expired leases: an attached row's own expires_at is only its floor, so only rows
-- that are not attached are found by it; attached ones are found through their holder.
DROP INDEX actor_leases_by_expiry;
CREATE INDEX actor_leases_by_expiry ON actor_leases (expires_at) WHERE NOT attached;
-- One process's attached leases with what the beat checks of each (its token, and the columns that say the row
-- is sane): the beat's check of what it holds reads only this index.
DROP INDEX actor_leases_by_process;
CREATE INDEX actor_leases_by_process ON actor_leases (process_identity, attached, token, ttl_ms, renewed_at, expires_at);

-- Version 1's lease guard with one rule more: a takeover of an attached lease waits until the holder's last
-- heartbeat plus the lease's TTL has passed too, on the server's clock (a missing holder row keeps only the
-- row's own expiry). Everything else is version 1's text.
CREATE OR REPLACE FUNCTION actor_leases_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
        IF OLD.attached AND (SELECT p.heartbeat_at FROM processes p WHERE p.identity = OLD.process_identity) + OLD.ttl_ms
                > sovereign_now_ms() THEN
            RAISE EXCEPTION 'fence: a takeover of an attached lease waits until its holder''s heartbeat has expired too' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;

-- Version 5's grant and renewal, attaching the lease they write to the caller's session; otherwise unchanged.
CREATE OR REPLACE FUNCTION sovereign_lease_grant(p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
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
                              renewal_journalled_at, change_seq, attached)
        VALUES (p_actor, p_process, minted, p_ttl_ms, now_ms, now_ms, now_ms + p_ttl_ms, 0, now_ms, change, true)
        RETURNING * INTO granted;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_ACQUIRED', 'actor', p_actor, p_actor, p_process, minted, 'ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT granted;
END
$$;

CREATE OR REPLACE FUNCTION sovereign_lease_renew(p_actor text, p_process text, p_token bigint, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
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
            presented_token = p_token, presented_change = change, attached = true
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

-- CREATE OR REPLACE gives a function the settings it names, none: pinned again as versions 1 and 5 did
-- (EXECUTE on the two lease functions is kept by the replacement).
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION actor_leases_guard_update() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_renew(text, text, bigint, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
