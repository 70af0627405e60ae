-- Sovereign PostgreSQL schema, version 18: a lease write's change marker is its own transaction's id, not a value of
-- the lease change counter (issue 28; decision 0923, step 1 of decision 0922). Applied migrations are never edited.
--
-- Until version 17 every lease write locked the one lease_change_counter row, raised it and wrote the new value into
-- change_seq, holding that row until its COMMIT: lease writes of all connections were serialised through it, for
-- the console's incremental read only (decision 0414: a snapshot that saw the counter at v saw every row marked
-- <= v). From this version a lease write marks its row (and a release its tombstone) with txid_current(), the id of
-- the transaction that writes it, and the console keeps, instead of v, the oldest transaction still running when its
-- snapshot was taken (txid_snapshot_xmin): every row a later snapshot can see and this one could not was written by
-- a transaction at or above that id, so the next read asks for change_seq >= it (JdbcAdminLeases; some rows are
-- read twice, none is missed). Nothing a lease write waits for is shared with another actor's any more, except the
-- token counter, which step 2 of decision 0922 replaces.
--
-- What the guards ask for is the same rule in the new words: every lease write carries the marker of its own
-- transaction (change_seq = presented_change = txid_current() on an update; change_seq on an insert), and a release
-- deletes only a row that this very transaction wrote presenting its token. The "greater than the row's last
-- marker" rule goes: two writes of one row in one transaction carry the same id, and a ledger restored into another
-- cluster may hold markers above that cluster's transaction ids (such a row is only read again by every incremental
-- read until it is next written). lease_change_counter stays, with its guard, no longer written by the engine or
-- read by anything (decision 0923 says why it is not dropped here).

-- Version 8's insert guard; only the marker's rule differs.
CREATE OR REPLACE FUNCTION actor_leases_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    now_ms bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO tokens FROM token_counter WHERE id = 1;
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

-- Version 8's update guard; only the marker's rule differs.
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
        SELECT * INTO tokens FROM token_counter WHERE id = 1;
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

-- Version 1's delete guard: the row was written in this transaction presenting its current token (the update guard
-- lets presented_change be nothing but this transaction's id).
CREATE OR REPLACE FUNCTION actor_leases_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.presented_token IS DISTINCT FROM OLD.token OR OLD.presented_change IS DISTINCT FROM txid_current() THEN
        RAISE EXCEPTION 'fence: a lease is released only by the transaction that presents its current token' USING ERRCODE = 'SV001';
    END IF;
    RETURN OLD;
END
$$;

-- A released lease leaves its actor and the releasing transaction's id.
CREATE OR REPLACE FUNCTION actor_leases_leave_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO lease_tombstones (actor_id, change_seq) VALUES (OLD.actor_id, txid_current())
        ON CONFLICT (actor_id) DO UPDATE SET change_seq = excluded.change_seq;
    RETURN NULL;
END
$$;

-- Version 7's grant, renewal and version 5's release without the lease change counter.
CREATE OR REPLACE FUNCTION sovereign_lease_grant(p_actor text, p_process text, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    minted bigint;
    granted actor_leases%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 OR NOT EXISTS (SELECT 1 FROM actors WHERE id = p_actor) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM token_counter WHERE id = 1 FOR UPDATE;
    -- a new snapshot: a grant that held the counter before this one has committed its row by now
    PERFORM 1 FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF FOUND THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1 RETURNING last_token INTO minted;
    INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at, expires_at, renewals,
                              renewal_journalled_at, change_seq, attached)
        VALUES (p_actor, p_process, minted, p_ttl_ms, now_ms, now_ms, now_ms + p_ttl_ms, 0, now_ms, txid_current(), true)
        RETURNING * INTO granted;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'LEASE_ACQUIRED', 'actor', p_actor, p_actor, p_process, minted, 'ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT granted;
END
$$;

CREATE OR REPLACE FUNCTION sovereign_lease_renew(p_actor text, p_process text, p_token bigint, p_ttl_ms bigint) RETURNS SETOF actor_leases LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    held actor_leases%ROWTYPE;
    renewed actor_leases%ROWTYPE;
BEGIN
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > (SELECT last_token FROM token_counter WHERE id = 1)
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

CREATE OR REPLACE FUNCTION sovereign_lease_release(p_actor text, p_process text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    held actor_leases%ROWTYPE;
BEGIN
    SELECT * INTO held FROM actor_leases WHERE actor_id = p_actor FOR UPDATE;
    IF NOT FOUND OR held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_token
            OR held.token > (SELECT last_token FROM token_counter WHERE id = 1)
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

-- CREATE OR REPLACE gives a function the settings it names, none: pinned again (EXECUTE on the lease functions is
-- kept by the replacement).
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION actor_leases_guard_insert() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION actor_leases_guard_update() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION actor_leases_guard_delete() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION actor_leases_leave_tombstone() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_grant(text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_renew(text, text, bigint, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_lease_release(text, text, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
