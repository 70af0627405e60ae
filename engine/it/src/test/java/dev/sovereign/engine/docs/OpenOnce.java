package dev.sovereign.engine.docs;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;

/**
 * A child JVM's whole program for {@link DriverMissingTest}: opens the ledger named by its argument as an embedder
 * would and prints one line, {@code opened} or {@code refused: } and the engine's sentence. Anything else (a bare
 * {@code NoClassDefFoundError}) escapes as it would in an embedder's program.
 */
public final class OpenOnce {
    private OpenOnce() {}

    public static void main(String[] args) {
        try (Engine engine = Engine.open(EngineConfig.forDatabase(args[0]).build())) {
            System.out.println("opened");
        } catch (StorageException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
