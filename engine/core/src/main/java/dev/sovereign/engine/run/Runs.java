package dev.sovereign.engine.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Assignments and their execution attempts. Thread-safe: several runs may proceed at once on one
 * engine, also for the same actor (they share this process's lease for it, which is released when
 * the last of them ends, and only if a run acquired it); another process can run nothing for that
 * actor meanwhile.
 *
 * <p>{@link #runAssignment} follows contract §6 in exactly this order — the order is the
 * contract:
 * <ol>
 *   <li>load and validate (assignment exists and is runnable, actor exists, policy and provider
 *       spec known); nothing is written;</li>
 *   <li>the actor lease first ({@code acquireOrRenew}): a live lease of another process refuses
 *       {@code actor_lease_held}, the assignment stays CREATED and the provider is never invoked;</li>
 *   <li>attempt + RUNNING in ONE transaction that re-verifies the lease token, this process and its
 *       expiry inside it ({@code actor_lease_lost}), refuses a live attempt
 *       ({@code execution_attempt_held}) and supersedes an expired one;</li>
 *   <li>only now the workspace: the attempt's own folder {@code <dataDirectory>/runs/<assignment>/<attempt>/}
 *       with its {@code output/} ({@link RunFolders});</li>
 *   <li>the provider, on its own thread, while the engine's heartbeat renews the lease and the
 *       attempt; a lost grant cancels it (interrupt, subprocess tree destroyed);</li>
 *   <li>the terminal write: ONE fenced {@code UPDATE} on the attempt pointer and the bound lease
 *       token; zero rows is {@code execution_attempt_lost} (or {@code actor_lease_lost} when the lease
 *       moved), nothing is written and the refusal is journalled as {@code REJECTED};</li>
 *   <li>only after that commit: the receipt file and the workspace reclaim (the other attempts' folders
 *       are removed, best effort);</li>
 *   <li>finally: the actor lease is released (compare-and-set) if runs acquired it and this was the
 *       last run of this engine using it; a lease the engine already held (a worker hosting the
 *       actor) is left held.</li>
 * </ol>
 * The lease and attempt stay alive only while something beats: the engine's background heartbeat
 * (on by default), or the caller's {@code Engine.heartbeatNow()}.
 */
public interface Runs {
    /**
     * The lab's broken-fence switch, read once when an engine opens, off by default: with
     * {@code -Dsovereign.fault.ignoreTerminalFence=true} the terminal write skips its fence
     * ({@code WHERE id = ?} only), so the lab can show what fencing prevents. It takes effect ONLY on a
     * ledger created as a lab sandbox ({@link dev.sovereign.engine.Engine#isLabSandbox()}); on any
     * other ledger it is ignored, and the database's own guard refuses an unfenced terminal write.
     */
    String FAULT_IGNORE_TERMINAL_FENCE = "sovereign.fault.ignoreTerminalFence";

    /**
     * Creates a CREATED assignment for {@code actor}. {@code workspacePolicy} null means the actor's
     * own policy.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code unknown_actor}, {@code unknown_provider},
     *     {@code unknown_workspace_policy}
     */
    Assignment assign(String actor, String providerSpec, String workspacePolicy);

    default Assignment assign(String actor, String providerSpec) {
        return assign(actor, providerSpec, null);
    }

    /** Runs with the engine's default TTL for the lease and the attempt. */
    RunResult runAssignment(String assignmentId);

    /**
     * Runs the assignment (see the class comment for the order). Runnable are CREATED assignments
     * and RUNNING ones whose current attempt has expired (a takeover: the old attempt becomes
     * SUPERSEDED). Blocks until the provider finished and the terminal write committed.
     *
     * <p>A connection lost on the way to the terminal write's commit is settled by the ledger (decision 0115):
     * a receipt of this attempt means the end is committed, else the same fenced write is sent again; either way
     * the result carries a warning saying so. Only a ledger that cannot be asked again ends the run in a
     * {@link dev.sovereign.engine.base.StorageException}: {@code COMMIT_OUTCOME_UNKNOWN} when the lost write may
     * have committed, {@code IO} when it certainly did not.
     *
     * @param ttl the TTL of the actor lease and of the attempt for this run: 1 ms to 365 days, and at least two
     *     of this engine's heartbeat intervals when it beats in the background (decision 0114)
     * @throws dev.sovereign.engine.base.Refusal {@code invalid_argument} (the TTL), {@code assignment_missing},
     *     {@code assignment_not_runnable},
     *     {@code unknown_actor}, {@code unknown_workspace_policy}, {@code unknown_provider},
     *     {@code actor_lease_held}, {@code actor_lease_lost}, {@code execution_attempt_held},
     *     {@code execution_attempt_lost}; and {@code symlinked_workspace} or {@code workspace_not_directory},
     *     thrown after the run was ended as FAILED with a receipt naming that category
     */
    RunResult runAssignment(String assignmentId, Duration ttl);

    /**
     * Creates a new CREATED assignment with {@code retry_of} = this FAILED or BLOCKED one (same actor,
     * spec and policy). Never automatic; each assignment is retried at most once.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code assignment_missing}, {@code assignment_not_retryable}
     */
    Assignment retry(String assignmentId);

    /**
     * An operator's acknowledgement of a FAILED or BLOCKED assignment (typically a {@code worker_lost}
     * recovery): sets {@code acknowledged_at} once and journals {@code ASSIGNMENT_ACKNOWLEDGED}; a
     * second call changes nothing.
     *
     * @throws dev.sovereign.engine.base.Refusal {@code assignment_missing}; {@code invalid_argument} for an
     *     assignment that has not ended as FAILED or BLOCKED
     */
    Assignment acknowledge(String assignmentId);

    /**
     * An operator or lab action: clears {@code current_attempt} under a RUNNING assignment (the state
     * stays RUNNING) and journals {@code ATTEMPT_STOLEN}. The attempt's holder can then no longer
     * commit; when the attempt has expired, the supervisor recovers the assignment as FAILED /
     * {@code worker_lost}.
     *
     * @return the attempt whose fence was stolen
     * @throws dev.sovereign.engine.base.Refusal {@code assignment_missing}; {@code invalid_argument} when the
     *     assignment has no current attempt
     */
    Attempt stealFence(String assignmentId);

    Optional<Assignment> get(String assignmentId);

    /** Every assignment, newest first. */
    List<Assignment> list();

    /**
     * Up to {@code limit} assignments of {@code actor} that a host could run now, oldest first:
     * CREATED ones, and RUNNING ones whose current attempt has expired. A snapshot: running one may
     * still be refused (another host got there first).
     */
    List<Assignment> runnable(String actor, int limit);

    /** The attempts of one assignment, oldest first. */
    List<Attempt> attempts(String assignmentId);

    Optional<Receipt> receipt(String assignmentId);

    /**
     * Where the assignment's workspace is (or would be): {@code <dataDirectory>/runs/<assignment>/}. Each
     * attempt works in its own folder inside it; the canonical output is
     * {@code RunFolders.output(workspace(id), receipt.attemptId())}.
     */
    Path workspace(String assignmentId);
}
