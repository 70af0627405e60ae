package dev.sovereign.engine.supervisor;

import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import java.util.List;

/**
 * What one supervisor tick saw and did. Immutable.
 *
 * @param expiredLeases  actor leases whose expiry has passed (reported, not touched)
 * @param staleProcesses running processes that missed their heartbeats (reported, not touched)
 * @param sweptClaims    ids of mailbox messages whose expired claims were swept back to NEW
 * @param recovered      assignments recovered as FAILED / worker_lost, with their receipts
 * @param retired        expired ACTIVE attempts that were no longer current, marked SUPERSEDED or LOST
 * @param failures       items that failed; the tick went on with the others
 */
public record TickReport(
        long at,
        String processIdentity,
        List<Lease> expiredLeases,
        List<ProcessInfo> staleProcesses,
        List<String> sweptClaims,
        List<Recovery> recovered,
        List<Retirement> retired,
        List<TickFailure> failures) {
    public TickReport {
        expiredLeases = List.copyOf(expiredLeases);
        staleProcesses = List.copyOf(staleProcesses);
        sweptClaims = List.copyOf(sweptClaims);
        recovered = List.copyOf(recovered);
        retired = List.copyOf(retired);
        failures = List.copyOf(failures);
    }

    /** One assignment recovered as FAILED / worker_lost. */
    public record Recovery(
            String assignmentId,
            String attemptId,
            long attemptToken,
            String lostProcess,
            long receiptId,
            boolean fenceWasStolen) {}

    /** One expired attempt that was no longer current, marked {@code state} (SUPERSEDED or LOST). */
    public record Retirement(String attemptId, String assignmentId, String state) {}

    /** One item that failed, and why, in one sentence. */
    public record TickFailure(String item, String problem) {}
}
