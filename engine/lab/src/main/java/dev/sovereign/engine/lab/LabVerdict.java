package dev.sovereign.engine.lab;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of one scenario run: the verdict, the checks it was computed from, the narrative as it
 * ended, and where it ran. Immutable.
 *
 * @param headline      one sentence saying what happened
 * @param location      where it ran: a file or a server (shown only with its secrets hidden)
 * @param actor         the fresh actor the scenario used
 * @param faultInjected whether its workers ran with the terminal fence switched off
 * @param workerOutput  every line each scenario worker printed, by worker label (for diagnosis)
 */
public record LabVerdict(
        String scenario,
        Verdict verdict,
        String headline,
        List<Check> checks,
        List<LabStep> steps,
        LedgerLocation location,
        String actor,
        boolean faultInjected,
        long startedAt,
        long durationMs,
        Map<String, List<String>> workerOutput) {
    public LabVerdict {
        checks = List.copyOf(checks);
        steps = List.copyOf(steps);
        workerOutput = Collections.unmodifiableMap(new LinkedHashMap<>(workerOutput));
    }

    /** A verdict of a run on a file. */
    public LabVerdict(
            String scenario,
            Verdict verdict,
            String headline,
            List<Check> checks,
            List<LabStep> steps,
            Path database,
            String actor,
            boolean faultInjected,
            long startedAt,
            long durationMs,
            Map<String, List<String>> workerOutput) {
        this(
                scenario,
                verdict,
                headline,
                checks,
                steps,
                LedgerLocation.file(database),
                actor,
                faultInjected,
                startedAt,
                durationMs,
                workerOutput);
    }

    /** The ledger's file, or null when it ran on a server ({@link #location()}). */
    public Path database() {
        return location.file().orElse(null);
    }

    public boolean held() {
        return verdict == Verdict.HELD;
    }
}
