package dev.sovereign.console.bench;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.MainWindow;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.SettableClock;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.prefs.Preferences;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * How much a refresh costs with 10,000 leases and 1,000,000 journal rows: the idle poll, a poll
 * after one lease changed (the background read and the FX-thread apply, measured apart), and the
 * longest time the FX thread is busy with one snapshot (apply + CSS + layout, which a pulse does) on
 * each heavy page. Not a test: excluded from the default run (tag {@code benchmark}); run it with
 * <pre>mvn -B -ntp -pl console-ui -am test -Dtest=ConsoleBenchmark -DexcludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * Results go to {@code console-ui/target/benchmarks/console.txt}.
 */
@Tag("benchmark")
@ExtendWith(ApplicationExtension.class)
class ConsoleBenchmark {
    static final int ACTORS = Integer.getInteger("bench.actors", 10_000);
    static final int EVENTS = Integer.getInteger("bench.events", 1_000_000);
    static final int HOLDERS = 10;
    static final int IDLE_ROUNDS = 2_000;
    static final int CHANGE_ROUNDS = Integer.getInteger("bench.rounds", 200);
    static final int WARMUP = Integer.getInteger("bench.warmup", 20);
    static final List<Page> PAGES = Arrays.stream(System.getProperty("bench.pages", "leases,timeline,runs,processes")
                    .split(","))
            .map(p -> Page.valueOf(p.toUpperCase(Locale.ROOT)))
            .toList();

    private final SettableClock clock = new SettableClock(System.currentTimeMillis());
    private final List<Engine> engines = new ArrayList<>();
    private final List<String> report = new ArrayList<>();
    private final BenchUi ui = new BenchUi();
    private Path dir;
    private Path db;
    private Stage stage;
    private Preferences prefs;
    private ShellViewModel vm;
    private Scene scene;
    private TimingReader reader;

    /** A real reader that adds up the time spent in it (the first poll runs inside the attach callback). */
    static final class TimingReader implements AdminReader {
        private final AdminReader real;
        volatile long nanos;

        TimingReader(AdminReader real) {
            this.real = real;
        }

        private <T> T timed(Supplier<T> call) {
            long t0 = System.nanoTime();
            try {
                return call.get();
            } finally {
                nanos += System.nanoTime() - t0;
            }
        }

        @Override
        public LedgerLocation location() {
            return real.location();
        }

        @Override
        public int schemaVersion() {
            return real.schemaVersion();
        }

        @Override
        public long changeMarker() {
            return timed(real::changeMarker);
        }

        volatile long snapshotNanos;

        @Override
        public AdminSnapshot snapshot() {
            long t0 = System.nanoTime();
            try {
                return timed(real::snapshot);
            } finally {
                snapshotNanos += System.nanoTime() - t0;
            }
        }

        @Override
        public List<JournalEntry> eventsSince(long afterSeq, int limit) {
            return timed(() -> real.eventsSince(afterSeq, limit));
        }

        @Override
        public List<JournalEntry> recentRejections(int limit) {
            return timed(() -> real.recentRejections(limit));
        }

        @Override
        public LedgerMetrics metrics() {
            return timed(real::metrics);
        }

        @Override
        public long exportJournalCsv(Path target, ExportProgress progress) {
            return real.exportJournalCsv(target, progress);
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void close() throws Exception {
        if (vm != null) {
            WaitForAsyncUtils.waitForAsyncFx(60_000, vm::close);
        }
        engines.forEach(Engine::close);
        if (prefs != null) {
            prefs.removeNode();
        }
    }

    /** The console's executor, split so each side can be timed: background work at once, UI work queued. */
    static final class BenchUi implements UiExecutor {
        final Queue<Runnable> queued = new ConcurrentLinkedQueue<>();

        @Override
        public void onUi(Runnable action) {
            queued.add(action);
        }

        @Override
        public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
            try {
                T r = work.call();
                queued.add(() -> onSuccess.accept(r));
            } catch (Exception e) {
                queued.add(() -> onFailure.accept(e));
            }
        }

        @Override
        public void close() {}
    }

    private void say(String line) {
        report.add(line);
        System.out.println(line);
    }

    @Test
    void refreshCosts() throws Exception {
        dir = Files.createTempDirectory("sovereign-console-bench-");
        db = dir.resolve("bench.db");
        List<Lease> leases = fill();

        prefs = Preferences.userRoot().node("dev/sovereign/console-bench/" + UUID.randomUUID());
        WaitForAsyncUtils.asyncFx(() -> {
                    vm = new ShellViewModel(
                            new ConsoleSettings(prefs),
                            ui,
                            clock,
                            ZoneOffset.UTC,
                            p -> reader = new TimingReader(Ledgers.openReader(p, clock, ZoneOffset.UTC)),
                            Duration.ZERO);
                    MainWindow window = new MainWindow(vm, () -> {});
                    scene = new Scene(window.create(), 1320, 820);
                    window.install(scene);
                    stage.setScene(scene);
                    stage.show();
                    vm.attach(db); // opens the reader synchronously; the first poll is queued
                })
                .get();
        long firstTotal = onFx(() -> {});
        long firstRead = reader.nanos;
        say(String.format(
                Locale.ROOT,
                "first attach, leases page: first poll read (snapshot, last %d events, newest"
                        + " rejections) %.1f ms; FX thread (apply + CSS + layout) %.1f ms, of which apply %.1f ms, CSS %.1f ms,"
                        + " layout %.1f ms",
                5_000,
                firstRead / 1e6,
                (firstTotal - firstRead) / 1e6,
                (applyNanos - firstRead) / 1e6,
                cssNanos / 1e6,
                layoutNanos / 1e6));

        // Idle: data_version did not move.
        long[] idleRead = new long[IDLE_ROUNDS];
        long[] idleApply = new long[IDLE_ROUNDS];
        for (int i = 0; i < IDLE_ROUNDS; i++) {
            long t0 = System.nanoTime();
            vm.pollNow();
            idleRead[i] = System.nanoTime() - t0;
            idleApply[i] = onFxNoLayout();
        }
        say("idle poll, poller thread (PRAGMA data_version + file check): " + stats(idleRead));
        say("idle poll, FX thread (apply an unchanged result): " + stats(idleApply));

        for (Page page : PAGES) {
            WaitForAsyncUtils.asyncFx(() -> vm.pageProperty().set(page)).get();
            onFx(() -> {});
            // The first WARMUP rounds of each page are run and thrown away: they are where the JIT
            // compiles the page's code paths, which a long-running console pays once.
            int rounds = WARMUP + CHANGE_ROUNDS;
            long[] read = new long[rounds];
            long[] apply = new long[rounds];
            long[][] parts = new long[3][rounds];
            long[] snap = new long[rounds];
            long[] gc = new long[rounds];
            for (int i = 0; i < rounds; i++) {
                Lease l = leases.get((i * 7919) % leases.size());
                Engine holder = engines.get((i * 7919) % leases.size() % HOLDERS);
                clock.advance(Duration.ofMillis(50));
                holder.leases().renew(l.actor(), l.token(), Duration.ofMinutes(30));
                long before = reader.snapshotNanos;
                long t0 = System.nanoTime();
                vm.pollNow();
                read[i] = System.nanoTime() - t0;
                snap[i] = reader.snapshotNanos - before;
                apply[i] = onFx(() -> {});
                gc[i] = gcNanos;
                parts[0][i] = applyNanos;
                parts[1][i] = cssNanos;
                parts[2][i] = layoutNanos;
            }
            read = measured(read);
            apply = measured(apply);
            snap = measured(snap);
            gc = measured(gc);
            for (int k = 0; k < parts.length; k++) {
                parts[k] = measured(parts[k]);
            }
            long[] whole = new long[read.length];
            for (int k = 0; k < whole.length; k++) {
                whole[k] = read[k] + apply[k];
            }
            say("one lease renewed, " + page.id() + " page shown — whole refresh (poller + FX thread): "
                    + stats(whole));
            say("one lease renewed, " + page.id() + " page shown — poller thread (snapshot + journal tail): "
                    + stats(read));
            say("one lease renewed, " + page.id() + " page shown — FX thread (apply + CSS + layout): " + stats(apply)
                    + gcNote(apply, gc));
            say("    of which: snapshot() " + stats(snap) + "; apply " + stats(parts[0]) + "; CSS " + stats(parts[1])
                    + "; layout " + stats(parts[2]));
        }

        // Real life: every holder's heartbeat renews all its leases each second, so every row changes.
        WaitForAsyncUtils.asyncFx(() -> vm.pageProperty().set(Page.LEASES)).get();
        onFx(() -> {});
        long[] allRead = new long[Integer.getInteger("bench.allRounds", 20)];
        long[] allApply = new long[allRead.length];
        long[] allGc = new long[allRead.length];
        for (int i = 0; i < allRead.length; i++) {
            clock.advance(Duration.ofSeconds(1));
            engines.forEach(Engine::heartbeatNow);
            long t0 = System.nanoTime();
            vm.pollNow();
            allRead[i] = System.nanoTime() - t0;
            allApply[i] = onFx(() -> {});
            allGc[i] = gcNanos;
        }
        say("every lease renewed (one heartbeat of each holder), leases page — poller thread: " + stats(allRead));
        say("every lease renewed (one heartbeat of each holder), leases page — FX thread (apply + CSS + layout): "
                + stats(allApply) + gcNote(allApply, allGc));

        long[] tick = new long[50];
        long[] tickGc = new long[50];
        for (int i = 0; i < tick.length; i++) {
            clock.advance(Duration.ofMillis(100));
            long now = clock.millis();
            tick[i] = onFx(() -> vm.tick(now));
            tickGc[i] = gcNanos;
        }
        say("countdown tick (every 100 ms), leases page — FX thread (tick + CSS + layout): " + stats(tick)
                + gcNote(tick, tickGc));
        WaitForAsyncUtils.asyncFx(() -> vm.pageProperty().set(Page.TIMELINE)).get();
        long[] tickTimeline = new long[50];
        long[] tickTimelineGc = new long[50];
        for (int i = 0; i < tickTimeline.length; i++) {
            clock.advance(Duration.ofMillis(100));
            long now = clock.millis();
            tickTimeline[i] = onFx(() -> vm.tick(now));
            tickTimelineGc[i] = gcNanos;
        }
        say("countdown tick (every 100 ms), timeline page — FX thread (tick + CSS + layout): " + stats(tickTimeline)
                + gcNote(tickTimeline, tickTimelineGc));

        Path out = Path.of("target", "benchmarks", "console.txt");
        Files.createDirectories(out.getParent());
        List<String> all = new ArrayList<>();
        all.add("# Console refresh benchmark, " + ACTORS + " leases, " + EVENTS + " journal rows");
        all.add("# " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + "; times: median / p95 / p99 / max");
        all.addAll(report);
        Files.write(out, all);
    }

    private long applyNanos;
    /** Collector time (all collectors, as the JVM reports it) during the last {@link #onFx}. */
    private long gcNanos;

    private long cssNanos;
    private long layoutNanos;

    /**
     * Runs the queued UI work and {@code extra}, then the scene's CSS and layout passes exactly as the
     * next pulse would (only what became dirty); returns the FX-thread time. Rendering is not included:
     * it runs on the render thread.
     */
    private long onFx(Runnable extra) throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> {
                    long gc0 = gcTime();
                    long t0 = System.nanoTime();
                    Runnable r;
                    while ((r = ui.queued.poll()) != null) {
                        r.run();
                    }
                    extra.run();
                    long t1 = System.nanoTime();
                    CSS_PASS.invoke(scene);
                    long t2 = System.nanoTime();
                    LAYOUT_PASS.invoke(scene);
                    long t3 = System.nanoTime();
                    applyNanos = t1 - t0;
                    cssNanos = t2 - t1;
                    layoutNanos = t3 - t2;
                    gcNanos = gcTime() - gc0;
                    return t3 - t0;
                })
                .get();
    }

    /** The pulse's own passes (JavaFX is on the class path, an unnamed module, so they are reachable). */
    private static final Method CSS_PASS = pass("doCSSPass");

    private static final Method LAYOUT_PASS = pass("doLayoutPass");

    private static Method pass(String name) {
        try {
            Method m = Scene.class.getDeclaredMethod(name);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private long onFxNoLayout() throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> {
                    long t0 = System.nanoTime();
                    Runnable r;
                    while ((r = ui.queued.poll()) != null) {
                        r.run();
                    }
                    return System.nanoTime() - t0;
                })
                .get();
    }

    private static long[] measured(long[] all) {
        return Arrays.copyOfRange(all, WARMUP, all.length);
    }

    private static long gcTime() {
        long ms = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, b.getCollectionTime());
        }
        return ms * 1_000_000L;
    }

    /** How many rounds a collection overlapped, and the worst round without one (so tails can be told apart). */
    private static String gcNote(long[] nanos, long[] gc) {
        int hit = 0;
        long worstClean = 0;
        for (int i = 0; i < nanos.length; i++) {
            if (gc[i] > 0) {
                hit++;
            } else {
                worstClean = Math.max(worstClean, nanos[i]);
            }
        }
        return hit == 0
                ? "; no collection overlapped a round"
                : String.format(
                        Locale.ROOT,
                        "; a collection overlapped %d round(s), the worst of the others %s",
                        hit,
                        ms(worstClean));
    }

    private static String stats(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return String.format(
                Locale.ROOT,
                "%s / %s / %s / %s (n=%d)",
                ms(s[s.length / 2]),
                ms(s[(int) (s.length * 0.95)]),
                ms(s[(int) (s.length * 0.99)]),
                ms(s[s.length - 1]),
                s.length);
    }

    private static String ms(long nanos) {
        return nanos < 1_000_000
                ? String.format(Locale.ROOT, "%.3f ms", nanos / 1e6)
                : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    /** 10,000 actors, each leased by one of ten processes; 1,000,000 journal rows (1% rejections). */
    private List<Lease> fill() throws IOException {
        long t0 = System.nanoTime();
        for (int i = 0; i < HOLDERS; i++) {
            engines.add(Engine.open(EngineConfig.forDatabase(db)
                    .clock(clock)
                    .heartbeat(false)
                    .durability(Durability.NORMAL)
                    .processKind("worker")
                    .processLabel("worker " + (7100 + i))
                    .build()));
        }
        Engine first = engines.get(0);
        List<String> actors = new ArrayList<>();
        for (int i = 0; i < ACTORS; i++) {
            actors.add(String.format(Locale.ROOT, "actor-%05d", i));
        }
        actors.forEach(first.actors()::add);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < actors.size(); i++) {
            leases.add(engines.get(i % HOLDERS).leases().acquire(actors.get(i), Duration.ofMinutes(30)));
        }
        // The journal's bulk: renewals with each lease's real token, and 1% refused writes that presented an
        // older token (the grant of the current one is on the same resource, as in real life).
        int perTx = 10_000;
        long events = first.journal().lastSeq();
        for (long done = events; done < EVENTS; done += perTx) {
            long from = done;
            clock.advance(Duration.ofMillis(100));
            ((SqliteLedger) EngineAccess.ledger(first)).database().write(tx -> {
                for (long i = from; i < from + perTx && i < EVENTS; i++) {
                    Lease l = leases.get((int) (i % leases.size()));
                    Engine holder = engines.get((int) (i % leases.size()) % HOLDERS);
                    if (i % 100 == 99) {
                        tx.journal(
                                EventKind.REJECTED,
                                "actor",
                                l.actor(),
                                l.actor(),
                                holder.processIdentity(),
                                null,
                                Math.max(1, l.token() - 1),
                                l.token(),
                                "actor_lease_lost",
                                "bench");
                    } else {
                        tx.journal(
                                EventKind.LEASE_RENEWED,
                                "actor",
                                l.actor(),
                                l.actor(),
                                holder.processIdentity(),
                                l.token(),
                                null,
                                null,
                                null,
                                "bench");
                    }
                }
                return null;
            });
        }
        say(String.format(
                Locale.ROOT,
                "fill: %d actors and leases, %d journal rows in %.1f s (file %d MB)",
                ACTORS,
                first.journal().lastSeq(),
                (System.nanoTime() - t0) / 1e9,
                Files.size(db) / 1_000_000));
        return leases;
    }
}
