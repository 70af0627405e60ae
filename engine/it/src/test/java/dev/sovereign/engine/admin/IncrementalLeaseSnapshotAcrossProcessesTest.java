package dev.sovereign.engine.admin;

import static dev.sovereign.engine.admin.LeaseSnapshots.assertSameLeases;
import static dev.sovereign.engine.admin.LeaseSnapshots.fullRead;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.sqlite.SqliteAdminReader;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease change marker across OS processes: child JVMs churn leases while this process's
 * long-lived reader snapshots incrementally; at quiescent points (every child SIGSTOPped and seen
 * stopped by the OS) its snapshot must equal a fresh reader's full read.
 */
class IncrementalLeaseSnapshotAcrossProcessesTest {
    private static final int WORKERS = 3;
    private static final int ACTORS = 40;
    private static final int ROUNDS = 12;

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final Clock clock = Clock.systemUTC();

    @Test
    void incrementalSnapshotsEqualFullReadsWhileOtherProcessesChurnTheLeases() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs /proc to see that a child is stopped");
        try (Engine setup = Engine.open(temp.config(clock).build())) {
            for (int i = 0; i < ACTORS; i++) {
                setup.actors().add("actor-" + i);
            }
        }
        Path stop = temp.dir().resolve("stop");
        List<Process> children = new ArrayList<>();
        try (SqliteAdminReader reader = SqliteAdminReader.open(temp.file(), clock, ZoneOffset.UTC);
                Connection plain = DriverManager.getConnection("jdbc:sqlite:" + temp.file())) {
            for (int i = 0; i < WORKERS; i++) {
                Path log = temp.dir().resolve("churn-" + i + ".log");
                children.add(ChildJvm.start(
                        LeaseChurnWorker.class,
                        log,
                        temp.file().toString(),
                        stop.toString(),
                        Long.toString(7919L * (i + 1)),
                        Integer.toString(i),
                        Integer.toString(ACTORS)));
            }
            for (int i = 0; i < WORKERS; i++) {
                ChildJvm.awaitLine(temp.dir().resolve("churn-" + i + ".log"), "READY", Duration.ofSeconds(60));
            }
            int snapshots = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // let the children write; meanwhile snapshot incrementally, concurrently with their commits
                long target = lastChange(plain) + 40;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (lastChange(plain) < target) {
                    assertThat(System.nanoTime())
                            .as("the children keep writing")
                            .isLessThan(deadline);
                    reader.snapshot();
                    snapshots++;
                }
                compareWhilePaused(reader, children, "round " + round);
                snapshots++;
            }
            // the history must have had everything in it: run on (still snapshotting) until it has
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!historyIsComplete(plain)) {
                assertThat(System.nanoTime())
                        .as("a takeover, a refusal, a release and new actors within 60 s")
                        .isLessThan(deadline);
                reader.snapshot();
                snapshots++;
            }
            compareWhilePaused(reader, children, "the last round");
            snapshots++;
            Files.writeString(stop, "stop");
            for (int i = 0; i < WORKERS; i++) {
                Process child = children.get(i);
                assertThat(child.waitFor(60, TimeUnit.SECONDS))
                        .as("churn %d stops", i)
                        .isTrue();
                assertThat(child.exitValue())
                        .as("churn %d exit: %s", i, Files.readString(temp.dir().resolve("churn-" + i + ".log")))
                        .isZero();
            }
            // after every child closed its engine (releasing what it held): quiescent for good
            assertSameLeases(reader.snapshot(), fullRead(temp.file(), clock), "after the children stopped");
            snapshots++;

            assertThat(reader.fullLeaseReads())
                    .as("full reads among %d snapshots", snapshots)
                    .isLessThanOrEqualTo(1 + 15L);
        } finally {
            Files.writeString(stop, "stop");
            for (Process child : children) {
                if (child.isAlive()) {
                    ChildJvm.signal(child, "CONT");
                }
                ChildJvm.destroy(child);
            }
        }
    }

    /**
     * Pauses every child, waits until the OS reports all their threads stopped, then compares. A
     * stopped child commits nothing, which the reader's data_version confirms; should it not (or
     * should a reader meet a child stopped in the middle of publishing a commit), the children run
     * on a little and the comparison is tried again.
     */
    private void compareWhilePaused(SqliteAdminReader reader, List<Process> children, String context) throws Exception {
        for (int attempt = 1; ; attempt++) {
            for (Process child : children) {
                ChildJvm.signal(child, "STOP");
            }
            for (Process child : children) {
                awaitStopped(child);
            }
            try {
                AdminSnapshot incremental = reader.snapshot();
                AdminSnapshot full = fullRead(temp.file(), clock);
                if (reader.changeMarker() == incremental.changeMarker()) {
                    assertSameLeases(incremental, full, context);
                    return;
                }
            } catch (StorageException busy) {
                if (attempt >= 5) {
                    throw busy;
                }
            } finally {
                for (Process child : children) {
                    ChildJvm.signal(child, "CONT");
                }
            }
            assertThat(attempt)
                    .as("%s: a quiescent comparison within 5 attempts", context)
                    .isLessThan(5);
        }
    }

    /** Waits until every thread of {@code p} is stopped (Linux: state T in /proc/PID/task/TID/stat). */
    private static void awaitStopped(Process p) throws Exception {
        Path tasks = Path.of("/proc", Long.toString(p.pid()), "task");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            boolean allStopped = true;
            try (Stream<Path> list = Files.list(tasks)) {
                for (Path task : list.toList()) {
                    String stat;
                    try {
                        stat = Files.readString(task.resolve("stat"));
                    } catch (IOException gone) {
                        continue; // the thread ended
                    }
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (state != 'T' && state != 't') {
                        allStopped = false;
                        break;
                    }
                }
            }
            if (allStopped) {
                return;
            }
            assertThat(System.nanoTime()).as("child %d stops", p.pid()).isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(2);
        }
    }

    private static boolean historyIsComplete(Connection c) throws SQLException {
        for (String kind :
                List.of("LEASE_ACQUIRED", "LEASE_TAKEN_OVER", "LEASE_RENEWED", "LEASE_RELEASED", "REJECTED")) {
            if (scalar(c, "SELECT count(*) FROM fence_events WHERE kind = '" + kind + "'") == 0) {
                return false;
            }
        }
        return scalar(c, "SELECT count(*) FROM actors") > ACTORS;
    }

    private static long lastChange(Connection c) throws SQLException {
        return scalar(c, "SELECT last_change FROM lease_change_counter WHERE id = 1");
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.getLong(1);
        }
    }
}
