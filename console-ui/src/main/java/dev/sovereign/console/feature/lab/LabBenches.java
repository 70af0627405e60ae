package dev.sovereign.console.feature.lab;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.LabBench;

/**
 * The bench (the lab's own process and the workers started by hand) of the attached ledger (a file, or a lab
 * sandbox on a server, its location carrying the password the workers get by environment), opened
 * on the first lab action and closed when another database is attached, the sandbox is reset or the
 * console closes. Thread-safe: opened and closed on background threads, asked about on the UI thread.
 */
final class LabBenches {
    private LabBench bench;
    /** Read without the lock, so the UI thread never waits for a bench that is closing. */
    private volatile boolean open;

    synchronized LabBench forTarget(LedgerLocation target) {
        LedgerLocation wanted = target.file()
                .map(f -> LedgerLocation.file(f.toAbsolutePath().normalize()))
                .orElse(target);
        if (bench != null && !bench.location().equals(wanted)) {
            bench.close();
            bench = null;
        }
        if (bench == null) {
            bench = LabBench.open(wanted, "console lab");
            open = true;
        }
        return bench;
    }

    boolean isOpen() {
        return open;
    }

    synchronized void close() {
        if (bench != null) {
            open = false;
            bench.close();
            bench = null;
        }
    }
}
