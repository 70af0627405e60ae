package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.testing.TestBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the attacker's SQL and the oracle's reads must say differently on each backend: which tables a ledger has,
 * how a row is replaced, which DDL exists, how the schema's objects are listed. Everything else in the suite is
 * written once. The attacker's statements use only what a hand-typed statement could: no engine class.
 */
enum Dialect {
    /** One file; the attacker is anyone who can write it (the sqlite3 shell), with no pragmas of the engine's. */
    SQLITE,
    /** A server; the attacker is another host's worker login (a member of the worker role, not the owner). */
    POSTGRES;

    /** The dialect of {@code backend}'s ledgers; the first call for a dialect reads their tables ({@link LedgerTables}). */
    static Dialect of(TestBackend backend) {
        Dialect d = backend.name().equals("postgres") ? POSTGRES : SQLITE;
        LedgerTables.read(d, backend);
        return d;
    }

    /** Every table of the ledger (as the database lists them, {@link LedgerTables}), in the order the oracle reads them. */
    List<String> tables() {
        return List.copyOf(LedgerTables.of(this).keySet());
    }

    /** The primary key of each table (one column each). */
    String key(String table) {
        LedgerTables.Table t = LedgerTables.of(this).get(table);
        return t == null ? "id" : t.key();
    }

    /** Whether the key is a number the database hands out (the journal's and the ticks' seq, a receipt's id). */
    boolean numericKey(String table) {
        LedgerTables.Table t = LedgerTables.of(this).get(table);
        return t != null && t.numericKey();
    }

    /** The statements that open the attacker's transaction ({@link #commit} closes it). */
    List<String> begin() {
        return this == SQLITE ? List.of("BEGIN IMMEDIATE") : List.of();
    }

    List<String> commit() {
        return this == SQLITE ? List.of("COMMIT") : List.of();
    }

    /**
     * The change marker a lease write must carry: the lease change counter, raised in the same transaction, on SQLite;
     * the writing transaction's own id on PostgreSQL (its schema version 18, decision 0923).
     */
    String changeMarker() {
        return this == SQLITE ? "(SELECT last_change FROM lease_change_counter WHERE id = 1)" : "txid_current()";
    }

    /**
     * A mint, as a grant, an attempt or a claim does it in its own transaction: one step of the one counter row on
     * SQLite; on PostgreSQL (schema version 19, decision 0924) one step of every stripe's row, locked in order, so the
     * statement after it finds its actor's stripe minted whichever actor it names.
     */
    String mint() {
        return this == SQLITE
                ? "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1"
                : "UPDATE token_counter SET last_token = last_token + 64"
                        + " WHERE id IN (SELECT id FROM token_counter ORDER BY id FOR UPDATE)";
    }

    /** The token just minted for the actor the SQL expression {@code actor} names (its stripe's, on PostgreSQL). */
    String token(String actor) {
        return this == SQLITE
                ? "(SELECT last_token FROM token_counter WHERE id = 1)"
                : "(SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe(" + actor + "))";
    }

    /** A boolean literal for the lease's {@code attached} flag. */
    String bool(boolean b) {
        return this == SQLITE ? (b ? "1" : "0") : (b ? "true" : "false");
    }

    /**
     * The replacing forms of writing {@code row} (columns and literals) over the row with the same key: REPLACE
     * INTO, INSERT OR REPLACE and an upsert on SQLite ({@code variant} 0, 1, 2); on PostgreSQL, which has no
     * REPLACE, INSERT ... ON CONFLICT DO UPDATE of every column.
     */
    String replace(String table, List<String> columns, List<String> values, int variant, List<String> identity) {
        String cols = String.join(", ", columns);
        String vals = String.join(", ", values);
        if (this == SQLITE && variant == 0) {
            return "REPLACE INTO " + table + " (" + cols + ") VALUES (" + vals + ")";
        }
        if (this == SQLITE && variant == 1) {
            return "INSERT OR REPLACE INTO " + table + " (" + cols + ") VALUES (" + vals + ")";
        }
        List<String> set = new ArrayList<>();
        for (String c : columns) {
            if (!c.equals(key(table)) && !identity.contains(c)) {
                set.add(c + " = excluded." + c);
            }
        }
        return insert(table, columns, values, identity) + " ON CONFLICT (" + key(table) + ") DO "
                + (set.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", set));
    }

    /** A plain INSERT of {@code values} into {@code columns}; on PostgreSQL a given identity column overrides. */
    String insert(String table, List<String> columns, List<String> values, List<String> identity) {
        boolean overriding = this == POSTGRES && columns.stream().anyMatch(identity::contains);
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ")"
                + (overriding ? " OVERRIDING SYSTEM VALUE" : "") + " VALUES (" + String.join(", ", values) + ")";
    }

    /** The columns of {@code table}, in order. */
    static List<String> columns(Connection c, Dialect d, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        String sql = d == SQLITE
                ? "SELECT name FROM pragma_table_info(?) ORDER BY cid"
                : "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                        + " AND table_name = ? ORDER BY ordinal_position";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** The columns of {@code table} the database fills in itself (PostgreSQL's GENERATED ALWAYS identities). */
    static List<String> identityColumns(Connection c, Dialect d, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        if (d == SQLITE) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT column_name FROM information_schema.columns"
                + " WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'"
                + " AND identity_generation = 'ALWAYS'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * Every object of the ledger's schema that could change what a statement on a ledger table does, one line
     * each ({@code kind name on table: definition}): on SQLite everything in {@code sqlite_master}; on PostgreSQL
     * the tables' triggers, rules, policies and row-level security, indexes, views and the schema's functions.
     */
    Set<String> schema(Connection c) throws SQLException {
        Set<String> out = new TreeSet<>();
        List<String> queries = this == SQLITE
                ? List.of(
                        "SELECT type || ' ' || name || ' on ' || tbl_name || ': ' || coalesce(sql, '') FROM sqlite_master")
                : List.of(
                        "SELECT 'trigger ' || g.tgname || ' on ' || r.relname || ': ' || pg_get_triggerdef(g.oid)"
                                + " || ' enabled ' || g.tgenabled::text FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid"
                                + " JOIN pg_namespace n ON n.oid = r.relnamespace WHERE NOT g.tgisinternal"
                                + " AND n.nspname = current_schema()",
                        "SELECT 'rule ' || rulename || ' on ' || tablename || ': ' || definition FROM pg_rules"
                                + " WHERE schemaname = current_schema()",
                        "SELECT 'policy ' || policyname || ' on ' || tablename || ': ' || coalesce(qual, '')"
                                + " FROM pg_policies WHERE schemaname = current_schema()",
                        "SELECT 'row security on ' || relname FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace"
                                + " WHERE n.nspname = current_schema() AND (r.relrowsecurity OR r.relforcerowsecurity)",
                        "SELECT 'index ' || indexname || ' on ' || tablename || ': ' || indexdef FROM pg_indexes"
                                + " WHERE schemaname = current_schema()",
                        "SELECT 'view ' || viewname || ': ' || definition FROM pg_views WHERE schemaname = current_schema()",
                        "SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || '): '"
                                + " || md5(p.prosrc) || ' ' || coalesce(array_to_string(p.proconfig, '|'), '')"
                                + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                                + " WHERE n.nspname = current_schema()");
        try (Statement s = c.createStatement()) {
            for (String q : queries) {
                try (ResultSet rs = s.executeQuery(q)) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
            }
        }
        return out;
    }
}
