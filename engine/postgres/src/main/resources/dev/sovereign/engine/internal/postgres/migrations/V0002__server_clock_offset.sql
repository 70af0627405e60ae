-- Sovereign PostgreSQL schema, version 2: a way for the ledger's OWNER to pin the server's clock, for the
-- engine's contract tests, and the order of sending of messages (docs/decisions/0901-a-pinned-server-clock-
-- for-tests.md). Applied migrations are never edited; this one replaces sovereign_now_ms(), adds one
-- guarded table and one column.
--
-- The engine's tests move a SettableClock; on PostgreSQL every expiry decision, in the adapter and in
-- the guards, reads sovereign_now_ms() on the server. A pinned value makes the server's clock read exactly
-- the test's clock. In production the row's pinned_ms is NULL and the clock is clock_timestamp(); every
-- open refuses a ledger whose clock is pinned unless the opening JVM is a test's (PgServerClock).
--
-- Who may write it: only the table's owner (or a superuser). The worker roles of issue 19 may write the
-- other tables, never this one: a worker that could move the clock could make a live lease look expired.
-- A session setting (a custom GUC) is deliberately not used: any role can set one.

CREATE TABLE server_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    pinned_ms BIGINT
);
INSERT INTO server_clock (id, pinned_ms) VALUES (1, NULL);

-- server_clock_owner_only, server_clock_single_row
CREATE FUNCTION server_clock_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'fence: only the ledger''s owner may pin the server''s clock' USING ERRCODE = 'SV001';
    END IF;
    IF TG_OP = 'INSERT' OR TG_OP = 'DELETE' OR NEW.id IS DISTINCT FROM OLD.id THEN
        RAISE EXCEPTION 'fence: the server clock has one row: it is never inserted again, replaced or deleted' USING ERRCODE = 'SV001';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER server_clock_guard BEFORE INSERT OR DELETE OR UPDATE ON server_clock FOR EACH ROW EXECUTE FUNCTION server_clock_guard();
CREATE TRIGGER server_clock_never_truncated BEFORE TRUNCATE ON server_clock FOR EACH STATEMENT EXECUTE FUNCTION sovereign_refuse('fence: the server clock has one row: it is never inserted again, replaced or deleted');

-- The order of sending. SQLite lists an inbox by (created_at, rowid); PostgreSQL has no rowid, and two
-- messages sent in the same millisecond (always, under a pinned clock) would otherwise come back in the
-- order of their random ids. An identity column: drawn by the insert, and an UPDATE can only set it to
-- DEFAULT, which the messages' own guard does not need to restate.
ALTER TABLE messages ADD COLUMN sent_seq BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE INDEX messages_inbox_in_order ON messages (recipient, state, created_at, sent_seq);

-- The server's clock: the pinned value when the owner pinned one (tests only), else clock_timestamp().
CREATE OR REPLACE FUNCTION sovereign_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT coalesce((SELECT pinned_ms FROM server_clock WHERE id = 1),
                    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)
$$;

-- As in version 1: every function sees only the built-ins and the ledger (CREATE OR REPLACE dropped the
-- pin of sovereign_now_ms), and every guard fires in every session.
DO $$
DECLARE
    f record;
    t record;
BEGIN
    FOR f IN SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = current_schema() AND p.proname LIKE ANY (ARRAY['sovereign\_%', '%\_guard%', '%\_tombstone']) LOOP
        EXECUTE format('ALTER FUNCTION %I() SET search_path = pg_catalog, %I, pg_temp', f.proname, current_schema());
    END LOOP;
    FOR t IN SELECT g.tgname, c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
             JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE NOT g.tgisinternal AND n.nspname = current_schema() LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER %I', t.relname, t.tgname);
    END LOOP;
END
$$;
