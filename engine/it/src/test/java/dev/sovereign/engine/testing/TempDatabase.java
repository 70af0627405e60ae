package dev.sovereign.engine.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh, real, empty ledger per test of the backend under test, plus engines on it that are closed after the
 * test. Register with {@code @RegisterExtension}. A contract class passes its abstract {@code backend()}
 * ({@code new TempDatabase(this::backend)}), which its subclass answers (decision 0015); without one, the
 * ledger is a real SQLite file, never an in-memory or shared-cache database. {@link #file()} is the SQLite file
 * itself, for SQLite-only tests; contract tests use {@link #location()} and {@link #config}.
 */
public final class TempDatabase implements BeforeEachCallback, AfterEachCallback {
    /** Asked when a test needs it, not at construction: a subclass does not answer while its superclass is built. */
    private final Supplier<TestBackend> backend;

    private Path dir;
    private LedgerLocation location;
    private final List<Engine> engines = new ArrayList<>();

    /** Ledgers in SQLite files: for the SQLite-only classes. */
    public TempDatabase() {
        this(TestBackend::sqlite);
    }

    /** Ledgers of the backend {@code backend} answers (a contract class's {@code this::backend}). */
    public TempDatabase(Supplier<TestBackend> backend) {
        this.backend = backend;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("sovereign-test-");
        location = null;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (Engine e : engines) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // the test may have closed it
            }
        }
        engines.clear();
        deleteQuietly(dir);
    }

    /**
     * Removes the test's folder with everything in it, best effort (a child process a test started may still be
     * writing): a full run makes thousands of them, and left behind they fill the temporary directory and slow
     * every later file creation in it, benchmarks included.
     */
    private static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // still in use, or gone already: the rest is removed
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // the folder changed while walked: what was removed stays removed
        }
    }

    public Path dir() {
        return dir;
    }

    /** This test's SQLite file (SQLite-only tests); see {@link #location()}. */
    public Path file() {
        return dir.resolve("sovereign.db");
    }

    /** This test's ledger on the backend under test, created empty on first use. */
    public LedgerLocation location() {
        if (location == null) {
            location = backend().freshLedger(dir, "sovereign");
        }
        return location;
    }

    /** The backend under test. */
    public TestBackend backend() {
        return backend.get();
    }

    /**
     * A config builder on this test's ledger with no background heartbeat (tests beat by hand). A settable
     * clock is also handed to the backend ({@link TestBackend#clockFor}), so a server's clock follows it.
     */
    public EngineConfig.Builder config(Clock clock) {
        if (clock instanceof SettableClock settable) {
            backend().clockFor(location(), settable);
        }
        return EngineConfig.forDatabase(location())
                .dataDirectory(dir.resolve("sovereign.data"))
                .clock(clock)
                .heartbeat(false)
                .heartbeatInterval(Duration.ofSeconds(1))
                .busyBound(Duration.ofSeconds(10));
    }

    public Engine open(Clock clock) {
        return open(config(clock).build());
    }

    public Engine open(EngineConfig config) {
        Engine e = Engine.open(config);
        engines.add(e);
        return e;
    }
}
