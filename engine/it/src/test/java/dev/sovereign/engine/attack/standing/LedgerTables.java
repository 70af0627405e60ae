package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.testing.TestBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ledger's tables as a fresh ledger of the backend under test has them — read from the database, not listed
 * here, so that a table a migration adds is attacked the first time the suite runs after it (its rows judged by
 * the {@link Oracle} only once someone teaches it the table: until then an accepted write to it is a violation of
 * its own, {@code [table.unjudged]}). Read once per JVM and dialect. Thread-safe.
 */
final class LedgerTables {
    /** One table: its name, its primary key (one column), whether that key is a number, and its columns. */
    record Table(String name, String key, boolean numericKey, List<String> columns) {}

    private static final Map<Dialect, Map<String, Table>> TABLES = new EnumMap<>(Dialect.class);

    private LedgerTables() {}

    /** Every table of a ledger of {@code d}, by name, in the order the schema lists them. */
    static synchronized Map<String, Table> of(Dialect d) {
        Map<String, Table> tables = TABLES.get(d);
        if (tables == null) {
            throw new IllegalStateException("the tables of a " + d + " ledger were not read yet: Dialect.of(backend)"
                    + " reads them from a fresh ledger, a nemesis from the ledger it strikes");
        }
        return tables;
    }

    /** Reads the tables of a fresh ledger of {@code backend}, unless {@code d}'s were read already. */
    static synchronized void read(Dialect d, TestBackend backend) {
        if (!TABLES.containsKey(d)) {
            Path dir = null;
            LedgerLocation location = null;
            try {
                dir = Files.createTempDirectory("sovereign-attack-tables-");
                location = backend.freshLedger(dir, "tables");
                if (location.isFile()) {
                    Files.copy(World.template(), location.file().orElseThrow());
                }
                try (Connection c = World.connect(location)) {
                    TABLES.put(d, read(c, d));
                }
            } catch (IOException | SQLException e) {
                throw new IllegalStateException("cannot list the ledger's tables: " + e.getMessage(), e);
            } finally {
                if (location != null) {
                    backend.dispose(location);
                }
                if (dir != null) {
                    dir.resolve("tables.db").toFile().delete();
                    dir.toFile().delete();
                }
            }
        }
    }

    /** Reads the tables of the ledger {@code c} is connected to, unless {@code d}'s were read already. */
    static synchronized void read(Dialect d, Connection c) throws SQLException {
        if (!TABLES.containsKey(d)) {
            TABLES.put(d, read(c, d));
        }
    }

    private static Map<String, Table> read(Connection c, Dialect d) throws SQLException {
        List<String> names = new ArrayList<>();
        String list = d == Dialect.SQLITE
                ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rootpage"
                : "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.oid";
        try (PreparedStatement ps = c.prepareStatement(list);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        Map<String, Table> out = new LinkedHashMap<>();
        for (String t : names) {
            String keySql = d == Dialect.SQLITE
                    ? "SELECT name, upper(type) LIKE '%INT%' FROM pragma_table_info(?) WHERE pk = 1"
                    : "SELECT a.attname, format_type(a.atttypid, NULL) IN ('bigint', 'integer', 'smallint')"
                            + " FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                            + " WHERE i.indrelid = to_regclass(?) AND i.indisprimary";
            String key = null;
            boolean numeric = false;
            try (PreparedStatement ps = c.prepareStatement(keySql)) {
                ps.setString(1, t);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        key = rs.getString(1);
                        numeric = rs.getBoolean(2);
                    }
                }
            }
            List<String> columns = Dialect.columns(c, d, t);
            out.put(t, new Table(t, key == null ? columns.get(0) : key, numeric, List.copyOf(columns)));
        }
        return out;
    }
}
