package dev.sovereign.engine.attack.standing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything in a ledger that decides who holds what, read in one snapshot by the owner's connection: every row
 * of every table, each cell as the database stores it (on SQLite the storage class too: a text where a number
 * belongs reads back as a String), and the schema's objects. The oracle compares two of them. Immutable.
 */
record Facts(
        Map<String, List<Map<String, Object>>> tables,
        Set<String> schema,
        Map<String, Map<String, Map<String, Object>>> byKey) {

    Facts(Dialect d, Map<String, List<Map<String, Object>>> tables, Set<String> schema) {
        this(tables, schema, index(d, tables));
    }

    /** Each table's rows by their key as text, for the oracle's look-ups (a journal has thousands of rows). */
    private static Map<String, Map<String, Map<String, Object>>> index(
            Dialect d, Map<String, List<Map<String, Object>>> tables) {
        Map<String, Map<String, Map<String, Object>>> out = new HashMap<>();
        tables.forEach((t, rows) -> {
            Map<String, Map<String, Object>> keyed = new HashMap<>();
            for (Map<String, Object> r : rows) {
                keyed.putIfAbsent(String.valueOf(r.get(d.key(t))), r);
            }
            out.put(t, keyed);
        });
        return out;
    }

    static Facts read(Connection c, Dialect d) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            if (d == Dialect.POSTGRES) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            Map<String, List<Map<String, Object>>> tables = new LinkedHashMap<>();
            for (String t : d.tables()) {
                List<Map<String, Object>> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + t + " ORDER BY " + d.key(t))) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        Map<String, Object> row = new LinkedHashMap<>();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            row.put(md.getColumnName(i).toLowerCase(), rs.getObject(i));
                        }
                        rows.add(row);
                    }
                }
                tables.put(t, rows);
            }
            Set<String> schema = d.schema(c);
            c.commit();
            return new Facts(d, tables, schema);
        } finally {
            c.setAutoCommit(auto);
        }
    }

    List<Map<String, Object>> rows(String table) {
        return tables.getOrDefault(table, List.of());
    }

    /** The row of {@code table} whose key is {@code key} (compared as text), or null. */
    Map<String, Object> row(String table, Object key) {
        if (key == null) {
            return null;
        }
        return byKey.getOrDefault(table, Map.of()).get(key.toString());
    }

    /** The value of the token counter as stored (a Long when sane). */
    Object counter() {
        // one row on SQLite; on PostgreSQL one per stripe of actors (schema version 19): the counter is their greatest
        Long max = null;
        for (Map<String, Object> row : rows("token_counter")) {
            Long v = integer(row.get("last_token"));
            if (v == null) {
                return row.get("last_token");
            }
            max = max == null ? v : Math.max(max, v);
        }
        return max;
    }

    /**
     * What the counter row that issues {@code token} held: the one row on SQLite; on PostgreSQL the row of the stripe
     * {@code token} belongs to ({@code token mod 64}, schema version 19). Its integer value, or the largest one when
     * it is not an integer.
     */
    long counterValueFor(long token, boolean stripes) {
        if (!stripes) {
            return counterValue();
        }
        Map<String, Object> row = row("token_counter", Math.floorMod(token, 64L));
        Long v = row == null ? null : integer(row.get("last_token"));
        return v == null ? Long.MAX_VALUE : v;
    }

    /** The counter as a number, for bounds: its integer value, or the largest one when it is not an integer. */
    long counterValue() {
        Long v = integer(counter());
        return v == null ? Long.MAX_VALUE : v;
    }

    /** The largest token anything in the ledger carries (grants, attempts, claims), or 0. */
    long maxToken() {
        return maxToken(1, 0);
    }

    /** The same, of the tokens equal to {@code residue} modulo {@code modulus} only (a stripe's, on PostgreSQL). */
    long maxToken(long modulus, long residue) {
        long max = 0;
        for (String[] tc :
                new String[][] {{"actor_leases", "token"}, {"execution_attempts", "token"}, {"messages", "claim_token"}
                }) {
            for (Map<String, Object> r : rows(tc[0])) {
                Long v = integer(r.get(tc[1]));
                if (v != null) {
                    max = Math.floorMod(v, modulus) == residue ? Math.max(max, v) : max;
                }
            }
        }
        return max;
    }

    /**
     * A stored integer, or null when the cell holds anything else (NULL, a real, a text, a blob): the oracle's
     * test of type. SQLite hands back its storage class (an INTEGER cell is an Integer or a Long).
     */
    static Long integer(Object v) {
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof Integer i) {
            return i.longValue();
        }
        if (v instanceof Short s) {
            return s.longValue();
        }
        return null;
    }

    /** A boolean flag as either backend stores it (SQLite 0/1, PostgreSQL boolean); null when it is neither. */
    static Boolean flag(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        Long l = integer(v);
        if (l != null && (l == 0 || l == 1)) {
            return l == 1;
        }
        return null;
    }

    /** Whether two rows hold the same cells (a real equal to an integer is NOT the same cell). */
    static boolean same(Map<String, Object> x, Map<String, Object> y) {
        if (x == null || y == null) {
            return x == y;
        }
        if (!x.keySet().equals(y.keySet())) {
            return false;
        }
        for (String k : x.keySet()) {
            if (!sameCell(x.get(k), y.get(k))) {
                return false;
            }
        }
        return true;
    }

    static boolean sameCell(Object p, Object q) {
        if (p instanceof byte[] pb && q instanceof byte[] qb) {
            return Arrays.equals(pb, qb);
        }
        Long pl = integer(p);
        Long ql = integer(q);
        if (pl != null || ql != null) {
            return Objects.equals(pl, ql);
        }
        return Objects.equals(p, q) && (p == null || p.getClass() == q.getClass());
    }

    /** Each table whose rows differ between {@code this} and {@code other}, with the keys that differ. */
    List<String> differences(Facts other) {
        List<String> out = new ArrayList<>();
        for (String t : tables.keySet()) {
            List<Map<String, Object>> mine = rows(t);
            List<Map<String, Object>> theirs = other.rows(t);
            if (mine.size() != theirs.size()) {
                out.add(t + ": " + mine.size() + " rows became " + theirs.size());
                continue;
            }
            for (int i = 0; i < mine.size(); i++) {
                if (!same(mine.get(i), theirs.get(i))) {
                    out.add(t + ": " + mine.get(i) + " became " + theirs.get(i));
                }
            }
        }
        if (!schema.equals(other.schema)) {
            out.add("schema: "
                    + other.schema.stream().filter(o -> !schema.contains(o)).toList() + " added, "
                    + schema.stream().filter(o -> !other.schema.contains(o)).toList() + " removed");
        }
        return out;
    }
}
