package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.LeaseKeeping;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.testing.Port;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One operation the engines make before the attack, through their own API, as two hosts would: A (the victim)
 * and B (whose login the attacker holds). Each leaves the rows a guard was written for in a different shape — a
 * renewal's stated token, a beat that moved only the session row, a takeover's minted token, a write to another
 * lease that moved the change marker, a claim, a run, a recovery — so that every statement form is tried after
 * each. An operation the ledger refuses (a grant of a live lease) is part of the history too. Immutable.
 */
record Op(Kind kind, char who, String actor) {
    /** The kinds of preceding operation. */
    enum Kind {
        /** {@code acquire} the actor's lease (refused while another holds it live). */
        GRANT,
        /** A second or three pass, then the holder renews the lease by its token. */
        RENEW,
        /** {@code tryAcquire} a lease that ends at its TTL, not kept by the heartbeat (decision 0116: a lock). */
        GRANT_TTL,
        /** A second or three pass, then the holder extends the lease while it is live (decision 0116). */
        EXTEND,
        /** The holder releases the lease but keeps it thirty seconds more (decision 0116: a minimum hold). */
        KEEP_UNTIL,
        /** A second or three pass, then the engine beats once (its session row; its attempts). */
        BEAT,
        /** The holder releases the lease. */
        RELEASE,
        /** The lease's TTL passes without a beat, then this engine takes the actor over. */
        TAKEOVER,
        /** A write to another lease: acquire or renew actor x. */
        OTHER_LEASE,
        /** Host the actor, send it a message and claim it. */
        CLAIM,
        /** Complete the claim this engine holds. */
        COMPLETE,
        /** Host the actor, assign it a job and start an attempt under the lease (RUNNING). */
        START_RUN,
        /** End the running attempt this engine holds through the terminal fence (COMPLETED, with its receipt). */
        FINISH_RUN,
        /** The attempt's TTL passes without a beat; the supervisor recovers it (FAILED, worker_lost). */
        RECOVER,
        /** The operator retries a failed assignment (a new assignment with retry_of). */
        RETRY,
        /** The operator acknowledges a failed assignment. */
        ACKNOWLEDGE,
        /** One supervisor tick (a supervisor_ticks row). */
        TICK,
        /**
         * A month passes, this engine writes to another lease (the journal's newest row), and the operator prunes
         * what the retention policy lets go (decision 0018): rows below the watermark, old ticks and windows.
         */
        PRUNE,
        /** This engine tries the actor's lease twice while another holds it live: one row, then a count (0019). */
        CONTEND
    }

    static final Duration TTL = Duration.ofSeconds(60);

    /** Applies the operation in {@code world}; returns what happened, in a few words, for the failure report. */
    String apply(World world) {
        Engine e = world.engine(who);
        String actor = world.actor(this.actor);
        try {
            return switch (kind) {
                case GRANT -> {
                    Lease l = e.leases().acquire(actor, TTL);
                    yield "token " + l.token();
                }
                case RENEW -> {
                    world.advance(1_000 + world.jitter(2_000));
                    Lease held = heldBy(e, actor);
                    yield held == null
                            ? "holds nothing"
                            : "token " + e.leases().renew(actor, held.token()).token();
                }
                case GRANT_TTL ->
                    e.leases()
                            .tryAcquire(actor, TTL, LeaseKeeping.TTL)
                            .map(l -> "token " + l.token())
                            .orElse("held by another");
                case EXTEND -> {
                    world.advance(1_000 + world.jitter(2_000));
                    Lease held = heldBy(e, actor);
                    yield held == null
                            ? "holds nothing"
                            : "token "
                                    + e.leases()
                                            .extend(actor, held.token(), TTL)
                                            .token();
                }
                case KEEP_UNTIL -> {
                    Lease held = heldBy(e, actor);
                    yield held == null
                            ? "holds nothing"
                            : "kept "
                                    + e.leases()
                                            .releaseKeepingUntil(
                                                    actor, held.token(), Instant.ofEpochMilli(world.now() + 30_000));
                }
                case BEAT -> {
                    world.advance(1_000 + world.jitter(2_000));
                    var beat = e.heartbeatNow();
                    yield "kept " + beat.renewedLeases().size() + " leases, "
                            + beat.renewedAttempts().size() + " attempts; lost "
                            + beat.lostLeases().keySet() + beat.lostAttempts().keySet();
                }
                case RELEASE -> {
                    Lease held = heldBy(e, actor);
                    yield held == null
                            ? "holds nothing"
                            : "released " + e.leases().release(actor, held.token());
                }
                case TAKEOVER -> {
                    world.advance(TTL.toMillis() + 1_000);
                    Lease l = e.leases().acquire(actor, TTL);
                    yield "token " + l.token();
                }
                case OTHER_LEASE ->
                    "token " + e.leases().acquireOrRenew(world.actor("x"), TTL).token();
                case CLAIM -> {
                    e.leases().acquireOrRenew(actor, TTL);
                    Message m = e.mailbox().send("someone", actor, "work", "body");
                    Claim c = e.mailbox().claim(m.id(), actor, TTL);
                    yield m.id() + " token " + c.token();
                }
                case COMPLETE -> {
                    for (Message m : e.mailbox().list()) {
                        if (m.state() == MessageState.CLAIMED
                                && m.claim() != null
                                && m.claim().process().equals(e.processIdentity())) {
                            e.mailbox().complete(m.id(), m.claim().token());
                            yield "completed " + m.id();
                        }
                    }
                    yield "holds no claim";
                }
                case START_RUN -> {
                    Lease l = e.leases().acquireOrRenew(actor, TTL);
                    Assignment x = e.runs().assign(actor, "scripted");
                    Attempt t = Port.runs(e).startAttempt(x.id(), l.token(), TTL.toMillis());
                    Port.grants(e).holdAttempt(t.id(), t.token());
                    yield x.id() + " attempt token " + t.token();
                }
                case FINISH_RUN -> {
                    Optional<Attempt> mine = running(e);
                    if (mine.isEmpty()) {
                        yield "runs nothing";
                    }
                    Port.runs(e).finish(mine.get(), Outcome.COMPLETED, null, true, "done");
                    Port.grants(e).dropAttempt(mine.get().id());
                    yield "completed " + mine.get().assignmentId();
                }
                case RECOVER -> {
                    world.advance(TTL.toMillis() + 1_000);
                    yield "recovered "
                            + world.supervisor().supervisor().tick().recovered().size();
                }
                case RETRY -> {
                    Optional<Assignment> failed = failed(world);
                    yield failed.isEmpty()
                            ? "nothing failed"
                            : "retried as "
                                    + world.supervisor()
                                            .runs()
                                            .retry(failed.get().id())
                                            .id();
                }
                case ACKNOWLEDGE -> {
                    Optional<Assignment> failed = failed(world);
                    if (failed.isEmpty()) {
                        yield "nothing failed";
                    }
                    world.supervisor().runs().acknowledge(failed.get().id());
                    yield "acknowledged " + failed.get().id();
                }
                case PRUNE -> {
                    world.advance(31L * 86_400_000L);
                    e.leases().acquireOrRenew(world.actor("x"), TTL);
                    var r = world.supervisor().prune(dev.sovereign.engine.admin.PruneOptions.all());
                    yield "pruned " + r.journalRows() + " rows below seq " + r.watermarkAfter();
                }
                case CONTEND -> {
                    String first = e.leases()
                            .tryAcquire(actor, TTL)
                            .map(l -> "token " + l.token())
                            .orElse("refused");
                    world.advance(1_000);
                    String second = e.leases()
                            .tryAcquire(actor, TTL)
                            .map(l -> "token " + l.token())
                            .orElse("refused");
                    yield first + ", " + second;
                }
                case TICK ->
                    "swept "
                            + world.supervisor()
                                    .supervisor()
                                    .tick()
                                    .sweptClaims()
                                    .size();
            };
        } catch (Refusal r) {
            return "refused " + r.category().code();
        }
    }

    private static Lease heldBy(Engine e, String actor) {
        return e.leases()
                .current(actor)
                .filter(l -> l.process().equals(e.processIdentity()))
                .orElse(null);
    }

    private static Optional<Attempt> running(Engine e) {
        for (Assignment x : e.runs().list()) {
            if (x.state() == AssignmentState.RUNNING && x.currentAttempt() != null) {
                Optional<Attempt> t = Port.runs(e).attempt(x.currentAttempt());
                if (t.isPresent() && t.get().processIdentity().equals(e.processIdentity())) {
                    return t;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Assignment> failed(World world) {
        return world.a().runs().list().stream()
                .filter(x -> x.state() == AssignmentState.FAILED)
                .findFirst();
    }

    @Override
    public String toString() {
        String by = kind == Kind.RECOVER || kind == Kind.RETRY || kind == Kind.ACKNOWLEDGE || kind == Kind.TICK
                ? "the operator"
                : String.valueOf(who);
        return by + " " + kind.name().toLowerCase().replace('_', ' ')
                + (kind == Kind.GRANT
                                || kind == Kind.RENEW
                                || kind == Kind.RELEASE
                                || kind == Kind.TAKEOVER
                                || kind == Kind.CLAIM
                                || kind == Kind.START_RUN
                        ? " " + actor
                        : "");
    }
}
