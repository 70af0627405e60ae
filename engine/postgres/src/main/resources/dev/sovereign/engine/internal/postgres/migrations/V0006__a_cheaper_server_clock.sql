-- Sovereign PostgreSQL schema, version 6: the server's clock, sovereign_now_ms(), as PL/pgSQL instead of SQL
-- (issue 16; docs/decisions/0910-postgresql-server-work-per-lease-transaction.md). Applied migrations are never
-- edited.
--
-- Same value, same reads: the pinned time of server_clock when the ledger's owner pinned one (version 2,
-- decision 0901), otherwise clock_timestamp() in whole epoch milliseconds, floored. Same settings: SECURITY
-- INVOKER, VOLATILE, search_path pinned to the built-ins first, then the ledger (below), and every open
-- compares its language and body with this file as it does for every guard.
--
-- Why: measured in the server (decision 0910), one call of the SQL version cost ~80-95 us of CPU in each
-- transaction that made it, ~20 % of a grant or a release: a SQL function that cannot be inlined (its SET
-- search_path forbids it) is parsed and planned again in every transaction that calls it, because its cache
-- lives no longer than the calling query or PL/pgSQL's per-transaction expression state. A PL/pgSQL function
-- keeps its plan for the session: ~15 us a call. Every grant, renewal and release reads the clock once, and
-- so do the guards that decide on time (a takeover, a sweep, a recovery).
--
-- CREATE OR REPLACE keeps the function's owner and its EXECUTE grants but drops its settings: the pin is set
-- again here, in the same transaction.
CREATE OR REPLACE FUNCTION sovereign_now_ms() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- clock_timestamp(), not now(): now() is the transaction's start. floor(): never rounded into the future.
    RETURN coalesce((SELECT pinned_ms FROM server_clock WHERE id = 1),
                    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
END
$$;

DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_now_ms() SET search_path = pg_catalog, %I, pg_temp', current_schema());
END
$$;
