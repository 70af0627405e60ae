package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign worker} on a ledger whose disk is really full (issue 26): a small tmpfs of this test's own,
 * filled to the last block by a plain file beside the ledger, so every write of the worker fails with SQLite's
 * "database or disk is full" while its reads still work. The worker must print a repeated error once and then a
 * count, not one line per retry, and say {@code lost} when its lease lapsed while its heartbeat could not write;
 * when the disk has room again it hosts again.
 *
 * <p>Mounting needs root (CI runs as root); elsewhere the test is skipped. What it proves: the worker's output
 * on a real ENOSPC from the kernel, through the CLI's own worker command; the clock that decides the lapse and
 * the repeat window is the test's settable clock, so no time is waited for but the worker's own idle waits.
 */
class CliWorkerFullDiskTest {
    @TempDir
    Path dir;

    private Path disk;
    private boolean mounted;
    private final SettableClock clock = new SettableClock();
    private final StopSignals.Stop stop = new StopSignals.Stop();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final int[] exit = {-1};
    private Thread worker;

    @BeforeEach
    void mountASmallDisk() throws Exception {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "a tmpfs needs Linux");
        disk = Files.createDirectories(dir.resolve("disk"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", disk.toString())
                .redirectErrorStream(true)
                .start();
        boolean done = mount.waitFor(30, TimeUnit.SECONDS);
        String said = new String(mount.getInputStream().readAllBytes());
        assumeTrue(done && mount.exitValue() == 0, "cannot mount a tmpfs here (not root?): " + said);
        mounted = true;
    }

    @AfterEach
    void unmount() throws Exception {
        if (worker != null && worker.isAlive()) {
            stop.request();
            worker.join(20_000);
        }
        if (mounted) {
            new ProcessBuilder("umount", "-l", disk.toString())
                    .inheritIO()
                    .start()
                    .waitFor(30, TimeUnit.SECONDS);
        }
    }

    private CliHarness cli() {
        return new CliHarness(dir, clock).with(b -> b.stopSignals(StopSignals.manual(stop)));
    }

    private List<String> lines(String kind) {
        return out.toString().lines().filter(l -> l.startsWith(kind + " ")).toList();
    }

    @Test
    void aWorkerThatCannotWriteSaysItsErrorOnceWithACountAndLostWhenItsLeaseLapsed() throws Exception {
        Path db = disk.resolve("ledger.db");
        CliHarness cli = cli();
        cli.ok("--db", db.toString(), "init");
        cli.ok("--db", db.toString(), "actor", "add", "operator");
        worker = new Thread(() -> exit[0] = Cli.execute(
                cli.environment(),
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "--db",
                db.toString(),
                "worker",
                "--actor",
                "operator",
                "--ttl",
                "300ms",
                "--idle",
                "10ms"));
        worker.start();
        Poll.until(() -> !lines("hosting").isEmpty(), Duration.ofSeconds(20), () -> "hosting; out: " + out + err);

        // An empty WAL (a checkpoint from a connection of this test; busy while the worker's own background pass
        // runs, decision 0513, so tried until it was not), then not one free block: the worker's next write, its
        // heartbeat's included, must grow a file and cannot.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            Poll.until(() -> truncated(s), Duration.ofSeconds(20), () -> "an emptied WAL; out: " + out + err);
        }
        Path filler = disk.resolve("filler");
        fill(filler);
        // Time passes for the ledger: the lease (300 ms; a beat every 100 ms) lapses while every heartbeat fails.
        clock.advance(Duration.ofSeconds(10));
        Poll.until(() -> !lines("lost").isEmpty(), Duration.ofSeconds(30), () -> "lost; out: " + out + err);
        // The worker now tries to host again at every idle wait (10 ms), and every try fails the same way: one
        // line, then (the clock frozen) nothing more until the repeat window has passed on the ledger's clock.
        Poll.until(() -> !lines("error").isEmpty(), Duration.ofSeconds(30), () -> "an error; out: " + out + err);
        clock.advance(Duration.ofMinutes(1));
        Poll.until(() -> lines("error").size() == 2, Duration.ofSeconds(30), () -> "the count; out: " + out + err);

        Files.delete(filler);
        Poll.until(
                () -> lines("hosting").size() == 2, Duration.ofSeconds(30), () -> "hosting again; out: " + out + err);
        stop.request();
        worker.join(20_000);

        assertThat(exit[0]).as("stderr: %s", err).isZero();
        List<String> errors = lines("error");
        assertThat(errors.get(0)).contains("full").endsWith("(will retry)");
        String said = errors.get(0).substring(0, errors.get(0).length() - "(will retry)".length());
        assertThat(errors.get(1)).startsWith(said).containsPattern("\\(repeated \\d+ times? in 1m\\)$");
        // the retries after the count are summed up once more when the worker hosts again: never a line per retry
        assertThat(errors).as("out: %s", out).hasSizeLessThanOrEqualTo(3);
        errors.subList(1, errors.size())
                .forEach(e -> assertThat(e).startsWith(said).contains("(repeated "));
        assertThat(lines("lost"))
                .singleElement()
                .asString()
                .startsWith("lost      operator token 1 — the lease" + " expired at ")
                .contains("without a renewal: the heartbeat cannot write to the ledger");
        List<String> all = out.toString().lines().toList();
        assertThat(all.indexOf(lines("lost").get(0)))
                .as("lost before the first retry's error")
                .isLessThan(all.indexOf(errors.get(0)));
        assertThat(lines("hosting").get(1))
                .as("hosting again once the disk had room")
                .contains("token");
        assertThat(all).last().asString().startsWith("stopped");
    }

    /** Writes zeros to {@code file} until the disk has no block left. */
    private static void fill(Path file) {
        byte[] block = new byte[64 * 1024];
        try (OutputStream o = Files.newOutputStream(file)) {
            while (true) {
                o.write(block);
            }
        } catch (IOException full) {
            // ENOSPC: the disk is full; smaller writes until not even a byte fits
            try (OutputStream o = Files.newOutputStream(file, StandardOpenOption.APPEND)) {
                while (true) {
                    o.write(0);
                    o.flush();
                }
            } catch (IOException reallyFull) {
                // done
            }
        }
    }

    /** One {@code wal_checkpoint(TRUNCATE)}: whether it emptied the log (not busy). */
    private static boolean truncated(Statement s) {
        try (ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
            return rs.next() && rs.getInt(1) == 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
