package dev.sovereign.engine.reliability.fuzz;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A digest of every table of a database (plain JDBC, test code), with the fence journal's
 * {@code REJECTED} rows counted apart: a refused call may add its own rejection row and nothing else.
 */
public final class LedgerDigest {
    private LedgerDigest() {}

    /** The digest of everything but REJECTED rows (and SQLite's own autoincrement bookkeeping). */
    public record Snapshot(String digest, long rejectedRows) {}

    public static Snapshot of(Path database) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = 10000");
            c.setAutoCommit(false);
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                List<String> tables = new ArrayList<>();
                List<String> withoutRowid = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT m.name, t.wr FROM sqlite_master m"
                        + " JOIN pragma_table_list t ON t.name = m.name AND t.schema = 'main'"
                        + " WHERE m.type = 'table' AND m.name <> 'sqlite_sequence' ORDER BY m.name")) {
                    while (rs.next()) {
                        tables.add(rs.getString(1));
                        if (rs.getInt(2) == 1) {
                            withoutRowid.add(rs.getString(1));
                        }
                    }
                }
                for (String table : tables) {
                    if (table.equals("lease_contention")) {
                        continue; // refusals counted, not rows of state: counted with the REJECTED rows below
                    }
                    String where = table.equals("fence_events") ? " WHERE kind <> 'REJECTED'" : "";
                    sha.update(("table " + table + "\n").getBytes(StandardCharsets.UTF_8));
                    try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + where + " ORDER BY "
                            + (withoutRowid.contains(table) ? "1" : "rowid"))) { // actor_leases: keyed by actor_id (v6)
                        int columns = rs.getMetaData().getColumnCount();
                        while (rs.next()) {
                            // Each value's bytes as the database holds them, with its length first, so neither
                            // a value's text nor a separator inside it can make two different rows hash alike.
                            for (int i = 1; i <= columns; i++) {
                                byte[] value = rs.getBytes(i);
                                sha.update(ByteBuffer.allocate(4)
                                        .putInt(value == null ? -1 : value.length)
                                        .array());
                                if (value != null) {
                                    sha.update(value);
                                }
                            }
                        }
                    }
                }
                long rejected;
                try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM fence_events WHERE kind = 'REJECTED')"
                        + " + (SELECT coalesce(sum(refusals - 1), 0) FROM lease_contention)")) {
                    rejected = rs.next() ? rs.getLong(1) : 0;
                }
                return new Snapshot(HexFormat.of().formatHex(sha.digest()), rejected);
            } finally {
                c.rollback();
            }
        } catch (SQLException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot digest " + database, e);
        }
    }
}
