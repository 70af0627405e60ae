package dev.sovereign.engine.lab;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.supervisor.TickReport;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
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

    /**
     * Waits until {@code by} started its own attempt at the stale attempt's job, or until the stale attempt
     * itself ended the job (its write accepted: only with the fence switched off or broken). The attempt
     * {@code by} started, or empty when the stale write came first and there is nothing left to re-run.
     */
    static Optional<Attempt> rerunUnlessEndedBy(LabRun run, String role, WorkerProcess by, Attempt stale)
            throws Inconclusive, InterruptedException {
        String job = stale.assignmentId();
        return run.await(
                "worker " + role + " to re-run the job",
                LabRun.WAIT,
                () -> {
                    Optional<Attempt> own = run.lab().runs().attempts(job).stream()
                            .filter(x -> x.processIdentity().equals(by.processIdentity()))
                            .findFirst();
                    if (own.isPresent()) {
                        return own;
                    }
                    boolean endedByStale = run.lab()
                            .runs()
                            .receipt(job)
                            .filter(r -> r.attemptId().equals(stale.id()))
                            .isPresent();
                    return endedByStale ? Optional.<Attempt>empty() : null;
                },
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

    /** What a step saw, and whether it is the fence failing ({@link LabRun#violated}) or not. */
    record Seen(String detail, boolean fenceFailed) {
        void tell(LabRun run) {
            if (fenceFailed) {
                run.violated(detail);
            } else {
                run.done(detail);
            }
        }
    }

    /**
     * Waits until the stale worker's run of its job ended (its own last word about it), then tells from the
     * journal, in the order it happened, what became of its late writes: all refused, or its stale result
     * ACCEPTED (only possible with the fence switched off). Never the worker's own error text: what the
     * ledger says, in plain words.
     *
     * @param afterSeq the journal row after which the worker is stale (B's takeover, the steal)
     * @param because  why it is stale, as a clause: "B had taken the actor over with token 3 at journal #5"
     */
    static Seen lateWrite(LabRun run, String role, WorkerProcess w, Attempt stale, long afterSeq, String because)
            throws Inconclusive, InterruptedException {
        runEnded(run, role, w, stale.assignmentId());
        LedgerFacts journal = run.facts();
        List<FenceEvent> commits =
                journal.of(EventKind.ATTEMPT_DONE, e -> e.resourceId().equals(stale.id()) && e.seq() > afterSeq);
        List<FenceEvent> refused = journal.of(
                EventKind.REJECTED, e -> w.processIdentity().equals(e.processIdentity()) && e.seq() > afterSeq);
        if (commits.isEmpty()) {
            if (refused.isEmpty()) {
                return new Seen(
                        "worker " + role + "'s run ended without writing anything; the job is "
                                + run.lab()
                                        .runs()
                                        .get(stale.assignmentId())
                                        .map(j -> j.state().name())
                                        .orElse("gone"),
                        false);
            }
            return new Seen(
                    "worker " + role + "'s late writes were all refused and journalled (" + rejected(refused)
                            + "), because " + because + ". Nothing of " + role + "'s was written.",
                    false);
        }
        FenceEvent commit = commits.get(0);
        List<FenceEvent> before =
                refused.stream().filter(e -> e.seq() < commit.seq()).toList();
        String outcome = run.lab()
                .runs()
                .receipt(stale.assignmentId())
                .filter(r -> r.attemptId().equals(stale.id()))
                .map(r -> "ended the job "
                        + run.lab()
                                .runs()
                                .get(stale.assignmentId())
                                .orElseThrow()
                                .state() + (r.failureCategory() == null ? "" : " (" + r.failureCategory() + ")"))
                .orElse("committed its result");
        return new Seen(
                "worker " + role
                        + (before.isEmpty()
                                ? "'s"
                                : "'s first writes were refused (" + rejected(before) + "), but then its")
                        + " stale result was ACCEPTED: at journal #" + commit.seq() + " its attempt " + stale.id()
                        + " (token " + stale.token() + ") " + outcome + ", although " + because + ". "
                        + (run.fenceSwitchedOff()
                                ? "With the terminal fence switched off, nothing checked that " + role
                                        + " was still the rightful holder."
                                : "Nothing stopped it: the fence failed."),
                true);
    }

    /**
     * Waits until the rightful worker's run of {@code job} ended, then tells from the ledger what became of its
     * result: committed, or lost because a stale write had already ended the job (an ended job is final).
     */
    static Seen rightfulResult(LabRun run, String role, WorkerProcess by, String job, Attempt stale, String staleRole)
            throws Inconclusive, InterruptedException {
        String line = runEnded(run, role, by, job);
        Optional<Attempt> own = run.lab().runs().attempts(job).stream()
                .filter(x -> x.processIdentity().equals(by.processIdentity()))
                .findFirst();
        Optional<Receipt> receipt = run.lab().runs().receipt(job);
        AssignmentState state = run.lab().runs().get(job).map(Assignment::state).orElse(null);
        if (receipt.isEmpty()) {
            return new Seen(
                    "worker " + role + "'s run ended without a result: the job is " + state + ", with no receipt",
                    false);
        }
        Receipt r = receipt.get();
        Optional<FenceEvent> done =
                run.facts().first(EventKind.ATTEMPT_DONE, e -> e.resourceId().equals(r.attemptId()));
        String at = done.map(e -> " (journal #" + e.seq() + ")").orElse("");
        if (own.isPresent() && r.attemptId().equals(own.get().id())) {
            return new Seen(
                    "worker " + role + "'s result was committed: its attempt "
                            + own.get().id() + " (token " + own.get().token() + ") ended the job " + state + at
                            + "; it is the canonical result.",
                    false);
        }
        boolean tried = line.startsWith("error") || line.startsWith("refused");
        return new Seen(
                "worker " + role + "'s result was lost: the job had already ended " + state + " by "
                        + (r.attemptId().equals(stale.id()) ? staleRole + "'s stale write" : "attempt " + r.attemptId())
                        + at + ", and an ended job is final"
                        + (tried ? ", so " + role + (own.isEmpty() ? " could not run it" : "'s write was refused") : "")
                        + ". " + role
                        + ", the rightful holder, committed nothing.",
                true);
    }

    /** {@code REJECTED #9, #10: actor_lease_lost}. */
    private static String rejected(List<FenceEvent> refused) {
        return "REJECTED "
                + String.join(", ", refused.stream().map(e -> "#" + e.seq()).toList())
                + ": "
                + String.join(
                        ", ",
                        refused.stream()
                                .map(e -> e.category() == null ? "no category" : e.category())
                                .distinct()
                                .toList());
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
