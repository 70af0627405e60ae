package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.RunResult;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sovereign run ASSIGNMENT [--ttl DUR]}: runs one assignment in this process, in the order of
 * contract §6 (actor lease first, attempt + RUNNING, workspace, provider, fenced terminal write,
 * files, lease released), with the heartbeat renewing the lease and the attempt while the provider
 * works. Blocks until the terminal write committed. A {@code command:} assignment runs only when an
 * {@code --allow-command} pattern matches it; otherwise exit 1 ({@code command_not_allowed}, journalled)
 * and it stays CREATED (decision 0800).
 *
 * <p>Exit 0 for every committed terminal state, COMPLETED, BLOCKED or FAILED alike: the command's job
 * is to run the assignment to a canonical end, and the ledger accepted that end. The outcome is in the
 * output ({@code state} and {@code receipt.status} in JSON). Exit 1 only when the ledger refused
 * (lease held by another process, attempt lost, ...). See docs/decisions/0311.
 *
 * <p>SIGINT or SIGTERM while it runs cancels the provider; the run still ends with a fenced terminal
 * write (FAILED, {@code cancelled}), the lease is released, the result is printed, and the exit code
 * is 130.
 *
 * <p>With {@code --process ID} the run acts as that identity; a live lease it already holds for the
 * actor is used and left held afterwards, with its own TTL (the call does not release a durable identity's
 * leases; decision 0110).
 */
@Command(name = "run", description = "Run an assignment here; print outcome, attempt token, receipt.")
final class RunCommand extends EngineCommand {
    @Parameters(paramLabel = "ASSIGNMENT", description = "The assignment (asg_...).")
    String assignment;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "TTL of the attempt, and of the actor lease when this run acquires it (a lease the"
                    + " --process identity already holds keeps its own TTL); the heartbeat renews them at a"
                    + " third of it (default: 10s).")
    Duration ttl;

    @Mixin
    AllowCommandOptions allowCommands;

    /** The TTL given, else a serve process's own (its {@code --ttl}), else 10s. */
    private Duration ttl() {
        if (ttl != null) {
            return ttl;
        }
        Engine host = SovereignCommand.of(spec).host();
        return host != null ? host.config().defaultTtl() : Duration.ofSeconds(10);
    }

    @Override
    protected boolean heartbeats() {
        return true;
    }

    /** A third of the TTL, from 50 ms to 1 s (decision 0311). */
    static Duration beat(Duration ttl) {
        return Duration.ofMillis(Math.max(50, Math.min(1_000, ttl.toMillis() / 3)));
    }

    /** The TTL of a process that hosts actors ({@code worker}, {@code serve}): the one given, else 10s. */
    static Duration hostingTtl(Duration given) {
        return given != null ? given : Duration.ofSeconds(10);
    }

    /**
     * A hosting process's TTL is its leases', claims' and runs': within the rule book's limits and long enough
     * for its own heartbeat ({@link #beat}); exit 2 before anything is opened.
     */
    static void checkHostingTtl(Duration ttl) {
        Arguments.leaseTtlMillis(ttl);
        Arguments.runTtlMillis(ttl, beat(ttl));
    }

    /** A hosting process beats at {@link #beat}, gives {@code ttl} where a call names none, runs what is allowed. */
    static EngineConfig.Builder hosting(EngineConfig.Builder config, Duration ttl, AllowCommandOptions allowed) {
        return config.heartbeatInterval(beat(ttl)).defaultTtl(ttl).allowCommands(allowed.allowList());
    }

    /**
     * The TTL within the rule book's limits and long enough for this call's heartbeat (decision 0114): exit 2
     * before anything is opened.
     */
    @Override
    protected void checkArguments() {
        Arguments.runTtlMillis(ttl());
        // a request of a serve process runs under that process's heartbeat, not one of its own
        Arguments.runTtlMillis(ttl(), hostHeartbeat() != null ? hostHeartbeat() : beat(ttl()));
    }

    /**
     * A run registers its process with its first write (the lease), so an assignment id that names nothing,
     * or a run refused before it wrote, leaves no process row (decision 0315); its heartbeat starts with the
     * lease.
     */
    @Override
    protected boolean registersWhenOpened() {
        return false;
    }

    @Override
    protected void customize(EngineConfig.Builder config, CliEnvironment environment) {
        config.heartbeatInterval(beat(ttl())).defaultTtl(ttl()).allowCommands(allowCommands.allowList());
    }

    @Override
    protected int run(Engine engine, Output out) {
        if (SovereignCommand.of(spec).process() != null) {
            adoptHeldLease(engine);
        }
        Interruptible run = new Interruptible(Thread.currentThread());
        RunResult result;
        try (StopSignals.Stop stop =
                SovereignCommand.of(spec).environment().stopSignals().listen()) {
            Thread watcher = new Thread(
                    () -> {
                        try {
                            stop.await(Duration.ofDays(3650));
                            run.interrupt();
                        } catch (InterruptedException ignored) {
                            // the run ended first
                        }
                    },
                    "run-stop");
            watcher.setDaemon(true);
            watcher.start();
            try {
                result = engine.runs().runAssignment(assignment, ttl());
            } catch (UncheckedIOException e) {
                throw new UncheckedIOException(
                        "The run of assignment " + assignment + " could not prepare its"
                                + " workspace, so it was ended as FAILED (workspace_error) without invoking the provider: "
                                + e.getMessage(),
                        e.getCause());
            } finally {
                run.finish();
                watcher.interrupt();
            }
        }
        // The result is committed: from here on only warnings, never a failure (decisions 0109, 0115).
        AssignmentFacts facts;
        try {
            facts = AssignmentFacts.read(engine, result.assignment());
        } catch (StorageException lostAfterCommit) {
            facts = readAgain(engine, result);
            result = result.withWarning(
                    facts == null
                            ? "the run's end is committed, but the ledger could not be" + " read back ("
                                    + lostAfterCommit.getMessage() + "); shown above is what this run committed"
                            : "the run's end is committed, but reading it back failed (" + lostAfterCommit.getMessage()
                                    + "); the result above was read again");
            if (facts == null) {
                facts = AssignmentFacts.committed(result);
            }
        }
        AssignmentOutput.printRun(out, facts, result);
        PrintWriter err = spec.commandLine().getErr();
        result.warnings().forEach(w -> err.println("warning: " + ErrorMapper.sentence(w)));
        try {
            if (run.wasInterrupted() && cancelledBySignal(result)) {
                err.println("interrupted: The run was stopped by a signal; the provider was"
                        + " cancelled and the run ended as shown above.");
                return ExitCode.INTERRUPTED;
            }
            if (run.wasInterrupted()) {
                err.println("warning: A stop signal arrived after the provider had finished; it changed nothing,"
                        + " and the run's result was committed as shown above.");
            }
            return ExitCode.OK;
        } finally {
            err.flush();
        }
    }

    /**
     * The committed run's facts read once more (a lost connection is connected again by the next call), or null
     * when the ledger still cannot be read: the caller then shows what the run itself committed.
     */
    private static AssignmentFacts readAgain(Engine engine, RunResult result) {
        try {
            return AssignmentFacts.read(engine, result.assignment());
        } catch (StorageException again) {
            return null;
        }
    }

    /** The signal reached the provider: the committed receipt says the run was cancelled. */
    private static boolean cancelledBySignal(RunResult result) {
        return result.receipt() != null && "cancelled".equals(result.receipt().failureCategory());
    }

    /**
     * A durable identity that already hosts the actor keeps hosting it: renewing the lease once through
     * this engine makes it one this engine holds, so the run uses it and leaves it held (the engine
     * releases only a lease a run acquired). If the renewal is refused the lease was lost meanwhile,
     * and the run itself reports what holds it.
     */
    private void adoptHeldLease(Engine engine) {
        Optional<Assignment> a = engine.runs().get(assignment);
        if (a.isEmpty()) {
            return;
        }
        String actor = a.get().actorId();
        long now = engine.config().clock().millis();
        Optional<Lease> held = engine.leases()
                .current(actor)
                .filter(l -> l.process().equals(engine.processIdentity()) && !l.isExpiredAt(now));
        if (held.isPresent()) {
            try {
                engine.leases().renew(actor, held.get().token());
            } catch (Refusal lostMeanwhile) {
                // runAssignment acquires or refuses with the current holder named
            }
        }
    }

    /** Interrupts the running thread on a stop, but only while the run is in progress. Thread-safe. */
    private static final class Interruptible {
        private final Thread runner;
        private boolean running = true;
        private boolean interrupted;

        Interruptible(Thread runner) {
            this.runner = runner;
        }

        synchronized void interrupt() {
            if (running) {
                interrupted = true;
                runner.interrupt();
            }
        }

        /** The run returned: no more interrupts; clears one that the engine restored for us. */
        synchronized void finish() {
            running = false;
            Thread.interrupted();
        }

        synchronized boolean wasInterrupted() {
            return interrupted;
        }
    }
}
