-- Sovereign PostgreSQL schema, version 15: a heartbeat's common case as ONE call (issue 28; decision 0919).
-- Applied migrations are never edited.
--
-- Until version 14 a beat sent three statements before its COMMIT: the server's clock, the session row's stamp
-- (with the token counter in its RETURNING) and the session check over the leases attached to the session
-- (decision 0509). sovereign_beat sends the same three from inside the server, in the same order, and returns
-- what they returned: the stamp the session guard wrote (NULL when the process has no row), the counter, and the
-- session check's two values over the sane attached rows. The engine decides everything else as before (whether
-- to read the rows themselves, to detach, what was lost), and takes its locks before the call as before
-- (decision 0913: the lease change counter when it may detach, the leases its attempts are bound to).
--
-- It must stay VOLATILE: in READ COMMITTED a volatile function takes a fresh snapshot for each statement, so the
-- session check reads after the stamp. A takeover locks the lease row and then this session row FOR SHARE; the
-- stamp waits for it, and the check then sees the takeover, as the separate statements did. One statement with
-- the check beside the stamp (a CTE) would read in the snapshot taken before the wait, and a beat and a takeover
-- of the same lease could both believe they hold it.
--
-- No way around the fence: SECURITY INVOKER (checked on every open, as for the guards), every row it writes
-- passes the same session guard (its login, the server's clock), and it writes only the caller's own process
-- row. EXECUTE is taken from PUBLIC and given to the worker group role (decision 0902).

CREATE FUNCTION sovereign_beat(p_process text, OUT beat_at bigint, OUT last_token bigint, OUT attached bigint, OUT token_residues numeric) RETURNS record LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    UPDATE processes SET heartbeat_at = sovereign_now_ms() WHERE identity = p_process
        RETURNING processes.heartbeat_at INTO beat_at;
    SELECT t.last_token INTO last_token FROM token_counter t WHERE t.id = 1;
    -- the session check (LeaseSql.checkColumns over JdbcHeartbeat's session rows, SessionCheck.P1): the count and
    -- the sum of the residues of the tokens, over this session's attached rows that are sane
    SELECT count(*), coalesce(sum(l.token % 4294967291), 0) INTO attached, token_residues
        FROM actor_leases l
        WHERE l.process_identity = p_process AND l.attached
            AND l.token > 0 AND l.token <= (SELECT c.last_token FROM token_counter c WHERE c.id = 1)
            AND l.ttl_ms > 0 AND l.expires_at <= l.renewed_at + l.ttl_ms;
END
$$;

DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_beat(text) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    REVOKE EXECUTE ON FUNCTION sovereign_beat(text) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_beat(text) TO %I', worker);
END
$$;
