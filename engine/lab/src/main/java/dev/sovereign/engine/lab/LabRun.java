package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.FenceEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of one scenario against one database. {@link #run()} plays the scenario on the calling
 * thread, step by step (the listener hears each step as it starts and ends), then computes the
 * verdict from the journal and the ledger, then stops every process it started. {@link #cancel()}
 * (from any thread) makes it stop waiting, clean up and throw {@link InterruptedException}.
 *
 * <p>What a run adds to the database: one fresh actor ({@code <scenario>-<n>}), its assignments,
 * messages and leases, the processes it started, and their fence events. It touches nothing else.
 *
 * <p>Runs once; {@link #run()} is not reentrant. {@link #cancel()} and {@link #info()} are thread-safe.
 */
public final class LabRun {
    /** How often a scenario re-reads the ledger while it waits for something to happen. */
    private static final long POLL_MS = 25;
    /** The generous bound on any one wait: a slow machine costs time, never a wrong verdict. */
    static final Duration WAIT = Duration.ofSeconds(30);

    private final Scenario scenario;
    private final ScenarioInfo info;
    private final LabOptions options;
    /** Whether the database server's clock decides every expiry (PostgreSQL), not each process's own. */
    private final boolean serverClock;

    private final LabListener listener;
    private final LabStep[] steps;
    private final Map<String, WorkerProcess> workers = new LinkedHashMap<>();
    private volatile boolean cancelled;
    private volatile LabGate gate = LabGate.NONE;
    private boolean started;
    private LabBench bench;
    private String actor;
    private long startSeq;
    private int current = -1;

    LabRun(Scenario scenario, LabOptions options, LabListener listener) {
        this.scenario = scenario;
        this.serverClock = !options.location().isFile();
        this.info = scenario.info(serverClock);
        this.options = options;
        this.listener = listener == null ? LabListener.NONE : listener;
        this.steps = new LabStep[info.steps().size()];
        for (int i = 0; i < steps.length; i++) {
            steps[i] = new LabStep(i, steps.length, info.steps().get(i), LabStep.Status.PENDING, "", 0);
        }
    }

    public ScenarioInfo info() {
        return info;
    }

    /**
     * Holds the run before each step the story can wait for until {@code gate} releases it (decision 0117); the
     * default never holds. Set it before {@link #run()}.
     */
    public void gate(LabGate gate) {
        this.gate = gate == null ? LabGate.NONE : gate;
    }

    /**
     * Whether a {@linkplain #gate(LabGate) gate} is asked before step {@code index}: the check, and each step the
     * scenario says may wait (its own next action, nothing in flight depending on when it happens).
     */
    public boolean holdsBefore(int index) {
        return index == steps.length - 1 || scenario.holdsBefore(index);
    }

    /** Makes a running {@link #run()} stop at its next wait, clean up, and throw InterruptedException. */
    public void cancel() {
        cancelled = true;
    }

    /**
     * Plays the scenario, checks the ledger and returns the verdict; every worker it started has been
     * stopped when it returns (or throws).
     *
     * @throws InterruptedException when {@link #cancel() cancelled} (or the thread was interrupted)
     * @throws StorageException     when the database cannot be opened
     */
    public LabVerdict run() throws InterruptedException {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("a lab run runs once");
            }
            started = true;
        }
        long startedAt = System.currentTimeMillis();
        bench = LabBench.open(options.location(), "lab: " + info.name());
        if (options.breakFence() && !bench.isSandbox()) {
            bench.close();
            throw LabBench.brokenFenceOutsideSandbox(options.location());
        }
        try {
            startSeq = lab().journal().lastSeq();
            actor = freshActor();
            lab().actors().add(actor);
            listener.onActor(actor);
            String failure = null;
            try {
                scenario.play(this);
            } catch (Inconclusive e) {
                failure = e.getMessage();
            } catch (Refusal | StorageException | IOException | IllegalStateException e) {
                failure = "the lab could not carry on: " + e.getMessage();
            }
            if (failure != null) {
                fail(failure);
            }
            checkCancelled();
            int checkStep = steps.length - 1;
            skipUntil(checkStep);
            begin(checkStep);
            List<Check> checks;
            try {
                checks = scenario.check(this);
            } catch (RuntimeException e) {
                checks = List.of(
                        Check.setup("the checker could read the journal and the ledger", false, e.getMessage()));
            }
            Verdict verdict = verdict(checks, failure);
            String headline = headline(verdict, checks, failure);
            long passed = checks.stream().filter(Check::passed).count();
            String counted = verdict.code() + ": " + passed + " of " + checks.size() + " checks passed";
            if (verdict == Verdict.VIOLATED) {
                violated(counted); // the checker found the fence broken: never a green step
            } else {
                done(counted);
            }
            scenario.teardown(this);
            return new LabVerdict(
                    info.name(),
                    verdict,
                    headline,
                    checks,
                    List.of(steps),
                    options.location(),
                    actor,
                    options.breakFence(),
                    startedAt,
                    System.currentTimeMillis() - startedAt,
                    workerOutput());
        } finally {
            bench.close();
        }
    }

    private static Verdict verdict(List<Check> checks, String failure) {
        if (checks.stream().anyMatch(c -> c.kind() == Check.Kind.SAFETY && !c.passed())) {
            return Verdict.VIOLATED;
        }
        if (failure != null || checks.stream().anyMatch(c -> !c.passed())) {
            return Verdict.INCONCLUSIVE;
        }
        return Verdict.HELD;
    }

    private String headline(Verdict verdict, List<Check> checks, String failure) {
        return switch (verdict) {
            case HELD -> scenario.heldHeadline();
            case VIOLATED -> violatedHeadline(checks);
            case INCONCLUSIVE ->
                "nothing was proven either way: "
                        + (failure != null
                                ? failure
                                : checks.stream()
                                        .filter(c -> !c.passed())
                                        .findFirst()
                                        .map(c -> "the scenario did not happen as planned (" + c.statement() + ": no)")
                                        .orElse("a check failed"));
        };
    }

    /**
     * What broke, as one plain sentence: the failed checks' own clauses ("A's stale write was accepted …, and
     * B's rightful result was lost …"), safety first; a failed check without one is named by its statement.
     */
    static String violatedHeadline(List<Check> checks) {
        List<String> clauses = new ArrayList<>();
        for (Check.Kind kind : List.of(Check.Kind.SAFETY, Check.Kind.SETUP)) {
            checks.stream()
                    .filter(c -> c.kind() == kind && !c.passed() && c.broken() != null)
                    .forEach(c -> clauses.add(c.broken()));
        }
        if (clauses.isEmpty()) {
            return "the fence was broken: a safety check failed ("
                    + checks.stream()
                            .filter(c -> c.kind() == Check.Kind.SAFETY && !c.passed())
                            .map(Check::statement)
                            .findFirst()
                            .orElse("unnamed")
                    + ": no)";
        }
        return "the fence was broken: " + String.join(", and ", clauses);
    }

    /** {@code <scenario>-<n>}, one more than the highest n already in the database. */
    private String freshActor() {
        Pattern p = Pattern.compile(Pattern.quote(info.name()) + "-(\\d+)");
        int n = 0;
        for (Actor a : lab().actors().list()) {
            Matcher m = p.matcher(a.id());
            if (m.matches()) {
                n = Math.max(n, Integer.parseInt(m.group(1)));
            }
        }
        return info.name() + "-" + (n + 1);
    }

    private Map<String, List<String>> workerOutput() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        synchronized (workers) {
            workers.forEach((label, w) -> out.put(label, w.lines()));
        }
        return out;
    }

    // ---- for scenarios ----

    Engine lab() {
        return bench.engine();
    }

    /**
     * Whether expiry is decided by the database server's clock (PostgreSQL: a worker's skewed clock
     * moves no expiry), not by each process's own clock (SQLite).
     */
    boolean serverDecidesTime() {
        return serverClock;
    }

    LabBench bench() {
        return bench;
    }

    String actor() {
        return actor;
    }

    /**
     * Starts step {@code index} (ending a step still running, as done without detail); before a step that may wait,
     * the {@linkplain #gate(LabGate) gate} holds it until released.
     */
    void begin(int index) throws InterruptedException {
        if (current >= 0 && steps[current].status() == LabStep.Status.RUNNING) {
            done("");
        }
        skipUntil(index);
        if (holdsBefore(index)) {
            LabStep next = steps[index];
            while (!gate.released(next)) {
                checkCancelled();
                Thread.sleep(POLL_MS);
            }
            checkCancelled();
        }
        current = index;
        publish(index, LabStep.Status.RUNNING, "");
    }

    /** Ends the current step: this is what was seen. */
    void done(String detail) {
        if (current >= 0) {
            publish(current, LabStep.Status.DONE, detail);
        }
    }

    /**
     * Ends the current step: this is what was seen, and it is the fence failing (a stale write accepted,
     * a rightful result lost). The verdict is still read from the journal by the checks.
     */
    void violated(String detail) {
        if (current >= 0) {
            publish(current, LabStep.Status.VIOLATED, detail);
        }
    }

    /** Whether this run's workers have the terminal fence switched off. */
    boolean fenceSwitchedOff() {
        return options.breakFence();
    }

    private void fail(String why) {
        if (current >= 0 && steps[current].status() == LabStep.Status.RUNNING) {
            publish(current, LabStep.Status.FAILED, why);
        }
    }

    private void skipUntil(int index) {
        for (int i = 0; i < index; i++) {
            if (steps[i].status() == LabStep.Status.PENDING) {
                publish(i, LabStep.Status.SKIPPED, "");
            }
        }
    }

    private void publish(int index, LabStep.Status status, String detail) {
        LabStep s = new LabStep(index, steps.length, steps[index].title(), status, detail, System.currentTimeMillis());
        steps[index] = s;
        listener.onStep(s);
    }

    /**
     * Starts a real worker for this run's actor, labelled {@code worker <role> (<actor>)}, with the
     * fault switch when the run breaks the fence.
     */
    WorkerProcess startWorker(String role, Duration ttl, Duration clockOffset) throws IOException {
        checkCancelledUnchecked();
        String label = "worker " + role + " (" + actor + ")";
        WorkerProcess w = bench.startWorker(
                new WorkerProcess.Spec(bench.location(), actor, ttl, clockOffset, label), options.breakFence());
        synchronized (workers) {
            workers.put(label, w);
        }
        w.addListener(line -> listener.onWorkerLine(w, line));
        listener.onWorkerStarted(w);
        return w;
    }

    /** Waits until {@code worker} printed a matching line; the line. */
    String awaitLine(WorkerProcess worker, Predicate<String> match, String what)
            throws Inconclusive, InterruptedException {
        return await(
                what,
                WAIT,
                () -> worker.lines().stream().filter(match).findFirst().orElse(null),
                () -> worker.isAlive() ? null : worker.label() + " exited (" + lastLine(worker) + ")");
    }

    private static String lastLine(WorkerProcess w) {
        List<String> lines = w.lines();
        return lines.isEmpty() ? "it printed nothing" : "its last line: " + lines.get(lines.size() - 1);
    }

    /** Waits until {@code probe} returns non-null (re-read every few ms); its value. */
    <T> T await(String what, Duration timeout, Supplier<T> probe) throws Inconclusive, InterruptedException {
        return await(what, timeout, probe, () -> null);
    }

    /**
     * Waits until {@code probe} returns non-null; {@code hopeless} may say early (non-null sentence)
     * that it never will, e.g. because the process it waits for has exited.
     */
    <T> T await(String what, Duration timeout, Supplier<T> probe, Supplier<String> hopeless)
            throws Inconclusive, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkCancelled();
            T value = probe.get();
            if (value != null) {
                return value;
            }
            String why = hopeless.get();
            if (why != null) {
                throw new Inconclusive("gave up waiting for " + what + ": " + why);
            }
            if (System.nanoTime() > deadline) {
                throw new Inconclusive("gave up waiting for " + what + " after " + timeout.toSeconds() + " s");
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** The first journal event since the run began that concerns its actor and matches. */
    FenceEvent awaitEvent(String what, Predicate<FenceEvent> match) throws Inconclusive, InterruptedException {
        return await(
                what,
                WAIT,
                () -> facts().events().stream().filter(match).findFirst().orElse(null));
    }

    /** The journal since the run began, for this run's actor. */
    LedgerFacts facts() {
        return new LedgerFacts(lab().journal().since(startSeq, 100_000), actor);
    }

    private void checkCancelled() throws InterruptedException {
        if (cancelled || Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("the lab run was cancelled");
        }
    }

    private void checkCancelledUnchecked() {
        if (cancelled) {
            throw new IllegalStateException("the lab run was cancelled");
        }
    }
}
