-- Sovereign PostgreSQL schema, version 8: every input of a lease's liveness guarded (issue 26, items 2 and 3;
-- docs/decisions/0912-a-session-row-belongs-to-its-login.md and 0913-a-beat-and-a-takeover-exclude-each-other.md).
-- Applied migrations are never edited.
--
-- Since version 7 a lease attached to its holder's session lives as long as the holder's processes row says it
-- beats; that row had no guard, so any worker login could expire (heartbeat_at = 0) or pin (heartbeat_at far
-- ahead) any host's leases without a token. This version:
--   * records the login (session_user) that registers a process, and lets only that login, the ledger's operator
--     role or its owner write the row afterwards;
--   * stamps every time of the row from the server's clock (started_at, heartbeat_at, stopped_at), whatever the
--     statement says, so nobody chooses a beat's time; a stopped process stays stopped;
--   * bounds a lease's times by the server's clock and its TTL by 365 days (decision 0602), for the engine, the
--     lease functions of version 5 and a hand-typed statement alike;
--   * lets a lease be detached from its session only as the engine's documented path does it (decision 0509:
--     its effective renewal and expiry frozen into the row, nothing else changed);
--   * makes a takeover of an attached lease wait for a beat of its holder that is in flight, and then see it
--     (SELECT ... FOR SHARE of the holder's row, which conflicts with the beat's UPDATE), so a committed beat and
--     a committed takeover of the same lease exclude each other.
-- Rows registered before this version have no login: only the operator or the owner may write them.

ALTER TABLE processes ADD COLUMN login TEXT;

-- processes_keep_their_identity, _written_by_their_login, _stamped_by_the_server, _stopped_for_good
CREATE FUNCTION processes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
    operator name;
BEGIN
    now_ms := sovereign_now_ms();
    IF TG_OP = 'INSERT' THEN
        NEW.login := session_user;
        NEW.started_at := now_ms;
        NEW.heartbeat_at := now_ms;
        IF NEW.stopped_at IS NOT NULL THEN
            NEW.stopped_at := now_ms;
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.identity IS DISTINCT FROM OLD.identity OR NEW.login IS DISTINCT FROM OLD.login
            OR NEW.started_at IS DISTINCT FROM OLD.started_at THEN
        RAISE EXCEPTION 'fence: a process row never changes its identity, its login or when it started' USING ERRCODE = 'SV001';
    END IF;
    IF OLD.login IS DISTINCT FROM session_user::text THEN
        operator := ('sovereign_' || current_database() || CASE WHEN TG_TABLE_SCHEMA = 'public' THEN '' ELSE '_' || TG_TABLE_SCHEMA END
                     || '_operator')::name;
        IF NOT (pg_has_role(session_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = TG_RELID), 'MEMBER')
                OR (EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = operator) AND pg_has_role(session_user, operator, 'MEMBER'))) THEN
            RAISE EXCEPTION 'fence: a process''s session row is written only by the login that registered it (%), by the ledger''s operator role or by its owner, not by %',
                coalesce(OLD.login, 'unknown: registered before schema version 8'), session_user USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF NEW.heartbeat_at IS DISTINCT FROM OLD.heartbeat_at THEN
        NEW.heartbeat_at := now_ms;
    END IF;
    IF NEW.stopped_at IS DISTINCT FROM OLD.stopped_at THEN
        IF OLD.stopped_at IS NOT NULL THEN
            RAISE EXCEPTION 'fence: a stopped process stays stopped' USING ERRCODE = 'SV001';
        END IF;
        NEW.stopped_at := now_ms;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER processes_guard BEFORE INSERT OR UPDATE ON processes FOR EACH ROW EXECUTE FUNCTION processes_guard();

-- Version 1's insert guard, with the times and the TTL bounded: granted and renewed no later than the server's
-- clock, expiring no later than the renewal plus the TTL, a TTL of at most 365 days.
CREATE OR REPLACE FUNCTION actor_leases_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    changes lease_change_counter%ROWTYPE;
    now_ms bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM actor_leases WHERE actor_id = NEW.actor_id) THEN
        RAISE EXCEPTION 'fence: an actor has one lease row; a takeover updates it with a new token, it is never replaced' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO tokens FROM token_counter WHERE id = 1;
    IF NEW.token IS DISTINCT FROM tokens.last_token OR tokens.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'fence: a lease is granted with the token minted for it in the same transaction' USING ERRCODE = 'SV001';
    END IF;
    SELECT * INTO changes FROM lease_change_counter WHERE id = 1;
    IF NEW.change_seq <= 0 OR NEW.change_seq IS DISTINCT FROM changes.last_change OR changes.last_xact <> txid_current() THEN
        RAISE EXCEPTION 'a lease write must carry a new lease change marker: bump lease_change_counter in the same transaction and write its value into change_seq' USING ERRCODE = 'SV001';
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

-- Version 7's update guard with four rules more:
--   * the TTL is at most 365 days, and a write that moves a time keeps it from the server's clock: renewed no later
--     than now (or than the renewal it had), expiring no later than the renewal plus the TTL, granted only by a
--     takeover, no later than now;
--   * a takeover of an attached lease first locks the holder's session row FOR SHARE: a beat in flight (an UPDATE of
--     that row) is waited for and then seen, and no beat can commit until the takeover has;
--   * a detach (attached true -> false, same token) writes exactly the effective renewal and expiry the session gave
--     the lease and changes nothing else (decision 0509's abandon; the beat's detach of an unbelieved row).
CREATE OR REPLACE FUNCTION actor_leases_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tokens token_counter%ROWTYPE;
    changes lease_change_counter%ROWTYPE;
    now_ms bigint;
    beat bigint;
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

-- As in every version: the functions see only the built-ins and the ledger, and the new guard fires in every session.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION processes_guard() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION actor_leases_guard_insert() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION actor_leases_guard_update() SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
ALTER TABLE processes ENABLE ALWAYS TRIGGER processes_guard;
