package dev.sovereign.engine;

import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import java.util.function.Function;

/**
 * The one way below an {@link Engine} to its backend's {@link Ledger}: for a backend, its tests and tools
 * that must reach a store beneath the engine's orchestration. Not an embedder's API: every operation an
 * embedder needs is on {@code Engine}, and going around it (starting an attempt without
 * {@code runAssignment}, closing the ledger under a running engine) breaks what the engine promises. What it
 * returns are types of {@code spi}, which the core's module exports only to the backends' modules, so no other
 * module can use them (decision 0016); an ArchUnit rule keeps the lab, the CLI and the core's own orchestration
 * from calling it at all.
 */
public final class EngineAccess {
    private static volatile Function<Engine, Ledger> access;
    private static volatile Function<Engine, Grants> grantsAccess;

    private EngineAccess() {}

    /** The ledger under {@code engine}. */
    public static Ledger ledger(Engine engine) {
        initialiseEngine();
        return access.apply(engine);
    }

    /** What {@code engine} believes it holds (the leases and attempts its heartbeat presents). */
    public static Grants grants(Engine engine) {
        initialiseEngine();
        return grantsAccess.apply(engine);
    }

    private static void initialiseEngine() {
        if (access == null) {
            // the engine installs its accessor when its class initialises; make sure it has
            try {
                Class.forName(Engine.class.getName(), true, Engine.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Called once by {@code Engine}'s class initialiser; package-private, so only the facade's own classes can call
     * it (the compiler checks what a run-time look at the caller used to).
     *
     * @throws IllegalStateException on a second call
     */
    static synchronized void install(Function<Engine, Ledger> ledger, Function<Engine, Grants> grants) {
        if (access != null) {
            throw new IllegalStateException("the engine's ledger accessor is installed once, by Engine");
        }
        grantsAccess = grants;
        access = ledger;
    }
}
