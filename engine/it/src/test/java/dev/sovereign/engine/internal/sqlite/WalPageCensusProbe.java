package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.testing.Sqlite;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Development aid (decision 0507): which B-trees each single-lease operation writes to the WAL. Like
 * {@code WalCensus} it turns automatic checkpoints off and lets the {@code -wal} file grow, then reads
 * the page number of every frame the operation appended and names its B-tree from SQLite's
 * {@code dbstat} table (a table, an index, {@code sqlite_sequence}, a counter). Prints pages per
 * operation by B-tree. Run: {@code java -cp <engine/it test classpath> dev.sovereign.engine.bench.WalPageCensusProbe}.
 */
public final class WalPageCensusProbe {
    private static final int TIMES = 50;

    private WalPageCensusProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("wal-page-census");
        try (Engine e = Engine.open(EngineConfig.forDatabase(dir.resolve("sovereign.db"))
                .durability(Durability.NORMAL)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(60))
                .processKind("bench")
                .build())) {
            e.actors().add("cycled");
            e.actors().add("renewed");
            e.actors().add("worker");
            // some history, so the journal's and the leases' B-trees are not all in one page
            for (int i = 0; i < 300; i++) {
                e.actors().add("other-" + i);
                e.leases().acquire("other-" + i, Duration.ofMinutes(10));
            }
            Lease renewed = e.leases().acquire("renewed", Duration.ofDays(1));
            Lease[] held = new Lease[1];
            print(
                    "acquire",
                    census(
                            e,
                            () -> held[0] = e.leases().acquire("cycled", Duration.ofMinutes(10)),
                            () -> e.leases().release("cycled", held[0].token())));
            held[0] = e.leases().acquire("cycled", Duration.ofMinutes(10));
            print(
                    "release",
                    census(
                            e,
                            () -> e.leases().release("cycled", held[0].token()),
                            () -> held[0] = e.leases().acquire("cycled", Duration.ofMinutes(10))));
            e.leases().release("cycled", held[0].token());
            print("renew", census(e, () -> e.leases().renew("renewed", renewed.token()), () -> {}));
            print("heartbeat, 301 leases", census(e, e::heartbeatNow, () -> {}));
            e.leases().acquire("worker", Duration.ofDays(1));
            Deque<String> messages = new ArrayDeque<>();
            for (int i = 0; i < 2 * TIMES + 4; i++) {
                messages.add(e.mailbox().send("bench", "worker", "job", null).id());
            }
            String[] current = new String[1];
            Claim[] claim = new Claim[1];
            print(
                    "claim",
                    census(
                            e,
                            () -> {
                                current[0] = messages.pop();
                                claim[0] = e.mailbox().claim(current[0], "worker", Duration.ofMinutes(5));
                            },
                            () -> e.mailbox().complete(current[0], claim[0].token())));
            current[0] = messages.pop();
            claim[0] = e.mailbox().claim(current[0], "worker", Duration.ofMinutes(5));
            print("complete", census(e, () -> e.mailbox().complete(current[0], claim[0].token()), () -> {
                current[0] = messages.pop();
                claim[0] = e.mailbox().claim(current[0], "worker", Duration.ofMinutes(5));
            }));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void print(String op, Map<String, Double> pages) {
        double total = pages.values().stream().mapToDouble(Double::doubleValue).sum();
        System.out.printf("%-22s %5.2f pages:", op, total);
        pages.forEach((k, v) -> System.out.printf(" %s %.2f;", k, v));
        System.out.println();
    }

    /**
     * Pages per run of {@code measured}, by B-tree; {@code between} runs between two measured runs (a
     * release between two acquires) and its pages are not counted: the WAL is read after each step.
     */
    static Map<String, Double> census(Engine e, Runnable measured, Runnable between) throws Exception {
        Connection c = Sqlite.database(e).connection();
        Path wal = Path.of(Sqlite.database(e).file() + "-wal");
        Sqlite.database(e).backgroundCheckpoints().pause(true); // its passes would let the log start again
        long pageSize;
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            s.execute("PRAGMA wal_autocheckpoint = 0");
            pageSize = scalar(s, "PRAGMA page_size");
        }
        Map<Integer, Integer> frames = new HashMap<>();
        try {
            measured.run();
            between.run();
            for (int i = 0; i < TIMES; i++) {
                long before = Files.size(wal);
                measured.run();
                long after = Files.size(wal);
                readFrames(wal, before, after, pageSize, frames);
                between.run();
            }
            Map<Integer, String> owner = owners(c);
            Map<String, Double> out = new TreeMap<>();
            frames.forEach(
                    (page, n) -> out.merge(owner.getOrDefault(page, "(free/other)"), n / (double) TIMES, Double::sum));
            return out;
        } finally {
            Sqlite.database(e).backgroundCheckpoints().pause(false);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_autocheckpoint = 1000");
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
        }
    }

    private static void readFrames(Path wal, long from, long to, long pageSize, Map<Integer, Integer> frames)
            throws Exception {
        try (FileChannel ch = FileChannel.open(wal, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(4);
            for (long at = from; at + 24 + pageSize <= to; at += 24 + pageSize) {
                header.clear();
                ch.read(header, at);
                header.flip();
                frames.merge(header.getInt(), 1, Integer::sum);
            }
        }
    }

    private static Map<Integer, String> owners(Connection c) throws SQLException {
        Map<Integer, String> out = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT name, pageno FROM dbstat")) {
            while (rs.next()) {
                out.put(rs.getInt(2), rs.getString(1));
            }
        }
        return out;
    }

    private static long scalar(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
