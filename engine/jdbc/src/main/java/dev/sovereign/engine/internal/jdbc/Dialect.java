package dev.sovereign.engine.internal.jdbc;

/**
 * What SQLite and PostgreSQL say differently, in the few words the shared stores need. Each backend has one
 * instance; a store never branches on the backend's name, only on these words and on {@link JdbcTx}'s hooks.
 */
public interface Dialect {
    /** The backend's name, for messages. */
    String name();

    /** The two-argument maximum of two values ({@code max} on SQLite, {@code greatest} on PostgreSQL). */
    String greatest();

    /** The test of a boolean flag column ({@code attached = 1} on SQLite, {@code attached} on PostgreSQL). */
    String isTrue(String column);

    /**
     * What ends a {@code SELECT} that reads a row this transaction will change: {@code " FOR UPDATE"} on PostgreSQL
     * (the row lock makes the read and the write one step), empty on SQLite (the transaction already holds the
     * file's one write lock).
     */
    String forUpdate();

    /**
     * What ends a {@code SELECT} that reads a row this transaction relies on but does not change: {@code " FOR SHARE"}
     * on PostgreSQL (a writer of that row, such as a takeover of a lease, waits for this transaction), empty on SQLite
     * (the file's one write lock already excludes every other writer).
     */
    String forShare();

    /** A boolean flag's value as a SQL literal: {@code 1}/{@code 0} on SQLite, {@code true}/{@code false} on PostgreSQL. */
    String literal(boolean value);

    /** SQLite's words. */
    Dialect SQLITE = new Dialect() {
        @Override
        public String name() {
            return "sqlite";
        }

        @Override
        public String greatest() {
            return "max";
        }

        @Override
        public String isTrue(String column) {
            return column + " = 1";
        }

        @Override
        public String forUpdate() {
            return "";
        }

        @Override
        public String forShare() {
            return "";
        }

        @Override
        public String literal(boolean value) {
            return value ? "1" : "0";
        }
    };

    /** PostgreSQL's words. */
    Dialect POSTGRES = new Dialect() {
        @Override
        public String name() {
            return "postgres";
        }

        @Override
        public String greatest() {
            return "greatest";
        }

        @Override
        public String isTrue(String column) {
            return column;
        }

        @Override
        public String forUpdate() {
            return " FOR UPDATE";
        }

        @Override
        public String forShare() {
            return " FOR SHARE";
        }

        @Override
        public String literal(boolean value) {
            return value ? "true" : "false";
        }
    };
}
