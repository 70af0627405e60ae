package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign lab SCENARIO --db jdbc:postgresql://…} (decision 0909): it runs in a lab sandbox on the server,
 * and a password in the URL appears neither in anything it prints nor on any worker's command line (what
 * {@code ps} shows every local user): the workers get the URL through their environment. A real ledger is refused
 * with exit 2 and one sentence, untouched.
 */
class CliLabOnPostgresTest {
    private static final String SECRET = "Planted-Lab-Secret-0909";

    @TempDir
    Path dir;

    @Test
    void aScenarioRunsOnAServerSandboxAndThePasswordIsInNoOutputAndOnNoWorkersCommandLine() throws Exception {
        String url = PgTestServer.freshDatabase().url() + "&password=" + SECRET;
        CliHarness cli = new CliHarness(dir, new SettableClock());

        // watch every process this JVM starts while the lab runs, as ps would: /proc/PID/cmdline (and environ)
        Map<Long, String> cmdlines = new ConcurrentHashMap<>();
        Map<Long, String> environs = new ConcurrentHashMap<>();
        java.util.Set<String> everCmdline = ConcurrentHashMap.newKeySet();
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread watcher = new Thread(
                () -> {
                    while (watching.get()) {
                        // the latest reading of each, and every cmdline ever seen: a child caught between its fork
                        // and its exec still shows its parent's cmdline and environment (seen under load)
                        ProcessHandle.current().descendants().forEach(p -> {
                            read(p.pid(), "cmdline").ifPresent(c -> {
                                cmdlines.put(p.pid(), c);
                                everCmdline.add(c);
                            });
                            read(p.pid(), "environ").ifPresent(e -> environs.put(p.pid(), e));
                        });
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "cmdline-watcher");
        watcher.start();
        Result r;
        try {
            r = cli.run("--db", url, "lab", "hard-kill");
        } finally {
            watching.set(false);
            watcher.join();
        }
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "lab hard-kill:",
                        "a lab sandbox on the server",
                        "verdict   HELD",
                        "jdbc:postgresql://localhost:");
        assertThat(r.out() + r.err()).doesNotContain(SECRET);

        Map<Long, String> workers = new ConcurrentHashMap<>();
        cmdlines.forEach((pid, c) -> {
            if (c.contains("dev.sovereign.engine.lab.WorkerMain")) {
                workers.put(pid, c);
            }
        });
        assertThat(workers)
                .as("the watcher saw the scenario's worker JVMs: " + cmdlines.values())
                .isNotEmpty();
        assertThat(everCmdline)
                .allSatisfy(c -> assertThat(c).doesNotContain(SECRET).doesNotContain("jdbc:postgresql"));
        assertThat(workers.values()).allSatisfy(c -> assertThat(c).contains("env:SOVEREIGN_DB"));
        // they got it through their environment, which only this user (and root) can read
        assertThat(workers.keySet())
                .anySatisfy(pid -> assertThat(environs.get(pid))
                        .contains("SOVEREIGN_DB=jdbc:postgresql://")
                        .contains(SECRET));
    }

    @Test
    void aRealLedgerOnTheServerIsRefusedWithExit2AndOneSentenceWithoutThePassword() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        String url = db.url() + "&password=" + SECRET;
        CliHarness cli = new CliHarness(dir, new SettableClock());
        cli.ok("--db", url, "init");
        cli.ok("--db", url, "actor", "add", "payments");
        String before = cli.ok("--db", url, "events").out();

        Result r = cli.run("--db", url, "lab", "gc-pause", "--break-fence");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("not a lab sandbox")
                .contains("left untouched")
                .doesNotContain(SECRET);
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.out()).isEmpty();
        assertThat(cli.ok("--db", url, "events").out())
                .as("nothing was written")
                .isEqualTo(before);

        // listed as they run there: on a server clock-skew explains (and the fence switch changes nothing in it)
        String list = cli.ok("--db", url, "lab", "list").out();
        assertThat(list)
                .containsPattern("clock-skew +- +A fast clock cannot steal a lease here: the server's clock decides")
                .doesNotContain(SECRET);
        assertThat(cli.ok("lab", "list").out()).contains("A fast clock can steal a lease early, never a commit");
    }

    private static Optional<String> read(long pid, String what) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), what));
            return b.length == 0
                    ? Optional.empty()
                    : Optional.of(new String(b, StandardCharsets.UTF_8).replace('\0', ' '));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
