package dev.sovereign.engine;

import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import java.util.function.Function;

/**
 * The one way below an {@link Engine} to its backend's {@link Ledger}: for a backend, its tests and tools
 * that must reach a store beneath the engine's orchestration. Not an embedder's API: every operation an
 * embedder needs is on {@code Engine}, and going around it (starting an attempt without
 * {@code runAssignment}, closing the ledger under a running engine) breaks what the engine promises. An
 * ArchUnit rule keeps the lab, the CLI, the console's engine-side API and the core itself from calling it.
 */
public final class EngineAccess {
    private static volatile Function<Engine, Ledger> access;
    private static volatile Function<Engine, Grants> grantsAccess;

    private EngineAccess() {
    }

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
     * Called once by {@code Engine}'s class initialiser.
     *
     * @throws IllegalStateException on a second call
     */
    public static synchronized void install(Function<Engine, Ledger> ledger, Function<Engine, Grants> grants) {
        if (StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass() != Engine.class) {
            throw new IllegalStateException("only Engine installs the accessor to its ledger");
        }
        if (access != null) {
            throw new IllegalStateException("the engine's ledger accessor is installed once, by Engine");
        }
        grantsAccess = grants;
        access = ledger;
    }
}
