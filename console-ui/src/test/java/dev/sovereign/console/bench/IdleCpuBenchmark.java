package dev.sovereign.console.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.OperatingSystemMXBean;
import dev.sovereign.console.fx.FxTicker;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.MainWindow;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.EngineConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.prefs.Preferences;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.ProgressIndicator;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 17, item 15: how much CPU the console uses on each page while nothing changes. The real window
 * (every page), the real clock, ticker and poller (every 250 ms), on a quiet database: 20 actors, a few
 * leases held for an hour, a few runs, messages and refused writes, so every page has something to draw.
 * Per page: 2 s to settle, then the JVM's CPU time over {@code bench.idleSeconds} (default 6) as a share
 * of one core. Everything in this JVM counts (the FX thread, the poller, the renderer, GC), so the number
 * is an upper bound of the console's own cost. Tag {@code benchmark}; run with
 * <pre>mvn -B -ntp -pl console-ui -am test -Dtest=IdleCpuBenchmark -DexcludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * Results: {@code console-ui/target/benchmarks/idle-cpu.txt}.
 */
@Tag("benchmark")
@ExtendWith(ApplicationExtension.class)
class IdleCpuBenchmark {
    static final int SECONDS = Integer.getInteger("bench.idleSeconds", 6);
    static final double BUDGET_PERCENT = 2.0;
    /** Which pages to measure (titles, comma-separated; default all): to profile one page's idle cost with JFR. */
    static final String PAGES = System.getProperty("bench.idlePages", "");

    @TempDir
    Path dir;

    private Stage stage;
    private ShellViewModel vm;
    private FxTicker ticker;
    private Preferences prefs;
    private final List<Engine> engines = new ArrayList<>();
    /** Pulses the scene ran (CSS, layout, render); an idle page should run few. */
    private final AtomicLong pulses = new AtomicLong();

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void close() throws Exception {
        if (ticker != null) {
            WaitForAsyncUtils.asyncFx(ticker::stop).get();
        }
        if (vm != null) {
            WaitForAsyncUtils.waitForAsyncFx(60_000, vm::close);
        }
        engines.forEach(Engine::close);
        if (prefs != null) {
            prefs.removeNode();
        }
    }

    @Test
    void idleCpuPerPage(FxRobot robot) throws Exception {
        Path db = dir.resolve("quiet.db");
        Engine a = Engine.open(EngineConfig.forDatabase(db)
                .heartbeat(false)
                .processKind("worker")
                .processLabel("worker A")
                .build());
        Engine b = Engine.open(EngineConfig.forDatabase(db)
                .heartbeat(false)
                .processKind("worker")
                .processLabel("worker B")
                .build());
        engines.add(a);
        engines.add(b);
        for (int i = 0; i < 20; i++) {
            a.actors().add("actor-" + i);
        }
        for (int i = 0; i < 6; i++) {
            a.leases().acquire("actor-" + i, Duration.ofHours(1));
        }
        for (int i = 0; i < 3; i++) {
            try {
                b.leases().acquire("actor-" + i, Duration.ofHours(1));
            } catch (RuntimeException refused) {
                // a refused write for the Rejections page
            }
            a.runs().assign("actor-" + i, "scripted:ms=0");
            a.mailbox().send("ops", "actor-" + i, "job " + i, null);
        }

        prefs = Preferences.userRoot().node("dev/sovereign/console-bench/" + UUID.randomUUID());
        Clock clock = Clock.systemUTC();
        List<String> out = new ArrayList<>();
        WaitForAsyncUtils.asyncFx(() -> {
                    vm = new ShellViewModel(
                            new ConsoleSettings(prefs),
                            new FxUiExecutor(),
                            clock,
                            ZoneOffset.UTC,
                            path -> Ledgers.openReader(path, clock, ZoneOffset.UTC),
                            LedgerPoller.DEFAULT_INTERVAL);
                    MainWindow window = new MainWindow(vm, () -> {});
                    Scene scene = new Scene(window.create(), 1320, 820);
                    window.install(scene);
                    scene.addPostLayoutPulseListener(pulses::incrementAndGet);
                    stage.setScene(scene);
                    stage.show();
                    ticker = new FxTicker(clock, vm::tick, vm::wantsFineTicks);
                    ticker.start();
                    vm.attach(db);
                })
                .get();
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> vm.ledger().snapshot() != null);

        if (Boolean.getBoolean("bench.listSpinners")) {
            robot.interact(
                    () -> System.out.println("SPINNER focus " + stage.getScene().getFocusOwner()));
            robot.interact(() -> stage.getScene()
                    .getRoot()
                    .lookupAll(".progress-indicator, .progress-bar")
                    .forEach(n -> {
                        var pi = (ProgressIndicator) n;
                        System.out.println(
                                "SPINNER " + pi.getId() + " " + pi.getClass().getSimpleName() + " visible="
                                        + pi.isVisible() + " indeterminate=" + pi.isIndeterminate() + " parentVisible="
                                        + (pi.getParent() == null
                                                ? null
                                                : pi.getParent().isVisible()));
                    }));
        }
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double worst = 0;
        double consoleWorst = 0;
        // a first pass over every page, not measured: the pages' first layout and styling, and the JIT
        // compiling what a long-running console has long compiled, are not idle costs
        for (Page page : Page.navigation()) {
            robot.interact(() -> vm.pageProperty().set(page));
            WaitForAsyncUtils.waitForFxEvents();
            leaveAlone(Duration.ofSeconds(3)); // a window measured by nobody
        }
        for (Page page : Page.navigation()) {
            if (!PAGES.isBlank() && !Arrays.asList(PAGES.split(",")).contains(page.title())) {
                continue;
            }
            robot.interact(() -> vm.pageProperty().set(page));
            WaitForAsyncUtils.waitForFxEvents(); // the switch's own layout and refresh are done, not idle cost
            leaveAlone(Duration.ofSeconds(2)); // and what a page does in its first seconds (its ages start ticking)
            var threads = ManagementFactory.getThreadMXBean();
            Map<Long, Long> before = new HashMap<>();
            for (long id : threads.getAllThreadIds()) {
                before.put(id, threads.getThreadCpuTime(id));
            }
            long cpu0 = os.getProcessCpuTime();
            long pulses0 = pulses.get();
            long t0 = System.nanoTime();
            leaveAlone(Duration.ofSeconds(SECONDS));
            long elapsed = System.nanoTime() - t0;
            double pulsesPerSecond = (pulses.get() - pulses0) * 1e9 / elapsed;
            double percent = 100.0 * (os.getProcessCpuTime() - cpu0) / elapsed;
            worst = Math.max(worst, percent);
            // where it went: the three busiest threads (the rest is GC, JIT and threads that ended)
            StringBuilder top = new StringBuilder();
            List<long[]> used = new ArrayList<>();
            for (long id : threads.getAllThreadIds()) {
                long now = threads.getThreadCpuTime(id);
                if (now > 0) {
                    used.add(new long[] {id, now - before.getOrDefault(id, 0L)});
                }
            }
            used.sort((x, y) -> Long.compare(y[1], x[1]));
            long console = 0; // the console's own threads: FX, renderer, poller, ticker (not the test's Monocle timer)
            for (long[] u : used) {
                var info = threads.getThreadInfo(u[0]);
                String n = info == null ? "" : info.getThreadName();
                if (n.equals("JavaFX Application Thread")
                        || n.startsWith("QuantumRenderer")
                        || n.startsWith("console-")) {
                    console += u[1];
                }
            }
            consoleWorst = Math.max(consoleWorst, 100.0 * console / elapsed);
            for (long[] u : used.subList(0, Math.min(3, used.size()))) {
                var info = threads.getThreadInfo(u[0]);
                top.append(String.format(
                        Locale.ROOT, "  %s %.2f%%", info == null ? "?" : info.getThreadName(), 100.0 * u[1] / elapsed));
            }
            String focus = WaitForAsyncUtils.asyncFx(() -> {
                        Node f = stage.getScene().getFocusOwner();
                        return f == null
                                ? "nothing"
                                : f.getClass().getSimpleName() + (f.getId() == null ? "" : "#" + f.getId());
                    })
                    .get();
            String line = String.format(
                    Locale.ROOT,
                    "idle %-10s whole JVM %5.2f %%, console threads %5.2f %%"
                            + " of one core, %4.1f pulses/s, focus on %s;%s",
                    page.title(),
                    percent,
                    100.0 * console / elapsed,
                    pulsesPerSecond,
                    focus,
                    top);
            out.add(line);
            System.out.println(line);
        }
        Path results = Path.of("target", "benchmarks");
        Files.createDirectories(results);
        Files.write(results.resolve("idle-cpu.txt"), out);
        assertThat(consoleWorst)
                .as("the console threads' idle CPU on the worst page, percent of one core")
                .isLessThan(BUDGET_PERCENT);
    }

    /**
     * Leaves the console alone for {@code window} of wall-clock time: the measuring instrument of an idle
     * benchmark (idle CPU is CPU per second of real time), not a wait for something to happen.
     */
    private static void leaveAlone(Duration window) {
        WaitForAsyncUtils.sleep(window.toMillis(), TimeUnit.MILLISECONDS);
    }
}
