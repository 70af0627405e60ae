-- Sovereign PostgreSQL schema, version 3: the two group roles of issue 19 and exactly what each may do
-- (docs/decisions/0902-postgresql-roles.md, docs/postgres.md section Roles). Applied migrations are never
-- edited; a later migration that adds a table grants on it in the same script.
--
-- The roles are cluster-wide, one server may hold several ledgers: they are named after the database,
-- and after the schema too when the ledger is not in public:
--   sovereign_<database>_worker      sovereign_<database>_operator
--   sovereign_<database>_<schema>_worker ...
-- Both are NOLOGIN group roles; people and hosts log in with their own roles that are members
-- (CREATE ROLE host_a LOGIN IN ROLE sovereign_ledger_worker). Creating them needs CREATEROLE (or a
-- superuser); when an administrator created them beforehand, the owner only grants (no CREATEROLE needed).
--
-- The worker gets what the engine's own operations write, nothing else: no TRUNCATE, TRIGGER, REFERENCES
-- anywhere, no UPDATE on a sequence (setval), no CREATE on the schema, no write at all to server_clock,
-- ledger_mark or schema_migrations, only INSERT on the journal and the receipts (the guards refuse an
-- UPDATE or DELETE of them too: two walls). USAGE on the sequences: the journal's guard reads currval of
-- its own sequence. The operator is a worker that may also add actors and record supervisor passes.

DO $$
DECLARE
    suffix   text := current_database() || CASE WHEN current_schema() = 'public' THEN '' ELSE '_' || current_schema() END;
    worker   text := 'sovereign_' || suffix || '_worker';
    operator text := 'sovereign_' || suffix || '_operator';
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = worker) THEN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT', worker);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = operator) THEN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT', operator);
    END IF;
    IF NOT pg_has_role(operator, worker, 'MEMBER') THEN
        EXECUTE format('GRANT %I TO %I', worker, operator);
    END IF;

    -- nobody else: no default privileges of PUBLIC on the ledger's tables and sequences
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM PUBLIC', current_schema());
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM PUBLIC', current_schema());
    -- PostgreSQL 14 and older let every role CREATE in public (a function shadowing a built-in, a table
    -- named like ours). Only the schema's owner can revoke it; for anyone else this is a warning and the
    -- administrator must do it (docs/postgres.md).
    IF current_schema() = 'public' AND pg_has_role((SELECT nspowner FROM pg_namespace WHERE nspname = 'public'), 'USAGE') THEN
        REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    END IF;

    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), worker);
    EXECUTE format('GRANT SELECT ON token_counter, processes, actors, lease_change_counter, actor_leases,'
        ' lease_tombstones, assignments, execution_attempts, receipts, messages, fence_events, supervisor_ticks,'
        ' ledger_mark, schema_migrations, server_clock TO %I', worker);
    EXECUTE format('GRANT UPDATE ON token_counter, lease_change_counter TO %I', worker);
    EXECUTE format('GRANT INSERT, UPDATE ON processes, lease_tombstones, assignments, execution_attempts, messages TO %I', worker);
    EXECUTE format('GRANT INSERT, UPDATE, DELETE ON actor_leases TO %I', worker);
    EXECUTE format('GRANT INSERT ON receipts, fence_events TO %I', worker);
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO %I', current_schema(), worker);
    EXECUTE format('GRANT INSERT ON actors, supervisor_ticks TO %I', operator);
END
$$;
