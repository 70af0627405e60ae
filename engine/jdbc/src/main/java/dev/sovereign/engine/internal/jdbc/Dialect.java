package dev.sovereign.engine.internal.jdbc;

import java.util.Collection;
import java.util.stream.Collectors;

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
     * The test of a boolean flag column being false ({@code attached = 0} on SQLite, {@code NOT attached} on
     * PostgreSQL): the very words of each schema's partial index on the flag, so the planner can use it.
     */
    String isFalse(String column);

    /**
     * The test that a whole-number column is one of a list bound as ONE parameter ({@link #longs}), so a statement
     * over any number of values stays one prepared statement.
     */
    String inLongs(String column);

    /** The one parameter {@link #inLongs} binds: a JSON array on SQLite (read by json_each), an array on PostgreSQL. */
    String longs(Collection<Long> values);

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

    /**
     * What ends a {@code SELECT} that reads a row this transaction relies on but does not change: {@code " FOR SHARE"}
     * on PostgreSQL (a writer of that row, such as a takeover of a lease, waits for this transaction), empty on SQLite
     * (the file's one write lock already excludes every other writer).
     */
    String forShare();

    /** A boolean flag's value as a SQL literal: {@code 1}/{@code 0} on SQLite, {@code true}/{@code false} on PostgreSQL. */
    String literal(boolean value);

    /**
     * A query of one whole number, the ledger's size on disk in bytes: the file's pages on SQLite (its write-ahead log
     * apart), the tables and indexes of the ledger's schema on PostgreSQL.
     */
    String sizeBytes();

    /** The seq of the journal row this transaction inserted last (an SQL expression, read in the same session). */
    String lastJournalSeq();

    /**
     * The statement that checks this transaction's foreign keys at its commit instead of after each statement, so a
     * prune deletes a run's assignment before the attempts and receipt that name it (decision 0020): {@code PRAGMA
     * defer_foreign_keys} on SQLite (reset at the commit), {@code SET CONSTRAINTS ALL DEFERRED} on PostgreSQL (only the
     * keys its schema made deferrable).
     */
    String deferForeignKeys();

    /**
     * A query of one whole number, the cursor of the console's incremental lease read (decision 0923): every lease row
     * or tombstone written after it was read carries a change marker above it. SQLite: the lease change counter (one
     * writer at a time, so markers are in commit order). PostgreSQL: one less than the oldest transaction still
     * running when the snapshot was taken; a lease write is marked with its own transaction's id.
     */
    String leaseChangeCursor();

    /**
     * Whether an unchanged {@link #leaseChangeCursor} means no lease row changed: true on SQLite (the counter moves
     * with every lease write); false on PostgreSQL, where a long transaction elsewhere holds the cursor still while
     * other transactions commit lease writes.
     */
    boolean leaseCursorMovesWithEveryWrite();

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
        public String isFalse(String column) {
            return column + " = 0";
        }

        @Override
        public String inLongs(String column) {
            return column + " IN (SELECT value FROM json_each(?))";
        }

        @Override
        public String longs(Collection<Long> values) {
            return values.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
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

        @Override
        public String forShare() {
            return "";
        }

        @Override
        public String literal(boolean value) {
            return value ? "1" : "0";
        }

        @Override
        public String sizeBytes() {
            return "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()";
        }

        @Override
        public String lastJournalSeq() {
            return "last_insert_rowid()";
        }

        @Override
        public String deferForeignKeys() {
            return "PRAGMA defer_foreign_keys = ON";
        }

        @Override
        public String leaseChangeCursor() {
            return "SELECT last_change FROM lease_change_counter WHERE id = 1";
        }

        @Override
        public boolean leaseCursorMovesWithEveryWrite() {
            return true;
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
        public String isFalse(String column) {
            return "NOT " + column;
        }

        @Override
        public String inLongs(String column) {
            return column + " = ANY (?::bigint[])";
        }

        @Override
        public String longs(Collection<Long> values) {
            return values.stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}"));
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

        @Override
        public String forShare() {
            return " FOR SHARE";
        }

        @Override
        public String literal(boolean value) {
            return value ? "true" : "false";
        }

        @Override
        public String sizeBytes() {
            return "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
                    + " AND c.relkind = 'r'";
        }

        @Override
        public String lastJournalSeq() {
            return "currval(pg_get_serial_sequence('fence_events', 'seq'))";
        }

        @Override
        public String deferForeignKeys() {
            return "SET CONSTRAINTS ALL DEFERRED";
        }

        @Override
        public String leaseChangeCursor() {
            return "SELECT txid_snapshot_xmin(txid_current_snapshot()) - 1";
        }

        @Override
        public boolean leaseCursorMovesWithEveryWrite() {
            return false;
        }
    };
}
