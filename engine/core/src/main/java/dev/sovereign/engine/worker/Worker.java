package dev.sovereign.engine.worker;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.GrantLossListener;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.provider.CommandProvider;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.RunResult;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A long-running host for one actor: waits for the actor's lease, keeps it by heartbeat, claims and
 * completes the actor's messages and runs its assignments, one at a time, until stopped; then
 * releases the lease.
 *
 * <p>States: {@code WAITING} (another process hosts the actor: wait for its lease to be released or
 * to expire, then try to acquire) → {@code HOSTING} (work) → back to {@code WAITING} when a renewal is
 * refused (the engine's loss listener tells it at once) → {@code STOPPED}. While paused
 * cooperatively it neither works nor heartbeats, like a process stopped by SIGSTOP.
 *
 * <p>The worker decides nothing about safety: every write it makes presents its token and may be
 * refused; it reports the refusal and carries on. Not thread-safe except {@link #stop()},
 * {@link #pause()}, {@link #resume()}, which may be called from any thread.
 */
public final class Worker implements Runnable {
    private final Engine engine;
    private final String actor;
    private final Duration ttl;
    private final Duration idle;
    private final Consumer<WorkerEvent> out;
    private final Object signal = new Object();
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile boolean contendRequested;
    private volatile Thread runner;
    /** Assignments refused here as {@code command_not_allowed}: left CREATED, not tried again by this worker. */
    private final Set<String> notAllowedHere = new HashSet<>();
    /**
     * The token of the hosted lease this worker gave up because it expired while the heartbeat could not write
     * (a full disk, a lost server), or null. The engine still believes it (only a beat that reaches the ledger
     * can say otherwise), so the worker must not work under it.
     */
    private volatile Long lapsedToken;
    /** Guards the output and the folding of repeated errors below. */
    private final Object output = new Object();
    /** The last error line printed, while the same error repeats; null after any other line. */
    private String lastError;
    /** How often {@link #lastError} came again since it was printed (or last summed up), and since when. */
    private int repeats;

    private long repeatsSince;

    /** How often, at most, a repeating error is summed up in one line (by the engine's clock). */
    static final Duration REPEAT_SUMMARY_EVERY = Duration.ofMinutes(1);

    public Worker(Engine engine, String actor, Duration ttl, Duration idle, Consumer<WorkerEvent> out) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.actor = Objects.requireNonNull(actor, "actor");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.idle = Objects.requireNonNull(idle, "idle");
        this.out = Objects.requireNonNull(out, "out");
    }

    @Override
    public void run() {
        runner = Thread.currentThread();
        GrantLossListener onLoss = lost -> {
            if (lost.kind().equals("actor")
                    && lost.resourceId().equals(actor)
                    && !Objects.equals(lapsedToken, lost.token())) { // a lapsed lease's loss was said already
                say(
                        "lost",
                        null,
                        lost.token(),
                        "the lease was not renewed: another process took it over or it"
                                + " expired; stopping work for this actor");
            }
        };
        engine.addGrantLossListener(onLoss);
        try {
            engine.actors().find(actor).orElseThrow(() -> ActorRules.unknown(actor));
            while (!stopped) {
                if (paused) {
                    waitFor(idle);
                    continue;
                }
                try {
                    Optional<Lease> held = hostedLease();
                    if (held.isEmpty()) {
                        waitOrAcquire();
                    } else if (!workOnce()) {
                        waitFor(idle);
                    }
                } catch (StorageException e) {
                    error(e.getMessage());
                    waitFor(idle);
                }
            }
        } finally {
            engine.removeGrantLossListener(onLoss);
            believedLease().ifPresent(l -> {
                if (safeRelease(l)) {
                    say("released", null, l.token(), "stopped; the lease is free");
                }
            });
            say("stopped", null, null, null);
            runner = null;
        }
    }

    private boolean safeRelease(Lease l) {
        try {
            return engine.leases().release(actor, l.token());
        } catch (RuntimeException e) {
            say("error", null, l.token(), "could not release the lease: " + e.getMessage());
            return false;
        }
    }

    /** The lease the engine believes it holds for the actor, lapsed or not. */
    private Optional<Lease> believedLease() {
        return engine.leases().held().stream()
                .filter(l -> l.actor().equals(actor))
                .findFirst();
    }

    /** The lease this worker may work under: believed, and not lapsed ({@link #lapsed}). */
    private Optional<Lease> hostedLease() {
        return believedLease().filter(l -> !lapsed(l));
    }

    /**
     * Whether the believed lease lapsed: its expiry passed while the heartbeat could not write (its last beat
     * failed), so another process may hold the actor by now. Said once as {@code lost}. When a beat reaches the
     * ledger again and the engine still believes the lease (no one took it: the beat would have found that),
     * the worker hosts under it again. A worker whose beats succeed never judges by its own clock: only the
     * beat says a lease is lost.
     */
    private boolean lapsed(Lease l) {
        long now = engine.config().clock().millis();
        RuntimeException beatFailure = engine.lastHeartbeatFailure();
        if (Objects.equals(lapsedToken, l.token())) {
            if (beatFailure == null && !l.isExpiredAt(now)) {
                lapsedToken = null;
                say(
                        "hosting",
                        null,
                        l.token(),
                        "the heartbeat reaches the ledger again and the lease is still this"
                                + " process's: hosting again, lease until " + at(l.expiresAt()));
                return false;
            }
            return true;
        }
        if (beatFailure != null && l.isExpiredAt(now)) {
            lapsedToken = l.token();
            say(
                    "lost",
                    null,
                    l.token(),
                    "the lease expired at " + at(l.expiresAt()) + " without a renewal: the"
                            + " heartbeat cannot write to the ledger (" + firstSentence(beatFailure.getMessage()) + ");"
                            + " stopping work for this actor until it hosts it again");
            return true;
        }
        return false;
    }

    private boolean announcedWaiting;

    private void waitOrAcquire() {
        long now = engine.config().clock().millis();
        Optional<Lease> current = engine.leases().current(actor);
        boolean contend = contendRequested;
        contendRequested = false;
        if (current.isPresent() && !current.get().isExpiredAt(now) && !contend) {
            Lease c = current.get();
            if (!announcedWaiting) {
                say("waiting", null, c.token(), "hosted by " + c.process() + " until " + at(c.expiresAt()));
                announcedWaiting = true;
            }
            // Wake when that lease would expire (by this process's clock), but look again at least every idle.
            waitFor(Duration.ofMillis(Math.max(1, Math.min(idle.toMillis(), c.expiresAt() - now + 1))));
            return;
        }
        try {
            Lease l = engine.leases().acquire(actor, ttl);
            announcedWaiting = false;
            say("hosting", null, l.token(), "lease until " + at(l.expiresAt()) + " (ttl " + ttl.toMillis() + " ms)");
        } catch (Refusal r) {
            if (r.category() != RefusalCategory.ACTOR_LEASE_HELD) {
                throw r;
            }
            say("refused", null, r.presentedToken(), r.category().code() + ": " + r.getMessage());
            waitFor(idle);
        }
    }

    /** Does one piece of work; false when there was nothing to do. */
    private boolean workOnce() {
        return handleOneMessage() || runOneAssignment();
    }

    private boolean handleOneMessage() {
        List<Message> inbox = engine.mailbox().inbox(actor);
        long now = engine.config().clock().millis();
        for (Message m : inbox) {
            boolean claimable = m.state() == MessageState.NEW
                    || (m.claim() != null
                            && (m.claim().process().equals(engine.processIdentity())
                                    || m.claim().isExpiredAt(now)));
            if (!claimable) {
                continue;
            }
            try {
                Claim c = engine.mailbox().claim(m.id(), actor, ttl);
                say("claimed", m.id(), c.token(), "'" + m.subject() + "' until " + at(c.expiresAt()));
                engine.mailbox().complete(m.id(), c.token());
                say("completed", m.id(), c.token(), "message done");
            } catch (Refusal r) {
                say("refused", m.id(), r.presentedToken(), r.category().code() + ": " + r.getMessage());
            }
            return true;
        }
        return false;
    }

    private boolean runOneAssignment() {
        // Assignments this worker was not allowed to run stay CREATED for another process: skip them
        // (each is refused, and journalled, once) instead of refusing the same one at every idle.
        Optional<Assignment> next = engine.runs().runnable(actor, notAllowedHere.size() + 1).stream()
                .filter(x -> !notAllowedHere.contains(x.id()))
                .findFirst();
        if (next.isEmpty()) {
            return false;
        }
        Assignment a = next.get();
        if (allowedHere(a)) {
            say("running", a.id(), null, a.providerSpec());
        } // else the run below is refused (command_not_allowed, journalled) before anything runs: no 'running' line
        try {
            RunResult r = engine.runs().runAssignment(a.id(), ttl);
            say(
                    "ran",
                    a.id(),
                    r.attempt().token(),
                    r.assignment().state() + " (receipt "
                            + r.receipt().status().name().toLowerCase(Locale.ROOT)
                            + (r.receipt().failureCategory() == null
                                    ? ""
                                    : ", " + r.receipt().failureCategory()) + ")");
        } catch (Refusal r) {
            if (r.category() == RefusalCategory.COMMAND_NOT_ALLOWED) {
                notAllowedHere.add(a.id());
            }
            say("refused", a.id(), r.presentedToken(), r.category().code() + ": " + r.getMessage());
        }
        return true;
    }

    /**
     * Whether this engine's allow-list lets it run {@code a}'s provider (decision 0800): only to decide what to
     * print; the run itself decides, and refuses (and journals) what is not allowed.
     */
    private boolean allowedHere(Assignment a) {
        try {
            return !(engine.providers().create(a.providerSpec()) instanceof CommandProvider c)
                    || engine.config().allowedCommands().allows(c.command());
        } catch (RuntimeException unusable) {
            return true; // the run refuses it with its own category
        }
    }

    /** Stops after the current step; a run in progress is cancelled (it ends FAILED/cancelled). */
    public void stop() {
        stopped = true;
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /**
     * Asks a waiting worker to try to acquire the lease once now, although it sees a live lease
     * (normally it waits for that lease's release or expiry instead of asking). The lab uses this to
     * make a waiting worker's contention visible: the engine refuses it with {@code actor_lease_held}
     * and journals the refusal. A hosting worker ignores it.
     */
    public void contend() {
        contendRequested = true;
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** A cooperative pause, for platforms without SIGSTOP: no work and no heartbeats until resumed. */
    public void pause() {
        paused = true;
        engine.suspendHeartbeat(true);
        say("paused", null, null, "no work and no heartbeats until resumed");
    }

    public void resume() {
        paused = false;
        engine.suspendHeartbeat(false);
        say("resumed", null, null, null);
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    public boolean isStopped() {
        return stopped;
    }

    private void waitFor(Duration d) {
        synchronized (signal) {
            if (stopped) {
                return;
            }
            try {
                signal.wait(Math.max(1, d.toMillis()));
            } catch (InterruptedException e) {
                if (!stopped) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        Thread.interrupted(); // a stop's interrupt has done its job
    }

    private void say(String kind, String resource, Long token, String detail) {
        synchronized (output) {
            sumUpRepeats();
            lastError = null;
            out.accept(new WorkerEvent(kind, actor, resource, token, detail));
        }
    }

    /**
     * An error that the loop will retry: printed once; the same error again is counted, not printed, and summed
     * up in one line ({@code … (repeated 37 times in 1m)}) at most every {@link #REPEAT_SUMMARY_EVERY}, before
     * any other line, and when the worker stops. A worker that cannot write (a full disk) would otherwise print
     * the same line at every idle wait.
     */
    private void error(String message) {
        synchronized (output) {
            long now = engine.config().clock().millis();
            if (message != null && message.equals(lastError)) {
                repeats++;
                if (now - repeatsSince >= REPEAT_SUMMARY_EVERY.toMillis()) {
                    sumUpRepeats();
                }
                return;
            }
            say("error", null, null, message + " (will retry)");
            lastError = message;
            repeats = 0;
            repeatsSince = now;
        }
    }

    /** Prints how often the last error repeated since it was printed or last summed up; called under the lock. */
    private void sumUpRepeats() {
        if (lastError == null || repeats == 0) {
            return;
        }
        long now = engine.config().clock().millis();
        out.accept(new WorkerEvent(
                "error",
                actor,
                null,
                null,
                lastError + " (repeated " + repeats + (repeats == 1 ? " time" : " times") + " in "
                        + span(Math.max(0, now - repeatsSince)) + ")"));
        repeats = 0;
        repeatsSince = now;
    }

    /** {@code 950ms}, {@code 42s}, {@code 5m}, {@code 2h}: the rough size of a span, for a repeat count. */
    private static String span(long ms) {
        if (ms < 1_000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return ms / 1_000 + "s";
        }
        if (ms < 3_600_000) {
            return ms / 60_000 + "m";
        }
        return ms / 3_600_000 + "h";
    }

    private static String firstSentence(String message) {
        String m = String.valueOf(message).strip();
        int end = m.indexOf(". ");
        return (end > 0 ? m.substring(0, end) : m).replaceAll("[.;:,]+$", "");
    }

    /** The last instant ISO-8601 writes without a sign and more than four year digits. */
    private static final Instant LAST_PLAIN_INSTANT = Instant.parse("9999-12-31T23:59:59.999Z");

    /**
     * An instant as ISO-8601 ({@code 2026-12-01T10:42:07Z}); an expiry pinned beyond the year 9999 (a hand-made
     * one, never the engine's) is said in words instead of {@code +128724-12-15T…}.
     */
    static String at(long epochMillis) {
        Instant i = Instant.ofEpochMilli(epochMillis);
        if (i.isAfter(LAST_PLAIN_INSTANT)) {
            return "the year " + i.atZone(ZoneOffset.UTC).getYear() + " (pinned far in the future)";
        }
        if (i.getEpochSecond() < -62_135_596_800L) { // before the year 1
            return "the year " + i.atZone(ZoneOffset.UTC).getYear() + " (pinned far in the past)";
        }
        return i.toString();
    }
}
