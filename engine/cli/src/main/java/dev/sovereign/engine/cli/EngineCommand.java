package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.rules.Arguments;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that works on the ledger: opens an {@link Engine} on the chosen database, runs, closes.
 * A subclass writes only {@link #run(Engine, Output)}; opening, identity, printing and failures are
 * handled here and in {@link ErrorMapper}, so a new command is one small class.
 *
 * <p>Every call is its own process for fencing (kind {@code cli}, no heartbeat): a short call with a
 * fresh identity that is marked stopped, and its leases released, when the call ends. With
 * {@code --process ID} the call acts as that durable identity instead (registering it if it is new)
 * and leaves it exactly as it found it. A command whose result must outlive the call (a lease it
 * acquires) asks for a {@linkplain Identity#DURABLE durable} identity: without {@code --process} it
 * mints one, acts as it, and prints it so later calls can pass it. See
 * docs/decisions/0301-cli-process-identity.md.
 *
 * <p>A call that does not heartbeat registers its identity lazily: with its first write that commits, never
 * for a call that only reads or is refused (docs/decisions/0304-read-only-calls-register-no-process.md).
 *
 * <p>Not thread-safe: picocli creates one instance per command line and runs it once.
 */
abstract class EngineCommand implements Callable<Integer> {
    /** How a call without {@code --process} appears in the process registry. */
    enum Identity {
        /** A fresh identity, stopped (and its leases released) when the call ends. */
        EPHEMERAL,
        /** A fresh identity that outlives the call: it is not stopped and keeps what it acquired. */
        DURABLE
    }

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
        SovereignCommand root = SovereignCommand.of(spec);
        Output out = root.output(spec);
        if (root.host() != null) {
            // one request of a serve process: its engine, identity and heartbeat, opened and closed by the
            // serve command, never by the request (docs/decisions/0317)
            checkArguments();
            beforeOpen(root.host().config().location());
            return run(root.host(), out);
        }
        LedgerLocation database = root.location();
        // what was typed is checked before anything is opened or registered: a bad value is one sentence and
        // exit 2, and leaves the ledger as it was (no process row; decisions 0304, 0315)
        Arguments.durationMillis(root.busyTimeout(), "busy timeout (--busy-timeout)");
        checkArguments();
        beforeOpen(database);
        EngineConfig config = config(root, database);
        try (Engine engine = createsDatabase() ? Engine.open(config) : Engine.openExisting(config)) {
            return run(engine, out);
        }
    }

    /**
     * Checks the command's own arguments against the rule book ({@code Arguments}) before the engine opens;
     * a bad value throws a {@code Refusal} ({@code invalid_argument}: exit 2). Nothing is open yet.
     */
    protected void checkArguments() {}

    /**
     * The heartbeat interval of the serve process this call is a request of, or null for a call that opens its
     * own engine: a TTL a request gives must span two of its beats.
     */
    protected final Duration hostHeartbeat() {
        Engine host = SovereignCommand.of(spec).host();
        return host == null ? null : host.config().heartbeatInterval();
    }

    /** Starts a daemon thread of a long-running command (its stop watcher, its input reader). */
    protected static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Called with the resolved database (a file or a server) before the engine opens it; nothing is open yet. */
    protected void beforeOpen(LedgerLocation database) {}

    /** Does the command's work; returns its exit code (normally {@link ExitCode#OK}). */
    protected abstract int run(Engine engine, Output out) throws Exception;

    protected Identity identity() {
        return Identity.EPHEMERAL;
    }

    /** Only {@code init} creates a missing database; every other command refuses one. */
    protected boolean createsDatabase() {
        return false;
    }

    /** Long-running commands keep their process visibly alive; short calls do not beat. */
    protected boolean heartbeats() {
        return false;
    }

    /**
     * Whether the process row is written when the engine opens (long-running commands, so they show as live at
     * once) or only with the first write that commits (every other call, and a {@code run} or {@code worker},
     * which check what was typed with a read first; decisions 0304, 0315).
     */
    protected boolean registersWhenOpened() {
        return heartbeats();
    }

    /** Lets a long-running command set its own process kind, label, clock or heartbeat interval. */
    protected void customize(EngineConfig.Builder config, CliEnvironment environment) {}

    /** The identity this call acts as, if it is durable ({@code --process} or minted); else null. */
    private String actAs(SovereignCommand root) {
        String given = root.process();
        if (given != null) {
            return given;
        }
        return identity() == Identity.DURABLE ? "proc_" + UUID.randomUUID() : null;
    }

    private EngineConfig config(SovereignCommand root, LedgerLocation database) {
        EngineConfig.Builder b = EngineConfig.forDatabase(database)
                .clock(root.environment().clock())
                .busyBound(root.busyTimeout())
                .heartbeat(heartbeats())
                // a call that only reads registers no process; one that writes registers with its first
                // write that commits (docs/decisions/0304); long-running commands register when they open
                .registerLazily(!registersWhenOpened())
                .processKind("cli")
                .processLabel(spec.qualifiedName());
        String actAs = actAs(root);
        if (actAs != null) {
            b.actAs(actAs);
        }
        customize(b, root.environment());
        return b.build();
    }
}
