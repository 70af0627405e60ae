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
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.RunResult;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
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
            if (lost.kind().equals("actor") && lost.resourceId().equals(actor)) {
                say("lost", null, lost.token(), "the lease was not renewed: another process took it over or it"
                        + " expired; stopping work for this actor");
            }
        };
        engine.addGrantLossListener(onLoss);
        try {
            engine.actors().find(actor).orElseThrow(() -> Refusal.of(RefusalCategory.UNKNOWN_ACTOR,
                    "There is no actor named '" + actor + "'; add it with 'sovereign actor add " + actor + "'.")
                    .resource("actor", actor).build());
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
                    say("error", null, null, e.getMessage() + " (will retry)");
                    waitFor(idle);
                }
            }
        } finally {
            engine.removeGrantLossListener(onLoss);
            hostedLease().ifPresent(l -> {
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

    private Optional<Lease> hostedLease() {
        return engine.leases().held().stream().filter(l -> l.actor().equals(actor)).findFirst();
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
                    || (m.claim() != null && (m.claim().process().equals(engine.processIdentity())
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
                .filter(x -> !notAllowedHere.contains(x.id())).findFirst();
        if (next.isEmpty()) {
            return false;
        }
        Assignment a = next.get();
        say("running", a.id(), null, a.providerSpec());
        try {
            RunResult r = engine.runs().runAssignment(a.id(), ttl);
            say("ran", a.id(), r.attempt().token(), r.assignment().state() + " (receipt "
                    + r.receipt().status().name().toLowerCase(java.util.Locale.ROOT)
                    + (r.receipt().failureCategory() == null ? "" : ", " + r.receipt().failureCategory()) + ")");
        } catch (Refusal r) {
            if (r.category() == RefusalCategory.COMMAND_NOT_ALLOWED) {
                notAllowedHere.add(a.id());
            }
            say("refused", a.id(), r.presentedToken(), r.category().code() + ": " + r.getMessage());
        }
        return true;
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
        out.accept(new WorkerEvent(kind, actor, resource, token, detail));
    }

    private static String at(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }
}
