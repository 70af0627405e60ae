-- Sovereign PostgreSQL schema, version 9: claims, attempts and the operator's actions bound to the server's
-- clock and to the login of the process they name (issue 32 items 4-6; docs/decisions/0916-claims-attempts-and-
-- operator-actions-bound-to-their-login.md). Applied migrations are never edited.
--
-- Version 8 bound a process's session row to the login that registered it (processes.login). The rows that act
-- in a process's name had no such bond, and a claim's expiry no bound at all, so a worker login could:
--   * expire another host's live claim (claim_expires_at = 0), sweep it back to NEW, and have it delivered twice;
--     or freeze a claim for centuries (claim_expires_at = 9000000000000) so nobody claims or sweeps it;
--   * claim, renew or finish a message in another host's process's name with a token it minted itself;
--   * insert an ACTIVE attempt in another process's name under that process's lease token, end its assignment
--     through it and write a receipt: work recorded as done that never ran;
--   * retry an assignment that is RUNNING or COMPLETED, and acknowledge one that has not failed, with any stamp.
-- This version:
--   * a claim's expiry is at most 365 days (decision 0602's longest claim TTL) after the server's clock when it
--     is granted or renewed, and under the same claim it never moves into the past (a re-claim with a shorter TTL
--     may bring it closer, decision 0200, but not behind the server's clock); a sweep still needs the expiry to
--     have passed on the server's clock (version 1);
--   * a claim is granted, renewed and finished (complete, dead-letter, re-queue) only by the login that
--     registered the claiming process (processes.login), by the ledger's operator role or by its owner;
--   * an attempt is started, renewed and ended DONE only by the login that registered its process, or by the
--     operator or owner, and so is an assignment's terminal write 'attempt'; an attempt's times at its start
--     come from the server's clock (started and renewed no later than now, a TTL of at most 365 days, expiring
--     at most 365 days from now; from then on version 4 moves them only forward, by at most the TTL). Endings of an EXPIRED attempt (SUPERSEDED, LOST, RECOVERED, the recovery's terminal write) stay
--     open to any worker: the clock decides them (a new attempt supersedes an expired one of another host);
--   * a retry (INSERT with retry_of) only of a FAILED or BLOCKED assignment, once, and an acknowledgement only
--     of a FAILED or BLOCKED one, once, stamped with the server's clock; both only by the operator or the owner.
--     The engine journals both (ASSIGNMENT_RETRIED, ASSIGNMENT_ACKNOWLEDGED) in the same transaction; the guard
--     does not require that row (the engine writes it after the change).
-- Processes registered before version 8 have no login: only the operator or the owner act in their name.

-- Whether session_user is the ledger's owner or a member of its operator role (decision 0902's names; the schema
-- is the trigger's own, passed in: current_schema() inside a function pinned to pg_catalog first says pg_catalog).
CREATE FUNCTION sovereign_operator_or_owner(p_schema name) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
    operator name;
BEGIN
    operator := ('sovereign_' || current_database() || CASE WHEN p_schema = 'public' THEN '' ELSE '_' || p_schema END
                 || '_operator')::name;
    RETURN pg_has_role(session_user, (SELECT c.relowner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                      WHERE n.nspname = p_schema AND c.relname = 'processes'), 'MEMBER')
        OR (EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = operator) AND pg_has_role(session_user, operator, 'MEMBER'));
END
$$;

-- Whether session_user may act in the name of process p_process: the login that registered it, the operator, the owner.
CREATE FUNCTION sovereign_acts_for(p_process text, p_schema name) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM processes p WHERE p.identity = p_process AND p.login = session_user::text)
        OR sovereign_operator_or_owner(p_schema);
END
$$;

-- messages_claimed_by_their_login, messages_claims_expire_within_a_year, messages_claims_only_prolonged.
-- Sorts after messages_guard_update: version 1's words come first.
CREATE FUNCTION messages_guard_update_claims() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
BEGIN
    IF NEW.state = 'CLAIMED' AND (NEW.claim_token IS DISTINCT FROM OLD.claim_token
            OR NEW.claim_expires_at IS DISTINCT FROM OLD.claim_expires_at) THEN
        IF NOT sovereign_acts_for(NEW.claim_process, TG_TABLE_SCHEMA) THEN
            RAISE EXCEPTION 'fence: a message is claimed or its claim renewed only by the login that registered the claiming process (%), by the ledger''s operator role or by its owner, not by %',
                coalesce((SELECT p.login FROM processes p WHERE p.identity = NEW.claim_process), 'unknown'), session_user
                USING ERRCODE = 'SV001';
        END IF;
        now_ms := sovereign_now_ms();
        -- a re-claim (same token) moves the expiry to now + ttl: later, or with a shorter TTL earlier but still
        -- ahead of the server's clock; never into the past, where a sweep or another host's claim would take it
        IF NEW.claim_expires_at > now_ms + 31536000000
                OR (NEW.claim_token IS NOT DISTINCT FROM OLD.claim_token AND NEW.claim_expires_at < OLD.claim_expires_at
                    AND NEW.claim_expires_at <= now_ms) THEN
            RAISE EXCEPTION 'fence: a claim expires at most 365 days after the server''s clock, and under the same token never in the past' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    IF OLD.state = 'CLAIMED' AND (NEW.state IN ('DONE', 'DEAD')
            OR (NEW.state = 'NEW' AND NEW.retry_count IS DISTINCT FROM OLD.retry_count))
            AND NOT sovereign_acts_for(OLD.claim_process, TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: a message is finished only by the login that registered the claiming process (%), by the ledger''s operator role or by its owner, not by %',
            coalesce((SELECT p.login FROM processes p WHERE p.identity = OLD.claim_process), 'unknown'), session_user
            USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER messages_guard_update_claims BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION messages_guard_update_claims();

-- attempts_started_by_their_login, attempts_start_on_the_servers_clock. Sorts after execution_attempts_guard_insert.
CREATE FUNCTION execution_attempts_guard_insert_login() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_ms bigint;
BEGIN
    IF NOT sovereign_acts_for(NEW.process_identity, TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: an attempt is started only by the login that registered its process (%), by the ledger''s operator role or by its owner, not by %',
            coalesce((SELECT p.login FROM processes p WHERE p.identity = NEW.process_identity), 'unknown'), session_user
            USING ERRCODE = 'SV001';
    END IF;
    now_ms := sovereign_now_ms();
    IF NEW.ttl_ms > 31536000000 OR NEW.started_at > now_ms OR NEW.renewed_at > now_ms
            OR NEW.expires_at > now_ms + 31536000000 THEN
        RAISE EXCEPTION 'fence: an attempt''s times come from the server''s clock: started and renewed no later than now, a TTL of at most 365 days, expiring at most 365 days from now' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER execution_attempts_guard_insert_login BEFORE INSERT ON execution_attempts FOR EACH ROW EXECUTE FUNCTION execution_attempts_guard_insert_login();

-- attempts_renewed_and_done_by_their_login. Sorts after execution_attempts_guard_update_live.
CREATE FUNCTION execution_attempts_guard_update_login() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state = 'ACTIVE' AND (NEW.state = 'DONE' OR (NEW.state = 'ACTIVE'
            AND (NEW.renewed_at IS DISTINCT FROM OLD.renewed_at OR NEW.expires_at IS DISTINCT FROM OLD.expires_at)))
            AND NOT sovereign_acts_for(OLD.process_identity, TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: an attempt is renewed or ended DONE only by the login that registered its process (%), by the ledger''s operator role or by its owner, not by %',
            coalesce((SELECT p.login FROM processes p WHERE p.identity = OLD.process_identity), 'unknown'), session_user
            USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER execution_attempts_guard_update_login BEFORE UPDATE ON execution_attempts FOR EACH ROW EXECUTE FUNCTION execution_attempts_guard_update_login();

-- assignments_retried_by_the_operator_once_after_failure. Sorts after assignments_guard_insert.
CREATE FUNCTION assignments_guard_insert_retry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.acknowledged_at IS NOT NULL THEN
        RAISE EXCEPTION 'fence: an assignment is created unacknowledged' USING ERRCODE = 'SV001';
    END IF;
    IF NEW.retry_of IS NOT NULL THEN
        IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
            RAISE EXCEPTION 'fence: an assignment is retried only by the ledger''s operator role or its owner, not by %', session_user
                USING ERRCODE = 'SV001';
        END IF;
        -- locked: two retries of one assignment are serialised on its row, and the second sees the first
        PERFORM 1 FROM assignments a WHERE a.id = NEW.retry_of FOR UPDATE;
        IF NOT EXISTS (SELECT 1 FROM assignments a WHERE a.id = NEW.retry_of AND a.state IN ('FAILED', 'BLOCKED'))
                OR EXISTS (SELECT 1 FROM assignments a WHERE a.retry_of = NEW.retry_of) THEN
            RAISE EXCEPTION 'fence: only a FAILED or BLOCKED assignment is retried, and only once' USING ERRCODE = 'SV001';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER assignments_guard_insert_retry BEFORE INSERT ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_guard_insert_retry();

-- assignments_acknowledged_by_the_operator_once_after_failure, assignments_ended_by_their_attempts_login.
-- Sorts after assignments_guard_update.
CREATE FUNCTION assignments_guard_update_login() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.acknowledged_at IS DISTINCT FROM OLD.acknowledged_at THEN
        IF NOT sovereign_operator_or_owner(TG_TABLE_SCHEMA) THEN
            RAISE EXCEPTION 'fence: an assignment is acknowledged only by the ledger''s operator role or its owner, not by %', session_user
                USING ERRCODE = 'SV001';
        END IF;
        IF OLD.acknowledged_at IS NOT NULL OR NEW.acknowledged_at IS NULL OR OLD.state NOT IN ('FAILED', 'BLOCKED')
                OR NEW.state IS DISTINCT FROM OLD.state THEN
            RAISE EXCEPTION 'fence: only a FAILED or BLOCKED assignment is acknowledged, and only once' USING ERRCODE = 'SV001';
        END IF;
        NEW.acknowledged_at := sovereign_now_ms();
    END IF;
    IF OLD.state = 'RUNNING' AND NEW.state IN ('COMPLETED', 'BLOCKED', 'FAILED') AND NEW.ended_via = 'attempt'
            AND NOT sovereign_acts_for((SELECT t.process_identity FROM execution_attempts t WHERE t.id = NEW.ended_by_attempt),
                                       TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: an assignment is ended by its attempt only by the login that registered the attempt''s process, by the ledger''s operator role or by its owner, not by %', session_user
            USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER assignments_guard_update_login BEFORE UPDATE ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_guard_update_login();

-- As in every version: the functions see only the built-ins and the ledger, the guards fire in every session, and
-- the two helpers (which only read) callable by every login the guards serve.
DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_operator_or_owner(name) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_acts_for(text, name) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION messages_guard_update_claims() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION execution_attempts_guard_insert_login() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION execution_attempts_guard_update_login() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION assignments_guard_insert_retry() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION assignments_guard_update_login() SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_operator_or_owner(name), sovereign_acts_for(text, name) TO %I', worker);
END
$$;
ALTER TABLE messages ENABLE ALWAYS TRIGGER messages_guard_update_claims;
ALTER TABLE execution_attempts ENABLE ALWAYS TRIGGER execution_attempts_guard_insert_login;
ALTER TABLE execution_attempts ENABLE ALWAYS TRIGGER execution_attempts_guard_update_login;
ALTER TABLE assignments ENABLE ALWAYS TRIGGER assignments_guard_insert_retry;
ALTER TABLE assignments ENABLE ALWAYS TRIGGER assignments_guard_update_login;
