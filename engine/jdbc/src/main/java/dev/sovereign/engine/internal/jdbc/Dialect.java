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
     * Whether a writer locks the rows it read and re-reads them before it changes them: true on PostgreSQL (READ
     * COMMITTED: another transaction may change a row between this one's read and its write, so the rows are locked
     * in decision 0900's order first); false on SQLite, where the transaction holds the file's one write lock from
     * its first statement and a second read would only cost a statement.
     */
    boolean locksRows();

    /** The null-safe equality operator ({@code IS} on SQLite, {@code IS NOT DISTINCT FROM} on PostgreSQL). */
    String isNotDistinctFrom();

    /**
     * {@code column} as an {@code ORDER BY} key in byte order, so both backends list ids alike: SQLite's default
     * collation already compares bytes; PostgreSQL's follows the database's locale unless told {@code COLLATE "C"}.
     */
    String byteOrder(String column);

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
        public boolean locksRows() {
            return false;
        }

        @Override
        public String isNotDistinctFrom() {
            return "IS";

        }

        @Override
        public String byteOrder(String column) {
            return column;
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
        public boolean locksRows() {
            return true;
        }

        @Override
        public String isNotDistinctFrom() {
            return "IS NOT DISTINCT FROM";

        }

        @Override
        public String byteOrder(String column) {
            return column + " COLLATE \"C\"";
        }
    };
}
