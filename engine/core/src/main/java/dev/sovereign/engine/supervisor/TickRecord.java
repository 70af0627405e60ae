package dev.sovereign.engine.supervisor;

/**
 * A stored tick report (a row of {@code supervisor_ticks}): the counts, and the full report as a
 * JSON object in {@code report}. Immutable.
 */
public record TickRecord(
        long seq,
        long at,
        String processIdentity,
        int expiredLeases,
        int staleProcesses,
        int sweptClaims,
        int recovered,
        int failures,
        String report) {}
