-- Sovereign schema, version 4: the file records which Sovereign migrated it. Applied migrations are
-- never edited; schema versions are forward-only (an older Sovereign refuses a newer file).
--
-- One row per schema version from 4 on, written by the migrator in the same transaction as that
-- version's migration (so a row exists exactly when the migration committed): the Sovereign version
-- and Git commit that applied it, and when. The row with the highest schema_version names the
-- Sovereign that last migrated the file (`sovereign status` shows it). Versions 1-3 predate the
-- record: a file created before version 4 gains its first row when it is migrated to 4.
-- The history is append-only: a row is never changed, deleted or replaced.
CREATE TABLE schema_migrations (
    schema_version    INTEGER PRIMARY KEY CHECK (schema_version >= 4),
    sovereign_version TEXT    NOT NULL,
    sovereign_commit  TEXT    NOT NULL,
    migrated_at       INTEGER NOT NULL
);
CREATE TRIGGER schema_migrations_never_replaced BEFORE INSERT ON schema_migrations
WHEN EXISTS (SELECT 1 FROM schema_migrations WHERE schema_version = NEW.schema_version)
BEGIN SELECT RAISE(ABORT, 'the migration record is append-only'); END;
CREATE TRIGGER schema_migrations_never_updated BEFORE UPDATE ON schema_migrations
BEGIN SELECT RAISE(ABORT, 'the migration record is append-only'); END;
CREATE TRIGGER schema_migrations_never_deleted BEFORE DELETE ON schema_migrations
BEGIN SELECT RAISE(ABORT, 'the migration record is append-only'); END;
