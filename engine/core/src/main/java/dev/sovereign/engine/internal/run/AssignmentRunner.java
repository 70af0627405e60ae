package dev.sovereign.engine.internal.run;

import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.ActorLeases;
import dev.sovereign.engine.lease.GrantLossListener;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Cancellation;
import dev.sovereign.engine.provider.CommandProvider;
import dev.sovereign.engine.provider.Job;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.provider.Provider;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.provider.Providers;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.spi.RunStore.Completion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@link Runs} for one engine: the orchestration of contract §6 (lease, attempt, workspace,
 * provider, terminal write, files, release — in that order) over the ledger operations of
 * {@link RunStore}. On a backend that writes runs in fewer transactions (SQLite) the lease is written in
 * the attempt's transaction and the release of a lease the run took in the terminal write's, so the
 * release comes before the files (decision 0508). Thread-safe.
 */
public final class AssignmentRunner implements Runs {
    /** How long a cancelled provider may take to stop before the run stops waiting for it. */
    static final Duration CANCEL_GRACE = Duration.ofSeconds(10);

    private static final long WAIT_SLICE_MS = 50;

    private final RunStore store;
    private final ActorLeases leases;
    private final Grants grants;
    private final Providers providers;
    private final Workspaces workspaces;
    private final Duration defaultTtl;
    /** The engine's background heartbeat interval, or null when it has none (its caller beats by hand). */
    private final Duration heartbeatInterval;

    private final CommandAllowList allowedCommands;
    /** actor → this engine's runs sharing its lease; guarded by itself. */
    private final Map<String, LeaseUse> leaseUses = new HashMap<>();

    /**
     * @param heartbeatInterval how often the engine's background heartbeat renews what runs hold, or null
     *     without one; a run's TTL must span {@link Arguments#RUN_TTL_MIN_BEATS} of them (decision 0114)
     */
    public AssignmentRunner(
            RunStore store,
            ActorLeases leases,
            Grants grants,
            Providers providers,
            Workspaces workspaces,
            Duration defaultTtl,
            Duration heartbeatInterval,
            CommandAllowList allowedCommands) {
        this.store = store;
        this.heartbeatInterval = heartbeatInterval;
        this.allowedCommands = allowedCommands;
        this.leases = leases;
        this.grants = grants;
        this.providers = providers;
        this.workspaces = workspaces;
        this.defaultTtl = defaultTtl;
    }

    /** The runs of this engine using one actor lease, and whether a run acquired it (so must release it). */
    private static final class LeaseUse {
        final long token;
        final boolean acquiredByRuns;
        int runs;

        LeaseUse(long token, boolean acquiredByRuns) {
            this.token = token;
            this.acquiredByRuns = acquiredByRuns;
        }
    }

    @Override
    public Assignment assign(String actor, String providerSpec, String workspacePolicy) {
        providers.validate(providerSpec);
        return store.assign(actor, providerSpec, workspacePolicy);
    }

    @Override
    public RunResult runAssignment(String assignmentId) {
        return runAssignment(assignmentId, defaultTtl);
    }

    @Override
    public RunResult runAssignment(String assignmentId, Duration ttl) {
        long ttlMs = Arguments.runTtlMillis(ttl, heartbeatInterval);
        // 1. Load and validate. Nothing is written.
        Assignment assignment = store.loadRunnable(assignmentId);
        Provider provider = providers.create(assignment.providerSpec());
        requireAllowed(assignment, provider);
        workspaces.workspace(assignment.id());
        // 2. The actor lease first. A live lease of another process refuses here (actor_lease_held):
        //    the assignment stays as it is and the provider is never invoked.
        // 3. Attempt + RUNNING in one transaction that re-verifies the lease token. A backend that writes
        //    runs in fewer transactions takes the lease in that same transaction (decision 0508): a refusal
        //    of either part then leaves nothing to release.
        Lease lease;
        Attempt started = null;
        if (store.writesRunsInFewerTransactions()) {
            RunStore.StartedAttempt both = useLeaseStartingTheAttempt(assignment, ttl, ttlMs);
            lease = both.lease();
            started = both.attempt();
        } else {
            lease = useLease(assignment.actorId(), ttl);
        }
        boolean[] interrupted = {false};
        RunResult result;
        try {
            Attempt attempt = started != null ? started : store.startAttempt(assignment.id(), lease.token(), ttlMs);
            result = runAttempt(assignment, attempt, provider, interrupted);
        } catch (Refusal r) {
            // 8. On every path after step 2; a failed release never replaces the refusal (decision 0109).
            String warning = releaseOrWarn(assignment.actorId(), lease.token(), interrupted);
            restoreInterrupt(interrupted);
            throw warning == null ? r : r.withWarning(warning);
        } catch (RuntimeException | Error e) {
            String warning = releaseOrWarn(assignment.actorId(), lease.token(), interrupted);
            if (warning != null) {
                e.addSuppressed(new IllegalStateException(warning));
            }
            restoreInterrupt(interrupted);
            throw e;
        }
        // 8. After a committed terminal write nothing may turn the run into a failure: a release that fails
        //    is a warning on the result (the lease expires on its own; decision 0109).
        String warning = releaseOrWarn(assignment.actorId(), lease.token(), interrupted);
        restoreInterrupt(interrupted);
        return warning == null ? result : result.withWarning(warning);
    }

    /**
     * Step 1, still before anything is written: a {@code command:} spec runs only when this engine's
     * allow-list matches it. Otherwise the refusal is journalled (REJECTED, {@code command_not_allowed})
     * and the assignment stays CREATED for a process that is allowed to run it (decision 0800).
     */
    private void requireAllowed(Assignment assignment, Provider provider) {
        if (!(provider instanceof CommandProvider command) || allowedCommands.allows(command.command())) {
            return;
        }
        String allowed = allowedCommands.isEmpty()
                ? "it was started without any --allow-command pattern"
                : "none of its --allow-command patterns " + allowedCommands.patterns() + " matches it";
        throw store.journalRefusal(Refusal.of(
                        RefusalCategory.COMMAND_NOT_ALLOWED,
                        "This process did not run"
                                + " assignment " + assignment.id() + ": it asks for the shell command '"
                                + command.command()
                                + "', and " + allowed
                                + ". The assignment stays CREATED; if you trust this command, run it"
                                + " with a process started with --allow-command PATTERN that matches it.")
                .resource("assignment", assignment.id())
                .actor(assignment.actorId())
                .build());
    }

    /** Restored only now, after the run's last write. */
    private static void restoreInterrupt(boolean[] interrupted) {
        if (interrupted[0]) {
            Thread.currentThread().interrupt();
        }
    }

    /** Step 8; a storage failure of the release comes back as a warning, never thrown. */
    private String releaseOrWarn(String actor, long token, boolean[] interrupted) {
        try {
            deferringInterrupts(
                    () -> {
                        unuseLease(actor, token);
                        return null;
                    },
                    interrupted);
            return null;
        } catch (StorageException e) {
            return "the actor lease of " + actor + " (token " + token + ") could not be released, so it stays held"
                    + " until it expires: " + e.getMessage();
        }
    }

    /**
     * Runs a write after the provider returned, so that an interrupt (a stop signal) can no longer cut it
     * short: the provider's outcome is known and must be written. An interrupt meanwhile is remembered in
     * {@code interrupted} and the write waits again, within the busy bound, for the lock.
     */
    private static <T> T deferringInterrupts(Supplier<T> write, boolean[] interrupted) {
        while (true) {
            if (Thread.interrupted()) {
                interrupted[0] = true;
            }
            try {
                return write.get();
            } catch (StorageException e) {
                if (!(e.getCause() instanceof InterruptedException)) {
                    throw e;
                }
                interrupted[0] = true;
            }
        }
    }

    private RunResult runAttempt(Assignment assignment, Attempt attempt, Provider provider, boolean[] interrupted) {
        Cancellation cancellation = new Cancellation();
        GrantLossListener onLoss = lost -> {
            boolean mine = ("actor".equals(lost.kind())
                            && lost.resourceId().equals(attempt.actorId())
                            && lost.token() == attempt.leaseToken())
                    || ("attempt".equals(lost.kind())
                            && lost.resourceId().equals(attempt.id())
                            && lost.token() == attempt.token());
            if (mine) {
                cancellation.cancel("the " + ("actor".equals(lost.kind()) ? "actor lease (token " : "attempt (token ")
                        + lost.token() + ") was lost");
            }
        };
        // From now on the heartbeat renews the attempt with the lease (both are in Grants), and a
        // refused renewal of either cancels the provider (step 5).
        grants.addListener(onLoss);
        grants.holdAttempt(attempt.id(), attempt.token());
        try {
            // 4. Only now the workspace: this attempt's own folder runs/<assignment>/<attempt>/ (0108).
            Path ws = workspaces.workspace(assignment.id());
            Path attemptWs;
            try {
                attemptWs = workspaces.prepare(assignment.id(), attempt.id());
            } catch (Refusal r) {
                endWithoutProvider(attempt, r.category().code(), r.getMessage());
                throw r;
            } catch (UncheckedIOException e) {
                endWithoutProvider(attempt, "workspace_error", e.getMessage());
                throw e;
            }
            // 5. The provider, on its own thread, cancelled when a grant is lost.
            Job job = new Job(
                    assignment.id(),
                    attempt.id(),
                    attempt.token(),
                    attempt.actorId(),
                    attemptWs,
                    attemptWs.resolve(Workspaces.OUTPUT),
                    cancellation);
            ProviderResult result = invoke(provider, job, interrupted);
            // 6. The terminal write: one fenced UPDATE; a refusal rolls back everything and is journalled. A
            //    connection lost on the way is settled by the ledger, never guessed (decision 0115).
            String category = result.outcome() == Outcome.FAILED
                    ? Optional.ofNullable(result.failureCategory()).orElse("provider_failed")
                    : null;
            List<String> warnings = new ArrayList<>();
            Completion done = deferringInterrupts(
                    () -> finishSettled(attempt, result.outcome(), category, result.summary(), warnings), interrupted);
            // 7. Only after the commit: the receipt file and the reclaim. Nothing here can fail the run.
            RunResult committed;
            try {
                committed = afterCommit(done, ws);
            } catch (RuntimeException e) {
                committed = new RunResult(
                        done.assignment(),
                        done.attempt(),
                        done.receipt(),
                        ws,
                        null,
                        List.of("the files after the commit could not be written: " + e));
            }
            for (String w : warnings) {
                committed = committed.withWarning(w);
            }
            return committed;
        } finally {
            grants.dropAttempt(attempt.id());
            grants.removeListener(onLoss);
        }
    }

    /**
     * Step 6, settled by the ledger when the connection was lost on the way (decision 0115). A write lost before
     * its commit wrote nothing; a write lost while its COMMIT was in flight may or may not have taken effect. In
     * both cases the ledger is asked on a new connection: a receipt of this attempt means the end is committed
     * (the run's result, with a warning); otherwise the same fenced write is sent again (it waits for any
     * transaction of the lost connection still holding the rows, and commits only if this attempt is still the
     * fence), and a refusal of it is checked once more for this attempt's receipt. Only when the ledger cannot
     * be reached at all does the run end in a storage error: {@code IO} when nothing was written,
     * {@code COMMIT_OUTCOME_UNKNOWN} when it may have been.
     */
    private Completion finishSettled(
            Attempt attempt, Outcome outcome, String failureCategory, String summary, List<String> warnings) {
        try {
            return finishAndMaybeRelease(attempt, outcome, failureCategory, summary);
        } catch (StorageException lost) {
            if (lost.problem() != StorageException.Problem.COMMIT_OUTCOME_UNKNOWN
                            && lost.problem() != StorageException.Problem.IO
                    || lost.getCause() instanceof InterruptedException) {
                throw lost;
            }
            return settle(attempt, outcome, failureCategory, summary, lost, warnings);
        }
    }

    private Completion settle(
            Attempt attempt,
            Outcome outcome,
            String failureCategory,
            String summary,
            StorageException lost,
            List<String> warnings) {
        boolean mayHaveCommitted = lost.problem() == StorageException.Problem.COMMIT_OUTCOME_UNKNOWN;
        String what = "the end of the run of assignment " + attempt.assignmentId() + " (" + outcome + ", attempt "
                + attempt.id() + " token " + attempt.token() + ")";
        try {
            Optional<Completion> committed = committedEnd(attempt);
            if (committed.isPresent()) {
                warnings.add("the connection to the ledger was lost while " + what + " was being committed ("
                        + lost.getMessage() + "); read again on a new connection, the ledger shows it committed");
                return committed.get();
            }
            try {
                Completion again = finishAndMaybeRelease(attempt, outcome, failureCategory, summary);
                warnings.add("the connection to the ledger was lost while " + what + " was being written ("
                        + lost.getMessage() + "); the ledger showed it not committed, so it was written again on a"
                        + " new connection (fenced as before)");
                return again;
            } catch (Refusal refused) {
                Optional<Completion> meanwhile = committedEnd(attempt);
                if (meanwhile.isPresent()) {
                    warnings.add("the connection to the ledger was lost while " + what + " was being committed ("
                            + lost.getMessage() + "); the lost commit took effect after all, as the ledger shows");
                    return meanwhile.get();
                }
                throw refused;
            }
        } catch (StorageException stillLost) {
            if (!mayHaveCommitted) {
                throw new StorageException(
                        lost.problem(),
                        lost.file(),
                        "Nothing of " + what + " was written: "
                                + lost.getMessage() + " Writing it again failed too ("
                                + stillLost.getMessage()
                                + "), so the attempt stays RUNNING until it expires and a supervisor"
                                + " recovers it as worker_lost.",
                        lost);
            }
            throw new StorageException(
                    StorageException.Problem.COMMIT_OUTCOME_UNKNOWN,
                    lost.file(),
                    "Whether "
                            + what
                            + " was committed is unknown: the connection to the ledger was lost while it was being"
                            + " committed (" + lost.getMessage() + "), and the ledger could not be read again ("
                            + stillLost.getMessage()
                            + "). The ledger decides: once it can be reached, 'sovereign assignments'"
                            + " shows the assignment ended with a receipt of this attempt, or RUNNING until a supervisor"
                            + " recovers it as worker_lost; do not run it again before looking.",
                    lost);
        }
    }

    /**
     * The committed end of {@code attempt}, read from the ledger: its assignment's receipt names it and is the
     * attempt's own terminal write. A supervisor's recovery of the attempt names it too ({@code worker_lost}, the
     * outcome unknown): that is not this run's end, and the run must not report it as its result (the torture run
     * found one that did, after its fence was stolen and its connection lost).
     */
    private Optional<Completion> committedEnd(Attempt attempt) {
        Optional<Receipt> receipt = store.receipt(attempt.assignmentId());
        if (receipt.isEmpty()
                || !receipt.get().attemptId().equals(attempt.id())
                || !receipt.get().outcomeKnown()
                || Receipt.WORKER_LOST.equals(receipt.get().failureCategory())) {
            return Optional.empty();
        }
        Assignment assignment = store.get(attempt.assignmentId())
                .orElseThrow(
                        () -> new IllegalStateException("a receipt without its assignment " + attempt.assignmentId()));
        return Optional.of(
                new Completion(assignment, store.attempt(attempt.id()).orElse(attempt), receipt.get()));
    }

    /**
     * Step 6, and step 8 with it when the backend can (decision 0508): the last of this engine's runs
     * using a lease a run acquired releases it in the terminal write's own transaction. The release then
     * finds nothing left to do in {@code finally}. Under {@code leaseUses}' lock, so no other run of this
     * engine can start using the lease between the decision and the commit.
     */
    private Completion finishAndMaybeRelease(Attempt attempt, Outcome outcome, String failureCategory, String summary) {
        if (!store.writesRunsInFewerTransactions()) {
            return store.finish(attempt, outcome, failureCategory, true, summary);
        }
        synchronized (leaseUses) {
            LeaseUse use = leaseUses.get(attempt.actorId());
            boolean lastUser = use != null && use.token == attempt.leaseToken() && use.runs == 1 && use.acquiredByRuns;
            if (!lastUser) {
                return store.finish(attempt, outcome, failureCategory, true, summary);
            }
            Completion done = store.finishReleasingTheLease(attempt, outcome, failureCategory, true, summary);
            if (done.leaseReleased()) {
                leaseUses.remove(attempt.actorId());
            }
            return done;
        }
    }

    /** Ends a run whose workspace could not be prepared as FAILED (fenced like any terminal write). */
    private void endWithoutProvider(Attempt attempt, String category, String why) {
        store.finish(
                attempt,
                Outcome.FAILED,
                category,
                true,
                "the provider was not invoked: the workspace could not be prepared (" + why + ")");
    }

    private RunResult afterCommit(Completion done, Path ws) {
        List<String> warnings = new ArrayList<>();
        Path receiptFile = null;
        if (workspaces.isPlainDirectory(ws)) {
            try {
                receiptFile = workspaces.writeReceipt(ws, done.assignment(), done.receipt());
            } catch (IOException e) {
                warnings.add("could not write the receipt file in " + ws + ": " + e.getMessage());
            }
            try {
                workspaces.reclaim(
                        ws, done.receipt().attemptId(), done.assignment().workspacePolicy());
            } catch (IOException e) {
                warnings.add("could not reclaim the workspace " + ws + ": " + e.getMessage());
            }
        } else {
            warnings.add("the workspace " + ws + " is no longer a plain directory; left untouched");
        }
        return new RunResult(done.assignment(), done.attempt(), done.receipt(), ws, receiptFile, warnings);
    }

    /**
     * Runs the provider on its own thread and waits for it. A cancellation (lost grant) interrupts
     * it; a provider that ignores cancellation is waited for at most {@link #CANCEL_GRACE}. An
     * interrupt of the calling thread cancels the provider too; it is remembered in
     * {@code callerInterrupted} and restored by the caller once the run's writes are done.
     */
    private static ProviderResult invoke(Provider provider, Job job, boolean[] callerInterrupted) {
        FutureTask<ProviderResult> task = new FutureTask<>(() -> provider.run(job));
        Thread thread = new Thread(task, "sovereign-provider-" + job.attemptId());
        thread.setDaemon(true);
        job.cancellation().onCancel(thread::interrupt);
        thread.start();
        long cancelledAt = 0;
        while (true) {
            try {
                ProviderResult r = task.get(WAIT_SLICE_MS, TimeUnit.MILLISECONDS);
                return r != null ? r : ProviderResult.failed("provider_error", "the provider returned no result");
            } catch (TimeoutException e) {
                if (job.cancellation().isCancelled()) {
                    cancelledAt = cancelledAt == 0 ? System.nanoTime() : cancelledAt;
                    if (System.nanoTime() - cancelledAt > CANCEL_GRACE.toNanos()) {
                        return ProviderResult.cancelled(
                                job.cancellation().reason().orElse("cancelled") + "; the provider did not stop within "
                                        + CANCEL_GRACE.toSeconds() + " s");
                    }
                }
            } catch (InterruptedException e) {
                callerInterrupted[0] = true;
                job.cancellation().cancel("the run was interrupted");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (job.cancellation().isCancelled() || cause instanceof InterruptedException) {
                    return ProviderResult.cancelled(job.cancellation().reason().orElse("interrupted"));
                }
                return ProviderResult.failed("provider_error", "the provider failed: " + cause);
            }
        }
    }

    // ---- the actor lease, shared by this engine's runs of one actor ----

    private Lease useLease(String actor, Duration ttl) {
        synchronized (leaseUses) {
            Lease before = grants.lease(actor);
            // One transaction: this process's own row is renewed with its own TTL, else the lease is
            // acquired with the run's. No probing renewal first, so a lease lost meanwhile costs one
            // refusal (actor_lease_held) and one REJECTED row, not two.
            Lease lease = leases.acquireOrRenewKeepingTtl(actor, ttl);
            countUse(actor, before, lease);
            return lease;
        }
    }

    /** {@link #useLease} and step 3 in one transaction; a refusal changes neither the ledger nor the count. */
    private RunStore.StartedAttempt useLeaseStartingTheAttempt(Assignment assignment, Duration ttl, long ttlMs) {
        synchronized (leaseUses) {
            Lease before = grants.lease(assignment.actorId());
            RunStore.StartedAttempt started = store.startAttemptUnderTheLease(assignment.id(), ttl, ttlMs);
            countUse(assignment.actorId(), before, started.lease());
            return started;
        }
    }

    /** One more run of this engine uses {@code lease}; whether a run acquired it is decided by its first user. */
    private void countUse(String actor, Lease before, Lease lease) {
        LeaseUse use = leaseUses.get(actor);
        if (use == null || use.token != lease.token()) {
            boolean heldBefore = before != null && before.token() == lease.token();
            use = new LeaseUse(lease.token(), !heldBefore);
            leaseUses.put(actor, use);
        }
        use.runs++;
    }

    private void unuseLease(String actor, long token) {
        synchronized (leaseUses) {
            LeaseUse use = leaseUses.get(actor);
            if (use == null || use.token != token) {
                return;
            }
            use.runs--;
            if (use.runs == 0) {
                leaseUses.remove(actor);
                if (use.acquiredByRuns) {
                    leases.release(actor, token);
                }
            }
        }
    }

    // ---- operator actions and reads ----

    @Override
    public Assignment retry(String assignmentId) {
        return store.retry(assignmentId);
    }

    @Override
    public Assignment acknowledge(String assignmentId) {
        return store.acknowledge(assignmentId);
    }

    @Override
    public Attempt stealFence(String assignmentId) {
        return store.stealFence(assignmentId);
    }

    @Override
    public Optional<Assignment> get(String assignmentId) {
        return store.get(assignmentId);
    }

    @Override
    public List<Assignment> list() {
        return store.list();
    }

    @Override
    public List<Assignment> runnable(String actor, int limit) {
        return store.runnable(actor, limit);
    }

    @Override
    public List<Attempt> attempts(String assignmentId) {
        return store.attempts(assignmentId);
    }

    @Override
    public Optional<Receipt> receipt(String assignmentId) {
        return store.receipt(assignmentId);
    }

    @Override
    public Path workspace(String assignmentId) {
        return workspaces.workspace(assignmentId);
    }
}
