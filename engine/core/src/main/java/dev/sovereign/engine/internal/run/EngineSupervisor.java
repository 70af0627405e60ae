package dev.sovereign.engine.internal.run;

import dev.sovereign.engine.internal.Json;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Mailbox;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.process.Staleness;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.spi.RecoveryStore.Recovered;
import dev.sovereign.engine.spi.RecoveryStore.Retired;
import dev.sovereign.engine.spi.RecoveryStore.Settlement;
import dev.sovereign.engine.supervisor.Supervisor;
import dev.sovereign.engine.supervisor.TickRecord;
import dev.sovereign.engine.supervisor.TickReport;
import dev.sovereign.engine.supervisor.TickReport.Recovery;
import dev.sovereign.engine.supervisor.TickReport.Retirement;
import dev.sovereign.engine.supervisor.TickReport.TickFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link Supervisor} for one engine: the tick of contract §10 over {@link RecoveryStore},
 * plus the workspace work after each committed recovery. Thread-safe.
 */
public final class EngineSupervisor implements Supervisor {
    private final RecoveryStore store;
    private final Workspaces workspaces;
    private final Clock clock;
    private final String processIdentity;
    private final Mailbox mailbox;

    public EngineSupervisor(
            RecoveryStore store, Mailbox mailbox, Workspaces workspaces, Clock clock, String processIdentity) {
        this.store = store;
        this.mailbox = mailbox;
        this.workspaces = workspaces;
        this.clock = clock;
        this.processIdentity = processIdentity;
    }

    @Override
    public TickReport tick() {
        return tickRecorded().report();
    }

    /** A tick's report as stored: its {@code supervisor_ticks} seq and the JSON text written there. */
    public record Recorded(TickReport report, long seq, String json) {}

    /** {@link #tick()}, also returning where its report was stored (the operator actions show it). */
    public Recorded tickRecorded() {
        // A login that could not record the report at the end does nothing at all (decision 0316): never half.
        store.requireMayRecordTicks();
        long at = store.tickTime(clock);
        List<TickFailure> failures = new ArrayList<>();

        // 1. Report expired leases and stale processes (read-only: expiry is not a fault).
        List<Lease> expiredLeases = store.expiredLeases();
        // The store's worklist has every running process past its missed beats; a CLI identity that never
        // beat is not stale (the one definition, Staleness), so the tick counts what the Processes page counts.
        List<ProcessInfo> staleProcesses = store.staleProcesses().stream()
                .filter(p -> Staleness.promisedToBeat(p.kind(), p.startedAt(), p.heartbeatAt()))
                .toList();

        // 2. Sweep expired mailbox claims back to NEW.
        List<String> sweptClaims = sweepExpiredClaims(failures);

        // 3. Recover abandoned attempts, one transaction each; a failing item does not stop the others.
        List<Recovery> recovered = new ArrayList<>();
        List<Retirement> retired = new ArrayList<>();
        for (Attempt expired : store.expiredActiveAttempts()) {
            Settlement s;
            try {
                s = store.settle(expired.id());
            } catch (RuntimeException e) {
                failures.add(new TickFailure(
                        "attempt " + expired.id() + " of assignment " + expired.assignmentId(),
                        String.valueOf(e.getMessage())));
                continue;
            }
            if (s instanceof Recovered r) {
                recovered.add(new Recovery(
                        r.assignment().id(),
                        r.attempt().id(),
                        r.attempt().token(),
                        r.attempt().processIdentity(),
                        r.receipt().id(),
                        r.fenceWasStolen()));
                afterRecovery(r, failures); // only after the commit
            } else if (s instanceof Retired r) {
                retired.add(new Retirement(
                        r.attempt().id(), r.attempt().assignmentId(), r.state().name()));
            }
        }

        // 4. Nothing else: a supervisor never creates work.
        TickReport report = new TickReport(
                at, processIdentity, expiredLeases, staleProcesses, sweptClaims, recovered, retired, failures);
        String json = toJson(report);
        long seq = store.recordTick(report, json);
        return new Recorded(report, seq, json);
    }

    /**
     * Step 2 of the tick: the mailbox's own compare-and-set sweep (only claims expired at the
     * sweep's {@code now}, each journalled). A failure goes into {@code failures} and the tick goes on.
     */
    private List<String> sweepExpiredClaims(List<TickFailure> failures) {
        try {
            List<String> ids = new ArrayList<>();
            mailbox.sweepExpiredClaims().forEach(c -> ids.add(c.message()));
            return ids;
        } catch (RuntimeException e) {
            failures.add(new TickFailure("mailbox claim sweep", String.valueOf(e.getMessage())));
            return List.of();
        }
    }

    private void afterRecovery(Recovered r, List<TickFailure> failures) {
        Path ws;
        try {
            ws = workspaces.workspace(r.assignment().id());
        } catch (RuntimeException e) {
            return;
        }
        if (!workspaces.isPlainDirectory(ws)) {
            return; // the worker died before preparing it, or it is not ours to touch
        }
        try {
            workspaces.writeReceipt(ws, r.assignment(), r.receipt());
            workspaces.reclaim(ws, r.receipt().attemptId(), r.assignment().workspacePolicy());
        } catch (IOException e) {
            failures.add(new TickFailure(
                    "workspace of assignment " + r.assignment().id(),
                    "recovered, but the workspace could not be tidied: " + e.getMessage()));
        }
    }

    @Override
    public Optional<TickRecord> lastTick() {
        return store.lastTick();
    }

    static String toJson(TickReport r) {
        List<Object> leases = new ArrayList<>();
        r.expiredLeases()
                .forEach(l -> leases.add(Json.object()
                        .put("actor", l.actor())
                        .put("process", l.process())
                        .put("token", l.token())
                        .put("expires_at", l.expiresAt())));
        List<Object> stale = new ArrayList<>();
        r.staleProcesses()
                .forEach(p -> stale.add(Json.object()
                        .put("process", p.identity())
                        .put("pid", p.pid())
                        .put("label", p.label())
                        .put("heartbeat_at", p.heartbeatAt())));
        List<Object> recovered = new ArrayList<>();
        r.recovered()
                .forEach(x -> recovered.add(Json.object()
                        .put("assignment", x.assignmentId())
                        .put("attempt", x.attemptId())
                        .put("attempt_token", x.attemptToken())
                        .put("lost_process", x.lostProcess())
                        .put("receipt", x.receiptId())
                        .put("fence_was_stolen", x.fenceWasStolen())));
        List<Object> retired = new ArrayList<>();
        r.retired()
                .forEach(x -> retired.add(Json.object()
                        .put("attempt", x.attemptId())
                        .put("assignment", x.assignmentId())
                        .put("state", x.state())));
        List<Object> failures = new ArrayList<>();
        r.failures()
                .forEach(f -> failures.add(Json.object().put("item", f.item()).put("problem", f.problem())));
        return Json.object()
                .put("at", r.at())
                .put("process", r.processIdentity())
                .put("expired_leases", leases)
                .put("stale_processes", stale)
                .put("swept_claims", r.sweptClaims())
                .put("recovered", recovered)
                .put("retired", retired)
                .put("failures", failures)
                .toString();
    }
}
