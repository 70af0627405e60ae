package dev.sovereign.engine.lab;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to run a scenario. Immutable.
 *
 * @param database   an existing Sovereign database (see {@link Lab#createSandbox}); the scenario adds
 *                   its own fresh actor to it and touches nothing else
 * @param breakFence start the scenario's workers with the terminal fence switched off
 *                   ({@link WorkerProcess#FAULT_JVM_OPTION}), to show what fencing prevents
 */
public record LabOptions(Path database, boolean breakFence) {
    public LabOptions {
        Objects.requireNonNull(database, "database");
    }
}
