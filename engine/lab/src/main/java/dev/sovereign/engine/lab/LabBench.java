package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.run.Assignment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A trainer's workbench on one database: the lab's own process (an engine of kind {@code lab}) plus
 * the real worker processes started from it, and the actions a trainer takes on them — pause
 * (SIGSTOP), resume, kill (SIGKILL), skew a clock, stop (SIGTERM). The console's Lab page and every
 * scenario use one.
 *
 * <p><b>Pausing safely.</b> A process stopped while it holds SQLite's write lock would block every
 * writer on the file (the console's own actions, the other workers, the supervisor). So
 * {@link #pause} stops the worker, waits until the OS reports it stopped, then proves the write lock
 * is free by committing a write of its own within {@link #LOCK_PROBE_BOUND}; if that write is blocked,
 * it resumes the worker for a moment and tries again. The pause is the same SIGSTOP a long GC pause
 * or a suspended laptop would cause — only its timing is chosen.
 *
 * <p><b>Cleaning up.</b> {@link #close()} stops every worker it started (resuming paused ones first,
 * then SIGTERM, then SIGKILL) and closes the lab's process; a JVM shutdown hook does the same if the
 * JVM exits first. A worker whose parent disappears stops by itself when its standard input ends, but
 * a process left stopped (SIGSTOP) could not notice — hence the hook.
 *
 * <p>Thread-safe.
 */
public final class LabBench implements AutoCloseable {
    /** How long the probe write after a SIGSTOP may wait for the lock before it counts as held. */
    public static final Duration LOCK_PROBE_BOUND = Duration.ofSeconds(1);

    private static final int PAUSE_TRIES = 5;

    private final Engine engine;
    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    private final List<Engine> sideProcesses = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;
    private volatile boolean closed;

    private LabBench(Engine engine) {
        this.engine = engine;
        this.shutdownHook = new Thread(this::closeWorkers, "lab-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Opens a bench on an existing database, as a new process of kind {@code lab} named {@code label}.
     *
     * @throws StorageException when the file is missing, not ours or too new
     */
    public static LabBench open(Path database, String label) {
        return open(LedgerLocation.file(database), label);
    }

    /**
     * Opens a bench on an existing ledger, a file or a server's, as a new process of kind {@code lab}.
     *
     * @throws StorageException when it is missing, not ours or too new, or the server cannot be reached
     */
    public static LabBench open(LedgerLocation location, String label) {
        return new LabBench(Engine.openExisting(config(location, label, true).build()));
    }

    static EngineConfig.Builder config(LedgerLocation location, String label, boolean heartbeat) {
        return EngineConfig.forDatabase(location)
                .processKind("lab")
                .processLabel(label)
                .heartbeat(heartbeat)
                .busyBound(LOCK_PROBE_BOUND);
    }

    /**
     * The bench's file.
     *
     * @throws IllegalStateException on a server: use {@link #location()}
     */
    public Path database() {
        return engine.config().database();
    }

    /** Where the bench's ledger lives: a file or a server (shown only with its secrets hidden). */
    public LedgerLocation location() {
        return engine.config().location();
    }

    /**
     * Whether expiry on this ledger is decided by the database server's clock (PostgreSQL, decision 0900),
     * so that a worker's skewed clock moves no expiry; false for a file, where each process's own clock
     * stamps its writes.
     */
    public boolean serverDecidesTime() {
        return !location().isFile();
    }

    /** Whether this bench's database was created as a lab sandbox: only there can the fence be broken. */
    public boolean isSandbox() {
        return engine.isLabSandbox();
    }

    private void requireSandboxForBrokenFence(LedgerLocation file) {
        if (!isSandbox()) {
            throw brokenFenceOutsideSandbox(file);
        }
    }

    /** The refusal for the broken-fence mode on a ledger that is not a lab sandbox. */
    static Refusal brokenFenceOutsideSandbox(LedgerLocation file) {
        return Refusal.of(
                        RefusalCategory.INVALID_ARGUMENT,
                        "The broken-fence mode works only on a lab sandbox"
                                + " (a database the lab created); " + file
                                + " is not one, so its fence stays on. Run the"
                                + " scenario without --db to get a fresh sandbox.")
                .build();
    }

    /** The lab's own process identity. */
    public String processIdentity() {
        return engine.processIdentity();
    }

    /** The lab's own engine, for scenarios. */
    Engine engine() {
        return engine;
    }

    /**
     * Opens another in-process engine on the same file: a separate process for fencing (its own
     * identity), closed with the bench. Scenarios use one as a starting gate or as a message owner.
     */
    Engine openSideProcess(String label, boolean heartbeat) {
        Engine e = Engine.openExisting(config(location(), label, heartbeat).build());
        sideProcesses.add(e);
        return e;
    }

    // ---- workers ----

    /**
     * Starts a real worker process ({@link WorkerMain}) on this bench's database.
     *
     * @param breakFence start it with the terminal fence switched off ({@link WorkerProcess#FAULT_JVM_OPTION})
     */
    public WorkerProcess startWorker(WorkerProcess.Spec spec, boolean breakFence) throws IOException {
        if (closed) {
            throw new IllegalStateException("the lab bench is closed");
        }
        if (!spec.location().equals(location())) {
            throw new IllegalArgumentException("a bench starts workers on its own database only");
        }
        if (breakFence) {
            requireSandboxForBrokenFence(location());
        }
        WorkerProcess w =
                breakFence ? WorkerProcess.start(spec, WorkerProcess.FAULT_JVM_OPTION) : WorkerProcess.start(spec);
        workers.add(w);
        return w;
    }

    /** Every worker started from this bench, oldest first (ended ones included). */
    public List<WorkerProcess> workers() {
        return List.copyOf(workers);
    }

    /**
     * Pauses {@code worker} as a long GC pause would (SIGSTOP; heartbeat and work stop mid-flight),
     * but never while it holds the database's write lock (see the class comment). Where the OS has no
     * SIGSTOP, the worker pauses cooperatively instead (no work, no heartbeats).
     *
     * @throws IllegalStateException when the worker kept holding the write lock at every try (it has
     *     been resumed, so nothing is left blocked)
     */
    public void pause(WorkerProcess worker) throws IOException, InterruptedException {
        if (!WorkerProcess.hasStopSignals()) {
            worker.pause();
            return;
        }
        for (int attempt = 1; attempt <= PAUSE_TRIES; attempt++) {
            worker.pause();
            if (writeLockIsFree()) {
                return;
            }
            worker.resume();
            Thread.sleep(20L * attempt);
        }
        throw new IllegalStateException(worker.label() + " (pid " + worker.pid() + ") held the database's write lock"
                + " every time it was stopped; it was resumed so that nothing stays blocked");
    }

    public void resume(WorkerProcess worker) throws IOException, InterruptedException {
        worker.resume();
    }

    /** SIGKILL: no shutdown hook, no release; its lease and attempt simply expire. */
    public void kill(WorkerProcess worker) throws InterruptedException {
        worker.kill();
    }

    /** SIGTERM (resuming it first if paused): it releases its lease and exits 0. */
    public boolean stop(WorkerProcess worker, Duration timeout) throws IOException, InterruptedException {
        return worker.terminate(timeout);
    }

    /** Sets the worker's clock offset (ahead when positive). */
    public void skew(WorkerProcess worker, Duration offset) throws IOException {
        worker.skew(offset);
    }

    /** Commits one tiny write (the lab process's heartbeat) to prove no one holds the write lock. */
    private boolean writeLockIsFree() {
        try {
            engine.heartbeatNow();
            return true;
        } catch (StorageException e) {
            if (e.problem() == StorageException.Problem.BUSY) {
                return false;
            }
            throw e;
        }
    }

    // ---- the ledger, for the Lab page ----

    /** Adds {@code actor} if it does not exist yet; true when it was added. */
    public boolean ensureActor(String actor) {
        if (engine.actors().find(actor).isPresent()) {
            return false;
        }
        engine.actors().add(actor);
        return true;
    }

    /**
     * Gives {@code actor} a job: a {@code scripted} assignment that sleeps {@code length} and then
     * completes. A worker hosting the actor picks it up.
     *
     * @return the new assignment's id
     */
    public String assignJob(String actor, Duration length) {
        Assignment a = engine.runs().assign(actor, "scripted:ms=" + length.toMillis() + ",outcome=completed");
        return a.id();
    }

    // ---- closing ----

    private void closeWorkers() {
        List<Thread> closers = new ArrayList<>();
        for (WorkerProcess w : workers) {
            if (w.isAlive()) {
                Thread t = new Thread(w::close, "lab-close-" + w.pid());
                t.start();
                closers.add(t);
            }
        }
        for (Thread t : closers) {
            try {
                t.join(15_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops every worker this bench started (in parallel), then closes the lab's processes. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeWorkers();
        for (Engine e : sideProcesses) {
            e.close();
        }
        engine.close();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
    }
}
