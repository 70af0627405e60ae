package dev.sovereign.engine.process;

import java.util.List;
import java.util.Optional;

/** Read access to the process registry. Thread-safe. */
public interface Processes {
    Optional<ProcessInfo> find(String identity);

    /** Every process, newest first. */
    List<ProcessInfo> list();
}
