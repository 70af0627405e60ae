package dev.sovereign.engine.reliability.fuzz;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.lease.LeaseKeeping;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The public engine API as a fuzz target: each call is one public operation (actors, leases, mailbox,
 * runs, journal, processes, supervisor) on one of two engines (two processes) over one database,
 * with hostile arguments from {@link BadInputs}. A {@link Refusal} is a clear refusal; any other
 * exception — a {@code NullPointerException}, an {@code IllegalArgumentException}, an
 * {@code IllegalStateException}, a {@code StorageException} for bad input, a leaked JDBC exception —
 * is a crash. Between calls the shared clock moves now and then, so leases and claims expire.
 */
public final class EngineApiTarget implements FuzzTarget {
    private final List<Engine> engines;
    private final SettableClock clock;
    private final List<Op> ops = new ArrayList<>();

    private record Op(String name, Function<BadInputs, Verdict> call) {}

    public EngineApiTarget(List<Engine> engines, SettableClock clock) {
        this.engines = List.copyOf(engines);
        this.clock = clock;
        define();
    }

    @Override
    public String name() {
        return "engine API";
    }

    @Override
    public Verdict call(BadInputs in) {
        if (in.random().nextInt(25) == 0) {
            clock.advance(Duration.ofMillis(in.random().nextInt(15_000)));
        }
        return ops.get(in.random().nextInt(ops.size())).call().apply(in);
    }

    private void define() {
        write(
                "actors.add",
                in -> new Object[] {in.string(), in.workspacePolicy()},
                (e, a) -> e.actors().add(s(a[0]), s(a[1])).id(),
                "actor");
        read(
                "actors.find",
                in -> new Object[] {in.string()},
                (e, a) -> e.actors().find(s(a[0])));

        write(
                "leases.acquire",
                in -> new Object[] {in.actor(), in.duration()},
                (e, a) -> e.leases().acquire(s(a[0]), d(a[1])),
                null);
        write(
                "leases.renew",
                in -> new Object[] {in.actor(), in.token(), in.duration()},
                (e, a) -> e.leases().renew(s(a[0]), l(a[1]), d(a[2])),
                null);
        write(
                "leases.renew(own ttl)",
                in -> new Object[] {in.actor(), in.token()},
                (e, a) -> e.leases().renew(s(a[0]), l(a[1])),
                null);
        ops.add(new Op("leases.release", in -> {
            Object[] a = {in.actor(), in.token()};
            Engine e = engine(in);
            return attempt(
                    "leases.release" + show(a),
                    false,
                    () -> {
                        if (!e.leases().release(s(a[0]), l(a[1]))) {
                            throw new NotReleased();
                        }
                        return null;
                    },
                    in,
                    null);
        }));
        write(
                "leases.tryAcquire",
                in -> new Object[] {in.actor(), in.duration(), keeping(in)},
                (e, a) -> e.leases().tryAcquire(s(a[0]), d(a[1]), (LeaseKeeping) a[2]),
                null);
        write(
                "leases.acquire(keeping)",
                in -> new Object[] {in.actor(), in.duration(), keeping(in)},
                (e, a) -> e.leases().acquire(s(a[0]), d(a[1]), (LeaseKeeping) a[2]),
                null);
        write(
                "leases.extend",
                in -> new Object[] {in.actor(), in.token(), in.duration()},
                (e, a) -> e.leases().extend(s(a[0]), l(a[1]), d(a[2])),
                null);
        ops.add(new Op("leases.releaseKeepingUntil", in -> {
            Object[] a = {in.actor(), in.token(), in.random().nextInt(3) == 0 ? soon(in) : in.instant()};
            Engine e = engine(in);
            return attempt(
                    "leases.releaseKeepingUntil" + show(a),
                    false,
                    () -> {
                        if (!e.leases().releaseKeepingUntil(s(a[0]), l(a[1]), (Instant) a[2])) {
                            throw new NotReleased();
                        }
                        return null;
                    },
                    in,
                    null);
        }));
        write(
                "leases.acquireOrRenew",
                in -> new Object[] {in.actor(), in.duration()},
                (e, a) -> e.leases().acquireOrRenew(s(a[0]), d(a[1])),
                null);
        read(
                "leases.current",
                in -> new Object[] {in.actor()},
                (e, a) -> e.leases().current(s(a[0])));

        write(
                "mailbox.send",
                in -> new Object[] {in.string(), in.actor(), in.string(), in.string(), in.count()},
                (e, a) -> e.mailbox()
                        .send(s(a[0]), s(a[1]), s(a[2]), s(a[3]), (Integer) a[4])
                        .id(),
                "message");
        write(
                "mailbox.claim",
                in -> new Object[] {in.message(), in.actor()},
                (e, a) -> e.mailbox().claim(s(a[0]), s(a[1])),
                null);
        write(
                "mailbox.claim(ttl)",
                in -> new Object[] {in.message(), in.actor(), in.duration()},
                (e, a) -> e.mailbox().claim(s(a[0]), s(a[1]), d(a[2])),
                null);
        write(
                "mailbox.complete",
                in -> new Object[] {in.message(), in.token()},
                (e, a) -> e.mailbox().complete(s(a[0]), l(a[1])),
                null);
        write(
                "mailbox.deadLetter",
                in -> new Object[] {in.message(), in.token()},
                (e, a) -> e.mailbox().deadLetter(s(a[0]), l(a[1])),
                null);
        read(
                "mailbox.inbox",
                in -> new Object[] {in.actor()},
                (e, a) -> e.mailbox().inbox(s(a[0])));
        read(
                "mailbox.find",
                in -> new Object[] {in.message()},
                (e, a) -> e.mailbox().find(s(a[0])));

        write(
                "runs.assign",
                in -> new Object[] {in.actor(), in.providerSpec(), in.workspacePolicy()},
                (e, a) -> e.runs().assign(s(a[0]), s(a[1]), s(a[2])).id(),
                "assignment");
        write(
                "runs.assign(actor policy)",
                in -> new Object[] {in.actor(), in.providerSpec()},
                (e, a) -> e.runs().assign(s(a[0]), s(a[1])).id(),
                "assignment");
        write(
                "runs.runAssignment",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().runAssignment(s(a[0])),
                null);
        write(
                "runs.runAssignment(ttl)",
                in -> new Object[] {in.assignment(), in.duration()},
                (e, a) -> e.runs().runAssignment(s(a[0]), d(a[1])),
                null);
        write(
                "runs.retry",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().retry(s(a[0])).id(),
                "assignment");
        write(
                "runs.acknowledge",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().acknowledge(s(a[0])),
                null);
        write(
                "runs.stealFence",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().stealFence(s(a[0])),
                null);
        read(
                "runs.get",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().get(s(a[0])));
        read(
                "runs.attempts",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().attempts(s(a[0])));
        read(
                "runs.receipt",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().receipt(s(a[0])));
        read(
                "runs.workspace",
                in -> new Object[] {in.assignment()},
                (e, a) -> e.runs().workspace(s(a[0])));

        read(
                "journal.since",
                in -> new Object[] {in.token(), in.count()},
                (e, a) -> e.journal().since(l(a[0]), (Integer) a[1]));
        read(
                "journal.rejections",
                in -> new Object[] {in.count()},
                (e, a) -> e.journal().rejections((Integer) a[0]));
        read(
                "journal.forResource",
                in -> new Object[] {in.string(), in.string()},
                (e, a) -> e.journal().forResource(s(a[0]), s(a[1])));
        read(
                "processes.find",
                in -> new Object[] {in.string()},
                (e, a) -> e.processes().find(s(a[0])));
        write("supervisor.tick", in -> new Object[0], (e, a) -> e.supervisor().tick(), null);
    }

    private static LeaseKeeping keeping(BadInputs in) {
        int dice = in.random().nextInt(5);
        return dice == 0 ? null : dice < 3 ? LeaseKeeping.TTL : LeaseKeeping.HEARTBEAT;
    }

    /** A time a few seconds either side of the engines' clock: where a kept-until release decides. */
    private Instant soon(BadInputs in) {
        return clock.instant().plusMillis(in.random().nextInt(20_000) - 5_000);
    }

    /** A release that returned false: a refusal the engine journals when a newer holder exists. */
    private static final class NotReleased extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotReleased() {
            super("not released", null, false, false);
        }
    }

    private void write(String name, Function<BadInputs, Object[]> args, Op2 body, String remember) {
        ops.add(new Op(name, in -> {
            Object[] a = args.apply(in);
            Engine e = engine(in);
            return attempt(name + show(a), false, () -> body.run(e, a), in, remember);
        }));
    }

    private void read(String name, Function<BadInputs, Object[]> args, Op2 body) {
        ops.add(new Op(name, in -> {
            Object[] a = args.apply(in);
            Engine e = engine(in);
            return attempt(name + show(a), true, () -> body.run(e, a), in, null);
        }));
    }

    @FunctionalInterface
    private interface Op2 {
        Object run(Engine e, Object[] args);
    }

    @FunctionalInterface
    private interface Call {
        Object run();
    }

    private Engine engine(BadInputs in) {
        return engines.get(in.random().nextInt(engines.size()));
    }

    private static Verdict attempt(String call, boolean read, Call body, BadInputs in, String remember) {
        try {
            Object result = body.run();
            if (remember != null && result instanceof String id) {
                in.remember(remember, id);
            } else if (result instanceof Lease l) {
                in.rememberToken(l.token());
            } else if (result instanceof Claim c) {
                in.rememberToken(c.token());
            } else if (result instanceof Message m && m.claim() != null) {
                in.rememberToken(m.claim().token());
            } else if (result instanceof Assignment x) {
                in.remember("assignment", x.id());
            }
            return read ? Verdict.read(call) : Verdict.accepted(call);
        } catch (Refusal r) {
            return Verdict.refused(
                    call,
                    r.category().code() + ": " + r.getMessage(),
                    r.category().isFencing() ? 1 : 0);
        } catch (NotReleased r) {
            return Verdict.refused(call, "release returned false", 1);
        } catch (RuntimeException | Error e) {
            StackTraceElement[] trace = e.getStackTrace();
            return Verdict.crashed(
                    call,
                    e
                            + (trace.length > 0
                                    ? " at " + Arrays.toString(Arrays.copyOf(trace, Math.min(4, trace.length)))
                                    : ""));
        }
    }

    private static String s(Object o) {
        return (String) o;
    }

    private static long l(Object o) {
        return (Long) o;
    }

    private static Duration d(Object o) {
        return (Duration) o;
    }

    /** The arguments, each string cut to 40 characters, control characters made visible. */
    static String show(Object[] args) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            String v;
            if (a instanceof String str) {
                String cut = str.length() > 40 ? str.substring(0, 40) + "…(" + str.length() + " chars)" : str;
                v = "\"" + cut.replaceAll("\\p{Cntrl}", "?") + "\"";
            } else {
                v = String.valueOf(a);
            }
            b.append(i == 0 ? "" : ", ").append(v);
        }
        return b.append(')').toString();
    }
}
