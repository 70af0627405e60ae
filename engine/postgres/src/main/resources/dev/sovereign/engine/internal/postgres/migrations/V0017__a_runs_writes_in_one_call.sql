-- Sovereign PostgreSQL schema, version 17: the common case of an attempt's start and of a run's terminal write as
-- ONE call each (issue 28; decision 0921). Applied migrations are never edited.
--
-- Until version 16 an attempt's start sent ten statements before its COMMIT (the assignment, the token counter FOR
-- UPDATE, the actor's lease FOR SHARE, the assignment FOR UPDATE, the server's clock, the counter for the sanity
-- check, the mint, the attempt INSERT, the assignment UPDATE, the journal row) and a terminal write eight (the
-- lease FOR SHARE, the attempt FOR UPDATE, the clock, the counter, the fenced UPDATE, the receipt, the attempt
-- DONE, the journal row). These functions send the same statements from inside the server, in the same order
-- (decision 0900: token counter, lease, attempt, assignment), with the times from sovereign_now_ms() read once
-- after the locks, and write the rows and the journal row the engine's full path (JdbcRuns) writes. They do ONLY
-- the simple case; otherwise they write nothing and return no row, and the engine runs its full path in the same
-- transaction, which asks the rule book (RunRules) and words every refusal:
--   * sovereign_attempt_start  — a CREATED assignment with no attempt yet, whose actor's lease is the caller's
--                                with the presented token, sane, and live at the server's clock by its effective
--                                expiry (LeaseSql.effective): mint, INSERT the ACTIVE attempt bound to the lease
--                                token, the assignment to RUNNING pointing at it, journal ATTEMPT_STARTED. A
--                                RUNNING assignment (a supersede or a refusal), an ended one, a lease that is not
--                                the caller's, another token, expired or corrupt: nothing.
--   * sovereign_attempt_finish — the full path's fenced terminal UPDATE (the assignment is RUNNING under this
--                                attempt, and the actor's lease still carries the attempt's bound token and the
--                                caller), the receipt, the attempt DONE, journal ATTEMPT_DONE, after the same
--                                sanity check of the lease. A corrupt lease row, no row matched, a status other
--                                than completed, blocked or failed (or a NULL outcome flag): nothing. Returns the ended assignment, the attempt and the receipt.
-- "Sane" is LeaseRules.corruption: a token the counter issued, an expiry a renewal could have written.
--
-- No way around the fence: SECURITY INVOKER (checked on every open, as for the guards); every row they write passes
-- the same triggers (the attempt's token minted in this transaction, bound to the actor's current lease, started by
-- its process's login; the terminal write by the attempt the pointer names, under its bound lease); a caller does
-- through them what its own privileges let it do by hand. VOLATILE: each statement reads after the one before it.
-- EXECUTE is taken from PUBLIC and given to the worker group role (decision 0902).

CREATE FUNCTION sovereign_attempt_start(p_assignment text, p_attempt text, p_process text, p_lease_token bigint, p_ttl_ms bigint) RETURNS SETOF execution_attempts LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    seen assignments%ROWTYPE;
    held actor_leases%ROWTYPE;
    last_issued bigint;
    beat bigint;
    now_ms bigint;
    minted bigint;
    started execution_attempts%ROWTYPE;
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms <= 0 THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM assignments WHERE id = p_assignment;
    IF NOT FOUND OR seen.state <> 'CREATED' OR seen.current_attempt IS NOT NULL THEN
        RETURN;
    END IF;
    SELECT last_token INTO last_issued FROM token_counter WHERE id = 1 FOR UPDATE;
    SELECT * INTO held FROM actor_leases WHERE actor_id = seen.actor_id FOR SHARE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO seen FROM assignments WHERE id = p_assignment FOR UPDATE;
    IF NOT FOUND OR seen.state <> 'CREATED' OR seen.current_attempt IS NOT NULL THEN
        RETURN;
    END IF;
    now_ms := sovereign_now_ms();
    IF held.process_identity IS DISTINCT FROM p_process OR held.token IS DISTINCT FROM p_lease_token
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
    INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity, token, lease_token, state, ttl_ms,
                                    started_at, renewed_at, expires_at)
        VALUES (p_attempt, seen.id, seen.actor_id, p_process, minted, p_lease_token, 'ACTIVE', p_ttl_ms,
                now_ms, now_ms, now_ms + p_ttl_ms)
        RETURNING * INTO started;
    UPDATE assignments SET state = 'RUNNING', current_attempt = p_attempt, updated_at = now_ms
        WHERE id = seen.id AND state = 'CREATED' AND current_attempt IS NULL;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'ATTEMPT_STARTED', 'attempt', p_attempt, seen.actor_id, p_process, minted,
                'assignment ' || seen.id || '; bound to actor lease token ' || p_lease_token || '; ttl ' || p_ttl_ms || ' ms');
    RETURN NEXT started;
END
$$;

CREATE FUNCTION sovereign_attempt_finish(p_attempt text, p_process text, p_status text, p_failure_category text, p_outcome_known integer, p_summary text, OUT ended assignments, OUT done execution_attempts, OUT receipt receipts) RETURNS SETOF record LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    attempt execution_attempts%ROWTYPE;
    held actor_leases%ROWTYPE;
    terminal text;
    now_ms bigint;
BEGIN
    -- RunRules.terminalState
    terminal := CASE p_status WHEN 'completed' THEN 'COMPLETED' WHEN 'blocked' THEN 'BLOCKED' WHEN 'failed' THEN 'FAILED' END;
    IF terminal IS NULL OR p_outcome_known IS NULL THEN
        RETURN;
    END IF;
    SELECT * INTO attempt FROM execution_attempts t WHERE t.id = p_attempt;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO held FROM actor_leases l WHERE l.actor_id = attempt.actor_id FOR SHARE;
    IF FOUND AND (held.token <= 0 OR held.token > (SELECT c.last_token FROM token_counter c WHERE c.id = 1)
            OR held.ttl_ms <= 0 OR held.expires_at > held.renewed_at + held.ttl_ms) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM execution_attempts t WHERE t.id = p_attempt FOR UPDATE;
    now_ms := sovereign_now_ms();
    UPDATE assignments a SET state = terminal, current_attempt = NULL, updated_at = now_ms,
            ended_by_attempt = p_attempt, ended_via = 'attempt'
        WHERE a.id = attempt.assignment_id AND a.state = 'RUNNING' AND a.current_attempt = p_attempt
            AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = a.actor_id
                        AND l.token = attempt.lease_token AND l.process_identity = p_process)
        RETURNING a.* INTO ended;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status, failure_category,
                          outcome_known, summary, created_at)
        VALUES (attempt.assignment_id, p_attempt, attempt.token, attempt.process_identity, p_status,
                p_failure_category, p_outcome_known, p_summary, now_ms)
        RETURNING * INTO receipt;
    UPDATE execution_attempts t SET state = 'DONE', ended_at = now_ms WHERE t.id = p_attempt AND t.state = 'ACTIVE'
        RETURNING t.* INTO done;
    IF NOT FOUND THEN
        -- as the full path's changedUnderLock: the whole transaction runs again (PgDatabase.write)
        RAISE EXCEPTION 'attempt % changed under its row lock (current, not ACTIVE)', p_attempt USING ERRCODE = '40001';
    END IF;
    INSERT INTO fence_events (at, kind, resource_type, resource_id, actor_id, process_identity, token, detail)
        VALUES (now_ms, 'ATTEMPT_DONE', 'attempt', p_attempt, attempt.actor_id, p_process, attempt.token,
                'assignment ' || attempt.assignment_id || ' → ' || terminal || '; receipt ' || receipt.id);
    RETURN NEXT;
END
$$;

DO $$
DECLARE
    suffix text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker text := 'sovereign_' || suffix || '_worker';
BEGIN
    EXECUTE format('ALTER FUNCTION sovereign_attempt_start(text, text, text, bigint, bigint) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION sovereign_attempt_finish(text, text, text, text, integer, text) SET search_path = pg_catalog, %I, pg_temp', current_schema());
    REVOKE EXECUTE ON FUNCTION sovereign_attempt_start(text, text, text, bigint, bigint),
        sovereign_attempt_finish(text, text, text, text, integer, text) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION sovereign_attempt_start(text, text, text, bigint, bigint),'
        ' sovereign_attempt_finish(text, text, text, text, integer, text) TO %I', worker);
END
$$;
