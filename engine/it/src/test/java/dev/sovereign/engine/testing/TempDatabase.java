package dev.sovereign.engine.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh real SQLite file per test (never an in-memory or shared-cache database), plus engines on
 * it that are closed after the test. Register with {@code @RegisterExtension}.
 */
public final class TempDatabase implements BeforeEachCallback, AfterEachCallback {
    private Path dir;
    private final List<Engine> engines = new ArrayList<>();

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("sovereign-test-");
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
    }

    public Path dir() {
        return dir;
    }

    public Path file() {
        return dir.resolve("sovereign.db");
    }

    /** A config builder on this test's file with no background heartbeat (tests beat by hand). */
    public EngineConfig.Builder config(Clock clock) {
        return EngineConfig.forDatabase(file()).clock(clock).heartbeat(false)
                .heartbeatInterval(Duration.ofSeconds(1)).busyBound(Duration.ofSeconds(10));
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
