package dev.sovereign.engine.testing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.RunStore;

/**
 * The storage port under an engine, for contract tests that reach below the API on any backend (a store's
 * method such as {@code startAttempt}, what the engine believes it holds). Never SQLite's classes: those are
 * {@link Sqlite}'s, for SQLite-only tests.
 */
public final class Port {
    private Port() {}

    public static Ledger ledger(Engine engine) {
        return EngineAccess.ledger(engine);
    }

    public static RunStore runs(Engine engine) {
        return ledger(engine).runs();
    }

    public static Grants grants(Engine engine) {
        return EngineAccess.grants(engine);
    }
}
