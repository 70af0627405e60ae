package dev.sovereign.console.testing;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.run.Assignment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;
import java.util.stream.Stream;
import javafx.application.Platform;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A fresh real SQLite file per test, real engines on it (heartbeat off: tests beat by hand), a
 * settable clock shared by the engines and the console, throw-away preferences, and a shell view
 * model that polls only when told ({@link ShellViewModel#pollNow()}), through a counting reader.
 */
public final class ConsoleFixture implements BeforeEachCallback, AfterEachCallback {
    public final SettableClock clock = new SettableClock();
    private final List<Engine> engines = new ArrayList<>();
    private final List<ShellViewModel> shells = new ArrayList<>();
    private final Set<ShellViewModel> onFxThread = new HashSet<>();
    private final Path dir;
    private final Preferences prefs;
    public CountingReader reader;
    private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();
    private final List<Thread> runs = new ArrayList<>();

    /**
     * Ready at construction (one fixture per test instance), so TestFX's {@code @Start}, which runs
     * before field extensions' callbacks, can already use it.
     */
    public ConsoleFixture() {
        try {
            dir = Files.createTempDirectory("sovereign-console-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        prefs = Preferences.userRoot().node("dev/sovereign/console-test/" + UUID.randomUUID());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // everything is made in the constructor
    }

    @Override
    public void afterEach(ExtensionContext context) throws BackingStoreException {
        gates.values().forEach(CountDownLatch::countDown);
        for (Thread t : runs) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        runs.clear();
        for (ShellViewModel vm : shells) {
            if (onFxThread.contains(vm)) {
                // made on the FX thread by a TestFX @Start: its views listen to it, so close it there
                WaitForAsyncUtils.waitForAsyncFx(10_000, vm::close);
            } else {
                vm.close();
            }
        }
        shells.clear();
        for (Engine e : engines) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // the test may have closed it
            }
        }
        engines.clear();
        prefs.removeNode();
        deleteQuietly(dir);
    }

    /** Best effort: a file some thread still holds open is unlinked all the same on POSIX systems. */
    private static void deleteQuietly(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    public Path dir() {
        return dir;
    }

    public Path file() {
        return dir.resolve("sovereign.db");
    }

    public Preferences prefs() {
        return prefs;
    }

    public ConsoleSettings settings() {
        return new ConsoleSettings(prefs);
    }

    /** A real engine (one process) on this test's file, labelled {@code label}. */
    public Engine engine(String label) {
        Engine e = Engine.open(EngineConfig.forDatabase(file())
                .clock(clock)
                .heartbeat(false)
                .heartbeatInterval(Duration.ofSeconds(1))
                .busyBound(Duration.ofSeconds(10))
                .processKind("worker")
                .processLabel(label)
                .build());
        engines.add(e);
        return e;
    }

    /** An engine the test opened itself, closed with the others at the end. */
    public Engine track(Engine e) {
        engines.add(e);
        return e;
    }

    /**
     * Starts {@code engine} running a new assignment of {@code actor} whose provider waits until
     * {@link #openGate(String) the gate} {@code name} opens (or the test ends), on a thread of its own,
     * and returns the assignment once it is RUNNING (its provider was invoked). The run's outcome, a
     * commit or a refusal, stays in the ledger; the thread swallows it.
     */
    public Assignment gatedRun(Engine engine, String actor, Duration ttl, String name) {
        CountDownLatch gate = gates.computeIfAbsent(name, n -> new CountDownLatch(1));
        CountDownLatch invoked = started.computeIfAbsent(name, n -> new CountDownLatch(1));
        engine.providers().register("gate", argument -> job -> {
            started.get(argument).countDown();
            gates.get(argument).await();
            return ProviderResult.completed("the gate " + argument + " opened");
        });
        Assignment a = engine.runs().assign(actor, "gate:" + name);
        Thread t = new Thread(
                () -> {
                    try {
                        engine.runs().runAssignment(a.id(), ttl);
                    } catch (RuntimeException refusedOrClosed) {
                        // the ledger says what happened
                    }
                },
                "gated-run-" + name);
        t.setDaemon(true);
        t.start();
        runs.add(t);
        try {
            if (!invoked.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the gated run " + name + " did not start within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return engine.runs().get(a.id()).orElseThrow();
    }

    /** Lets the gated run {@code name} return; waits until its run (and its terminal write) ended. */
    public void openGate(String name) {
        gates.computeIfAbsent(name, n -> new CountDownLatch(1)).countDown();
        for (Thread t : runs) {
            if (t.getName().equals("gated-run-" + name)) {
                try {
                    t.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** A shell view model with synchronous execution and manual polling, attached to nothing yet. */
    public ShellViewModel shell() {
        return shell(new CurrentThreadUiExecutor());
    }

    public ShellViewModel shell(UiExecutor ui) {
        return shell(ui, Duration.ZERO);
    }

    /** A shell view model whose poller runs on its own thread every {@code interval}. */
    public ShellViewModel shell(UiExecutor ui, Duration interval) {
        ShellViewModel vm = new ShellViewModel(
                settings(),
                ui,
                clock,
                ZoneOffset.UTC,
                path -> {
                    reader = new CountingReader(Ledgers.openReader(path, clock, ZoneOffset.UTC));
                    return reader;
                },
                interval);
        shells.add(vm);
        if (Platform.isFxApplicationThread()) {
            onFxThread.add(vm);
        }
        return vm;
    }

    /** A shell view model attached to this test's file and polled once. */
    public ShellViewModel attachedShell() {
        ShellViewModel vm = shell();
        vm.attach(file());
        return vm;
    }
}
