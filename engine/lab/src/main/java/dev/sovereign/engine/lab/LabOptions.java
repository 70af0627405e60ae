package dev.sovereign.engine.lab;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to run a scenario. Immutable.
 *
 * @param location   an existing Sovereign ledger: a file (see {@link Lab#createSandbox}) or a server's
 *                   lab sandbox (see {@link Lab#serverSandbox}); the scenario adds its own fresh actor to
 *                   it and touches nothing else
 * @param breakFence start the scenario's workers with the terminal fence switched off
 *                   ({@link WorkerProcess#FAULT_JVM_OPTION}), to show what fencing prevents
 */
public record LabOptions(LedgerLocation location, boolean breakFence) {
    public LabOptions {
        Objects.requireNonNull(location, "location");
    }

    /** A run on a SQLite file. */
    public LabOptions(Path database, boolean breakFence) {
        this(LedgerLocation.file(Objects.requireNonNull(database, "database")), breakFence);
    }

    /**
     * The ledger's file.
     *
     * @throws IllegalStateException on a server: use {@link #location()}
     */
    public Path database() {
        return location.file().orElseThrow(() -> new IllegalStateException(location + " is a server, not a file"));
    }
}
