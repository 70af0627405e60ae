package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.supervisor.TickReport;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/** The moves several scenarios share, each waiting until the ledger shows it happened. */
final class Moves {
    /** The TTL of every scenario worker: short, so a takeover happens within about a second. */
    static final Duration TTL = Duration.ofSeconds(1);

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private Moves() {}

    /** Starts a worker and waits until it hosts the run's actor (its grant is in the journal). */
    static WorkerProcess hostingWorker(LabRun run, String role, Duration clockOffset)
            throws IOException, Inconclusive, InterruptedException {
        WorkerProcess w = startedWorker(run, role, clockOffset);
        FenceEvent grant = run.await(
                "worker " + role + " to host " + run.actor(),
                LabRun.WAIT,
                () -> run.facts().grants().stream()
                        .filter(e -> w.processIdentity().equals(e.processIdentity()))
                        .findFirst()
                        .orElse(null),
                () -> w.isAlive() ? null : "worker " + role + " exited");
        run.done(who(role, w) + " hosts " + run.actor() + " with token " + grant.token() + " (journal #" + grant.seq()
                + ")");
        return w;
    }

    /** Starts a worker and waits for its {@code started} line (so its process identity is known). */
    static WorkerProcess startedWorker(LabRun run, String role, Duration clockOffset)
            throws IOException, Inconclusive, InterruptedException {
        WorkerProcess w = run.startWorker(role, TTL, clockOffset);
        run.awaitLine(w, l -> l.startsWith("started "), "worker " + role + " to start");
        return w;
    }

    /** "worker A (pid 123)". */
    static String who(String role, WorkerProcess w) {
        return "worker " + role + " (pid " + w.pid() + ")";
    }

    /**
     * Gives the run's actor a scripted job of {@code length} and waits until {@code w} has started an
     * attempt for it.
     */
    static Attempt jobStartedBy(LabRun run, String role, WorkerProcess w, Duration length)
            throws Inconclusive, InterruptedException {
        Assignment job =
                run.lab().runs().assign(run.actor(), "scripted:ms=" + length.toMillis() + ",outcome=completed");
        Attempt a = run.await(
                "worker " + role + " to start job " + job.id(),
                LabRun.WAIT,
                () -> run.lab().runs().attempts(job.id()).stream()
                        .filter(x -> x.processIdentity().equals(w.processIdentity()))
                        .findFirst()
                        .orElse(null),
                () -> w.isAlive() ? null : "worker " + role + " exited");
        run.done("job " + job.id() + " (" + length.toMillis() + " ms); " + who(role, w) + " runs it as attempt "
                + a.id() + " with token " + a.token() + ", bound to lease token " + a.leaseToken());
        return a;
    }

    /** Waits until another process took the actor over from {@code from}'s lease; that grant. */
    static FenceEvent takeoverBy(LabRun run, String role, WorkerProcess by) throws Inconclusive, InterruptedException {
        return run.await(
                "worker " + role + " to take " + run.actor() + " over",
                LabRun.WAIT,
                () -> run.facts()
                        .first(
                                EventKind.LEASE_TAKEN_OVER,
                                e -> by.processIdentity().equals(e.processIdentity()))
                        .orElse(null),
                () -> by.isAlive() ? null : "worker " + role + " exited");
    }

    /**
     * Waits until {@code process} wrote about the job after {@code afterSeq}: a refusal of its write,
     * or a commit of its attempt; that event.
     */
    static FenceEvent lateWriteOf(LabRun run, String role, String process, Attempt attempt, long afterSeq)
            throws Inconclusive, InterruptedException {
        return run.await(
                "worker " + role + "'s late write",
                LabRun.WAIT,
                () -> run.facts().events().stream()
                        .filter(e -> e.seq() > afterSeq
                                && ((e.kind() == EventKind.REJECTED
                                                && process.equals(e.processIdentity())
                                                && attempt.assignmentId().equals(e.resourceId()))
                                        || (e.kind() == EventKind.ATTEMPT_DONE
                                                && attempt.id().equals(e.resourceId()))))
                        .findFirst()
                        .orElse(null));
    }

    /** Waits until {@code by} started its own attempt at {@code job} (superseding the expired one). */
    static Attempt rerunBy(LabRun run, String role, WorkerProcess by, String job)
            throws Inconclusive, InterruptedException {
        return run.await(
                "worker " + role + " to re-run the job",
                LabRun.WAIT,
                () -> run.lab().runs().attempts(job).stream()
                        .filter(x -> x.processIdentity().equals(by.processIdentity()))
                        .findFirst()
                        .orElse(null),
                () -> jobEnded(run, job).orElse(by.isAlive() ? null : "worker " + role + " exited"));
    }

    /** Waits until {@code by}'s run of {@code job} ended (ran, refused, or an error); the line it printed. */
    static String runEnded(LabRun run, String role, WorkerProcess by, String job)
            throws Inconclusive, InterruptedException {
        return run.awaitLine(
                        by,
                        l -> ((l.startsWith("ran ") || l.startsWith("refused")) && l.contains(job))
                                || l.startsWith("error"),
                        "worker " + role + "'s run to end")
                .trim();
    }

    /**
     * Why nobody will run {@code job} again, if it already ended: with the fence switched off a stale
     * write may have ended it, and a supervisor ticking on the same database may have recovered it.
     */
    static Optional<String> jobEnded(LabRun run, String job) {
        return run.lab()
                .runs()
                .get(job)
                .filter(j -> j.state() != AssignmentState.RUNNING && j.state() != AssignmentState.CREATED)
                .map(j -> "the job already ended " + j.state()
                        + run.lab()
                                .runs()
                                .receipt(job)
                                .map(r -> " (receipt: " + r.status().code()
                                        + (r.failureCategory() == null ? "" : " / " + r.failureCategory()) + ")")
                                .orElse(""));
    }

    /** How a late write ended, in words. */
    static String describeLateWrite(String role, FenceEvent e) {
        if (e.kind() == EventKind.REJECTED) {
            return "worker " + role + "'s write was refused: " + e.category() + ", presented token "
                    + e.presentedToken() + ", current token " + (e.currentToken() == null ? "none" : e.currentToken())
                    + " (REJECTED, journal #" + e.seq() + ")";
        }
        return "worker " + role + "'s write was COMMITTED (journal #" + e.seq() + ": " + e.detail() + ")";
    }

    /** Waits until {@code attempt} has expired by the lab's clock (re-reading it: a heartbeat may extend it). */
    static Attempt expired(LabRun run, Attempt attempt) throws Inconclusive, InterruptedException {
        return run.await("attempt " + attempt.id() + " to expire", LabRun.WAIT, () -> {
            Attempt now = run.lab().runs().attempts(attempt.assignmentId()).stream()
                    .filter(x -> x.id().equals(attempt.id()))
                    .findFirst()
                    .orElseThrow();
            return now.isExpiredAt(run.lab().config().clock().millis()) ? now : null;
        });
    }

    /** One supervisor tick by the lab's process; the recovery of {@code assignment} it made, if any. */
    static Optional<TickReport.Recovery> tick(LabRun run, String assignment) {
        TickReport r = run.lab().supervisor().tick();
        return r.recovered().stream()
                .filter(x -> x.assignmentId().equals(assignment))
                .findFirst();
    }

    static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }
}
