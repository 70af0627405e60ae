-- Sovereign PostgreSQL schema, version 12: a lease row is written only by the login of the process it names (issue
-- 26; docs/decisions/0917-a-lease-is-written-by-its-holders-login.md). Applied migrations are never edited.
--
-- Version 8 bound a process's session row to the login that registered it, version 9 claims and attempts. A lease
-- row had no such bond: another host's worker login could read a live lease's token and present it, renewing the
-- lease with an expiry in the past (or releasing it), so a lease it did not hold ended without a takeover or a
-- rejection in the journal. Presenting a token proves a write is not stale; which login may present it is what
-- this version adds, the same rule as for the rows that act in a process's name:
--   * a grant (INSERT) names a process of the login that writes it;
--   * a takeover (a new token) names a process of the login that writes it;
--   * a renewal, a detach, a release marker (same token) and a release (DELETE) come from the login that registered
--     the holder;
-- and in each case the ledger's operator role or its owner may act instead (decision 0902: restore, fence bump).
CREATE FUNCTION actor_leases_guard_login() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    named text;
BEGIN
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.token IS DISTINCT FROM OLD.token) THEN
        named := NEW.process_identity;
    ELSE
        named := OLD.process_identity;
    END IF;
    IF NOT sovereign_acts_for(named, TG_TABLE_SCHEMA) THEN
        RAISE EXCEPTION 'fence: a lease is granted, renewed, detached or released only by the login that registered its holder (%), by the ledger''s operator role or by its owner, not by %',
            coalesce((SELECT p.login FROM processes p WHERE p.identity = named), 'unknown'), session_user
            USING ERRCODE = 'SV001';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER actor_leases_guard_login BEFORE INSERT OR DELETE OR UPDATE ON actor_leases FOR EACH ROW EXECUTE FUNCTION actor_leases_guard_login();

-- As in every version: the function sees only the built-ins and the ledger, and the guard fires in every session.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION actor_leases_guard_login() SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
ALTER TABLE actor_leases ENABLE ALWAYS TRIGGER actor_leases_guard_login;
