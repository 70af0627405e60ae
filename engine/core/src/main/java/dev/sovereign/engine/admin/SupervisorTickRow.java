package dev.sovereign.engine.admin;

/** The report of one supervisor tick, as stored in {@code supervisor_ticks}. Immutable. */
public record SupervisorTickRow(
        long seq,
        long at,
        ProcessRef process,
        int expiredLeases,
        int staleProcesses,
        int sweptClaims,
        int recovered,
        int failures,
        String report) {}
