package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.PROCESS_STOPPED;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_PROCESS;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.process.ProcessInfo;
import java.util.Optional;

/** The process registry's refusals: an operator stopping a process ({@code sovereign process stop ID}). */
public final class ProcessRules {
    private ProcessRules() {}

    /**
     * Why {@code identity} (as the transaction read it) may not be marked stopped by an operator, or empty when
     * it may: {@code unknown_process} for an identity the registry does not have, {@code process_stopped} for
     * one it already shows stopped.
     */
    public static Optional<Refusal> whyNotStoppable(String identity, Optional<ProcessInfo> row) {
        if (row.isEmpty()) {
            return Optional.of(Refusal.of(
                            UNKNOWN_PROCESS,
                            "There is no process " + identity
                                    + " in the registry; 'sovereign status' lists the processes.")
                    .resource("process", identity)
                    .build());
        }
        ProcessInfo p = row.get();
        if (p.stoppedAt() != null) {
            return Optional.of(Refusal.of(
                            PROCESS_STOPPED,
                            "Process " + identity + " (" + p.kind() + " '" + p.label()
                                    + "') is already stopped; nothing was changed.")
                    .resource("process", identity)
                    .build());
        }
        return Optional.empty();
    }

    /** The detail of the {@code PROCESS_STOPPED} event an operator's stop writes. */
    public static String stoppedByOperator(ProcessInfo p) {
        return "marked stopped by an operator: " + p.kind() + " '" + p.label() + "' (pid " + p.pid() + " on "
                + p.host() + "); its leases were not released: they expire on their own, and the fence keeps"
                + " a stale holder out";
    }
}
