package dev.sovereign.engine.reliability;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.OffsetClock;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.RunResult;
import dev.sovereign.engine.run.Runs;
import dev.sovereign.engine.supervisor.TickReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Child JVM of the torture run: one engine (its own process identity, its heartbeat on, its clock an
 * {@link OffsetClock} the nemesis moves through a control file) doing random operations on the shared
 * database — acquire, renew, release, send, claim, complete, dead-letter, assign, run (scripted and
 * command providers), supervisor ticks, retry, acknowledge and the odd stolen fence — until the stop
 * file appears or its deadline passes. Some calls deliberately present stale or made-up tokens.
 *
 * <p>Every call is written to this incarnation's history file before it is made and again when it
 * ends ({@link HistoryWriter}); the checker holds those histories against the ledger.
 *
 * <p>Arguments are {@code key=value}: {@code db} (a file path or a {@code jdbc:postgresql:} URL), {@code data}
 * (the data directory: run workspaces and outputs), {@code history}, {@code control}, {@code stop},
 * {@code worker}, {@code incarnation}, {@code seed}, {@code until} (epoch ms), {@code actors}
 * (comma-separated), {@code weights} ({@code op:weight,...}), {@code busy_ms}, {@code heartbeat_ms}.
 * The fault switch {@code -Dsovereign.fault.ignoreTerminalFence=true} is a JVM option.
 */
public final class TortureWorker {
    private static final int MAX_UNFINISHED_MESSAGES = 12;
    private static final int MAX_CREATED_ASSIGNMENTS = 6;
    private static final List<String> OUTCOMES = List.of("completed", "completed", "blocked", "failed");

    private final Engine engine;
    private final HistoryWriter history;
    private final OffsetClock clock;
    private final Random random;
    private final String worker;
    private final List<String> actors;
    private final List<Map.Entry<String, Integer>> weights;
    private final int totalWeight;
    /** Tokens this process was granted once, per actor, to present stale ones on purpose. */
    private final Map<String, List<Long>> oldLeaseTokens = new HashMap<>();
    /** Claims this process believes it holds: message → token. */
    private final Map<String, Long> claims = new LinkedHashMap<>();
    /** Claim tokens it held once (message, token), for stale finishes. */
    private final List<Map.Entry<String, Long>> oldClaims = new ArrayList<>();

    private List<Assignment> assignments = List.of();
    private int opsSinceRefresh;
    private boolean refreshDue = true;

    private TortureWorker(
            Engine engine,
            HistoryWriter history,
            OffsetClock clock,
            Random random,
            String worker,
            List<String> actors,
            Map<String, Integer> weights) {
        this.engine = engine;
        this.history = history;
        this.clock = clock;
        this.random = random;
        this.worker = worker;
        this.actors = actors;
        this.weights = new ArrayList<>(weights.entrySet());
        this.totalWeight = weights.values().stream().mapToInt(Integer::intValue).sum();
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String kv : argv) {
            int eq = kv.indexOf('=');
            a.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        Path stop = Path.of(a.get("stop"));
        Path control = Path.of(a.get("control"));
        long until = Long.parseLong(a.get("until"));
        String worker = a.get("worker");
        int incarnation = Integer.parseInt(a.get("incarnation"));
        boolean fault = Boolean.getBoolean(Runs.FAULT_IGNORE_TERMINAL_FENCE);
        Map<String, Integer> weights = new LinkedHashMap<>();
        for (String w : a.get("weights").split(",")) {
            String[] kv = w.split(":");
            weights.put(kv[0], Integer.parseInt(kv[1]));
        }
        OffsetClock clock = new OffsetClock(Clock.systemUTC(), Duration.ofMillis(readOffset(control)));
        // a file path or a jdbc:postgresql: URL: Engine.open picks the backend
        EngineConfig config = EngineConfig.forDatabase(a.get("db"))
                .dataDirectory(Path.of(a.get("data")))
                .clock(clock)
                .heartbeat(true)
                .heartbeatInterval(Duration.ofMillis(Long.parseLong(a.get("heartbeat_ms"))))
                .busyBound(Duration.ofMillis(Long.parseLong(a.get("busy_ms"))))
                .defaultTtl(Duration.ofSeconds(1))
                .processKind("torture")
                .processLabel(worker + "#" + incarnation)
                .allowCommands(ALLOWED_COMMANDS)
                .build();
        try (HistoryWriter history = HistoryWriter.open(Path.of(a.get("history")))) {
            Engine engine = openEngine(config, until);
            try {
                history.start(worker, incarnation, engine.processIdentity(), fault);
                if (!clock.offset().isZero()) {
                    history.clock(clock.offset().toMillis());
                }
                Thread poller = new Thread(() -> pollControl(control, clock, history), "control-poller");
                poller.setDaemon(true);
                poller.start();
                new TortureWorker(
                                engine,
                                history,
                                clock,
                                new Random(Long.parseLong(a.get("seed"))),
                                worker,
                                List.of(a.get("actors").split(",")),
                                weights)
                        .loop(stop, until);
                history.stop();
            } finally {
                engine.close();
            }
        }
    }

    /**
     * Opening writes (the process registry), so a rogue lock can make it busy, and a server being restarted
     * cannot be reached for a moment: try again until the deadline.
     */
    private static Engine openEngine(EngineConfig config, long until) throws InterruptedException {
        while (true) {
            try {
                return Engine.openExisting(config);
            } catch (StorageException e) {
                boolean passing = e.problem() == StorageException.Problem.BUSY
                        || (!config.location().isFile() && e.problem() == StorageException.Problem.IO);
                if (!passing || System.currentTimeMillis() > until) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    private static long readOffset(Path control) {
        try {
            return Files.exists(control)
                    ? Long.parseLong(Files.readString(control).trim())
                    : 0;
        } catch (IOException | NumberFormatException e) {
            return 0; // written atomically by the nemesis; an unreadable file means "unchanged"
        }
    }

    private static void pollControl(Path control, OffsetClock clock, HistoryWriter history) {
        while (true) {
            long offset = readOffset(control);
            if (offset != clock.offset().toMillis()) {
                clock.setOffset(Duration.ofMillis(offset));
                history.clock(offset);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(25));
        }
    }

    private void loop(Path stop, long until) {
        while (!Files.exists(stop) && System.currentTimeMillis() < until) {
            try {
                refreshAssignments();
                String op = pick();
                switch (op) {
                    case "acquire" -> acquire();
                    case "renew" -> renew();
                    case "release" -> release();
                    case "send" -> send();
                    case "claim" -> claim();
                    case "complete" -> finish(true);
                    case "dead_letter" -> finish(false);
                    case "assign" -> assign();
                    case "run" -> run();
                    case "tick" -> tick();
                    case "retry" -> retry();
                    case "acknowledge" -> acknowledge();
                    case "steal" -> steal();
                    default -> throw new IllegalArgumentException("unknown op " + op);
                }
            } catch (StorageException busyRead) {
                // a read that picks the next operation was busy (or, on a server, lost its connection): pick again
                if (busyRead.problem() != StorageException.Problem.BUSY) {
                    thinkAfterRefusal();
                }
            }
        }
    }

    private String pick() {
        int r = random.nextInt(totalWeight);
        for (Map.Entry<String, Integer> w : weights) {
            r -= w.getValue();
            if (r < 0) {
                return w.getKey();
            }
        }
        throw new IllegalStateException();
    }

    // ---- the operations ----

    private void acquire() {
        // half the time an actor that looks free or expired by this process's own (maybe skewed) clock
        long now = clock.millis();
        List<String> free = new ArrayList<>(actors);
        engine.leases().list().stream().filter(l -> !l.isExpiredAt(now)).forEach(l -> free.remove(l.actor()));
        String actor = !free.isEmpty() && random.nextBoolean() ? any(free) : any(actors);
        long ttl = 300 + random.nextInt(1200);
        call("acquire", args("actor", actor, "ttl_ms", ttl), () -> {
            Lease l = engine.leases().acquire(actor, Duration.ofMillis(ttl));
            oldLeaseTokens.computeIfAbsent(actor, k -> new ArrayList<>()).add(l.token());
            return result("token", l.token(), "expires_at", l.expiresAt());
        });
    }

    private void renew() {
        Map.Entry<String, Long> target = leaseToPresent();
        Long ttl = random.nextInt(4) == 0 ? null : Long.valueOf(300 + random.nextInt(1200));
        call("renew", args("actor", target.getKey(), "token", target.getValue(), "ttl_ms", ttl), () -> {
            Lease l = ttl == null
                    ? engine.leases().renew(target.getKey(), target.getValue())
                    : engine.leases().renew(target.getKey(), target.getValue(), Duration.ofMillis(ttl));
            return result("token", l.token(), "expires_at", l.expiresAt());
        });
    }

    private void release() {
        Map.Entry<String, Long> target = leaseToPresent();
        long id = history.invoke("release", args("actor", target.getKey(), "token", target.getValue()), clock.millis());
        try {
            if (engine.leases().release(target.getKey(), target.getValue())) {
                history.ok(id, result("released", true));
            } else {
                history.fail(
                        id,
                        "lease_not_released",
                        "actor",
                        target.getKey(),
                        target.getValue(),
                        null,
                        "release returned false");
                thinkAfterRefusal();
            }
        } catch (Refusal r) {
            history.fail(id, r);
        } catch (RuntimeException e) {
            history.info(id, e);
        }
    }

    /** Mostly a lease this process holds; now and then an old token of its own or one it never had. */
    private Map.Entry<String, Long> leaseToPresent() {
        List<Lease> held = engine.leases().held();
        int dice = random.nextInt(10);
        if (!held.isEmpty() && dice < 8) {
            Lease l = any(held);
            return Map.entry(l.actor(), l.token());
        }
        String actor = any(actors);
        List<Long> old = oldLeaseTokens.getOrDefault(actor, List.of());
        if (!old.isEmpty() && dice < 9) {
            return Map.entry(actor, any(old));
        }
        return Map.entry(actor, 1L + random.nextInt(50));
    }

    private void send() {
        String recipient = any(actors);
        int maxRetries = random.nextInt(3);
        long unfinished = engine.mailbox().inbox(recipient).size();
        if (unfinished >= MAX_UNFINISHED_MESSAGES) {
            claim();
            return;
        }
        call("send", args("sender", worker, "recipient", recipient, "max_retries", maxRetries), () -> {
            Message m = engine.mailbox().send(worker, recipient, "s" + random.nextInt(1000), null, maxRetries);
            return result("message", m.id());
        });
    }

    private void claim() {
        List<Lease> held = engine.leases().held();
        if (held.isEmpty() && random.nextInt(5) > 0) {
            acquire(); // a process hosting nothing can only be refused; mostly try to host something first
            return;
        }
        String actor = !held.isEmpty() && random.nextInt(10) > 0 ? any(held).actor() : any(actors);
        List<Message> inbox = engine.mailbox().inbox(actor);
        if (inbox.isEmpty()) {
            return;
        }
        long now = clock.millis();
        List<Message> claimable = inbox.stream()
                .filter(m -> m.state() == MessageState.NEW
                        || m.claim().isExpiredAt(now)
                        || m.claim().process().equals(engine.processIdentity()))
                .toList();
        Message m = claimable.isEmpty() || random.nextInt(6) == 0 ? any(inbox) : any(claimable);
        long ttl = 300 + random.nextInt(2200);
        call("claim", args("message", m.id(), "actor", actor, "ttl_ms", ttl, "held_token", claims.get(m.id())), () -> {
            Claim c = engine.mailbox().claim(m.id(), actor, Duration.ofMillis(ttl));
            Long before = claims.put(m.id(), c.token());
            if (before != null && before != c.token()) {
                oldClaims.add(Map.entry(m.id(), before));
            }
            return result("token", c.token(), "expires_at", c.expiresAt());
        });
    }

    private void finish(boolean complete) {
        Map.Entry<String, Long> target;
        if (!claims.isEmpty() && (oldClaims.isEmpty() || random.nextInt(5) > 0)) {
            List<Map.Entry<String, Long>> mine = new ArrayList<>(claims.entrySet());
            target = mine.get(mine.size() - 1 - Math.min(mine.size() - 1, random.nextInt(2)));
        } else if (!oldClaims.isEmpty()) {
            target = any(oldClaims);
        } else {
            return;
        }
        String message = target.getKey();
        long token = target.getValue();
        if (random.nextInt(3) == 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(400))); // simulated work
        }
        call(complete ? "complete" : "dead_letter", args("message", message, "token", token), () -> {
            Message m = complete
                    ? engine.mailbox().complete(message, token)
                    : engine.mailbox().deadLetter(message, token);
            forgetClaim(message, token);
            return result("state", m.state().name(), "retry_count", m.retryCount());
        });
        if (claims.containsKey(message) && claims.get(message) == token && random.nextInt(2) == 0) {
            forgetClaim(message, token); // refused: give up on it now and then
        }
    }

    private void forgetClaim(String message, long token) {
        if (claims.containsKey(message) && claims.get(message) == token) {
            claims.remove(message);
            oldClaims.add(Map.entry(message, token));
        }
        if (oldClaims.size() > 50) {
            oldClaims.remove(0);
        }
    }

    private void assign() {
        long created = assignments.stream()
                .filter(x -> x.state() == AssignmentState.CREATED)
                .count();
        if (created >= MAX_CREATED_ASSIGNMENTS) {
            run();
            return;
        }
        String actor = any(actors);
        String spec = providerSpec();
        call("assign", args("actor", actor, "provider", spec), () -> {
            Assignment x = engine.runs().assign(actor, spec);
            refreshDue = true;
            return result("assignment", x.id());
        });
    }

    /**
     * Command runs say who they are: {@link OutputFolders#MARKER} on stdout and in {@code result.txt} of
     * their output folder, some of them after a delay (a stale attempt's late write would land then), so
     * the checker can tell whose result a canonical output folder holds.
     */
    private String providerSpec() {
        return switch (random.nextInt(10)) {
            case 0 -> "command:" + TO_STDOUT + "; " + TO_RESULT;
            case 1 -> "command:" + TO_STDOUT + "; sleep 0." + (1 + random.nextInt(6)) + "; " + TO_RESULT;
            case 2 -> "command:sleep 0." + random.nextInt(3) + "; " + TO_RESULT + "; exit 75";
            case 3 -> "command:" + TO_RESULT + "; exit " + (1 + random.nextInt(3));
            default -> "scripted:ms=" + random.nextInt(900) + ",outcome=" + any(OUTCOMES);
        };
    }

    private static final String TO_STDOUT = "echo \"" + OutputFolders.MARKER + "\"";
    private static final String TO_RESULT = "echo \"" + OutputFolders.MARKER + "\" >> \"$SOVEREIGN_OUTPUT/result.txt\"";
    /** Exactly the commands {@link #providerSpec()} can make: a worker runs no other (decision 0800). */
    static final CommandAllowList ALLOWED_COMMANDS = CommandAllowList.of(
            CommandAllowList.exactly(TO_STDOUT + "; " + TO_RESULT),
            CommandAllowList.exactly(TO_STDOUT + "; sleep 0.") + "?" + CommandAllowList.exactly("; " + TO_RESULT),
            CommandAllowList.exactly("sleep 0.") + "?" + CommandAllowList.exactly("; " + TO_RESULT + "; exit 75"),
            CommandAllowList.exactly(TO_RESULT + "; exit ") + "?");

    private void run() {
        List<Assignment> runnable = assignments.stream()
                .filter(x -> x.state() == AssignmentState.CREATED || x.state() == AssignmentState.RUNNING)
                .toList();
        if (runnable.isEmpty() && assignments.isEmpty()) {
            return;
        }
        List<String> hosted = engine.leases().held().stream().map(Lease::actor).toList();
        List<Assignment> mine =
                runnable.stream().filter(a -> hosted.contains(a.actorId())).toList();
        int dice = random.nextInt(10);
        Assignment x = !mine.isEmpty() && dice < 5
                ? any(mine)
                : !runnable.isEmpty() && dice < 9 ? any(runnable) : any(assignments);
        long ttl = 300 + random.nextInt(1200);
        call("run", args("assignment", x.id(), "actor", x.actorId(), "ttl_ms", ttl), () -> {
            RunResult r = engine.runs().runAssignment(x.id(), Duration.ofMillis(ttl));
            refreshDue = true;
            return result(
                    "state",
                    r.assignment().state().name(),
                    "attempt",
                    r.attempt().id(),
                    "attempt_token",
                    r.attempt().token(),
                    "lease_token",
                    r.attempt().leaseToken(),
                    "receipt",
                    r.receipt().id(),
                    "status",
                    r.receipt().status().code());
        });
    }

    private void tick() {
        call("tick", args(), () -> {
            TickReport t = engine.supervisor().tick();
            List<Object> recovered = new ArrayList<>();
            t.recovered()
                    .forEach(r -> recovered.add(result(
                            "assignment",
                            r.assignmentId(),
                            "attempt",
                            r.attemptId(),
                            "attempt_token",
                            r.attemptToken())));
            return result(
                    "recovered",
                    recovered,
                    "swept",
                    t.sweptClaims(),
                    "retired",
                    t.retired().size(),
                    "failures",
                    t.failures().size());
        });
    }

    private void retry() {
        List<Assignment> ended = ended();
        if (ended.isEmpty()) {
            return;
        }
        Assignment x = any(ended);
        call("retry", args("assignment", x.id()), () -> {
            Assignment retry = engine.runs().retry(x.id());
            refreshDue = true;
            return result("assignment", retry.id(), "retry_of", retry.retryOf());
        });
    }

    private void acknowledge() {
        List<Assignment> ended = ended();
        if (ended.isEmpty()) {
            return;
        }
        Assignment x = any(ended);
        call("acknowledge", args("assignment", x.id()), () -> {
            Assignment acked = engine.runs().acknowledge(x.id());
            return result("acknowledged_at", acked.acknowledgedAt());
        });
    }

    private void steal() {
        List<Assignment> running = assignments.stream()
                .filter(x -> x.state() == AssignmentState.RUNNING)
                .toList();
        if (running.isEmpty()) {
            return;
        }
        Assignment x = any(running);
        call("steal", args("assignment", x.id()), () -> {
            Attempt victim = engine.runs().stealFence(x.id());
            return result("attempt", victim.id(), "attempt_token", victim.token());
        });
    }

    private List<Assignment> ended() {
        return assignments.stream()
                .filter(x -> x.state() == AssignmentState.FAILED || x.state() == AssignmentState.BLOCKED)
                .toList();
    }

    private void refreshAssignments() {
        if (!refreshDue && ++opsSinceRefresh < 12) {
            return;
        }
        refreshDue = false;
        List<Assignment> all = engine.runs().list();
        // the newest ones and every unfinished one: old terminal assignments only make the list long
        List<Assignment> keep = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Assignment x = all.get(i);
            if (i < 30 || x.state() == AssignmentState.CREATED || x.state() == AssignmentState.RUNNING) {
                keep.add(x);
            }
        }
        assignments = keep;
        opsSinceRefresh = 0;
    }

    // ---- recording ----

    private void call(String op, Map<String, Object> args, Supplier<Map<String, Object>> body) {
        long id = history.invoke(op, args, clock.millis());
        try {
            history.ok(id, body.get());
        } catch (Refusal r) {
            history.fail(id, r);
            thinkAfterRefusal();
        } catch (RuntimeException e) {
            history.info(id, e);
            if (e instanceof StorageException se && se.problem() != StorageException.Problem.BUSY) {
                thinkAfterRefusal(); // a server that is restarting refuses connections at once: do not spin
            }
        }
    }

    /** A refused call returns in well under a millisecond; without a pause an idle worker only spins. */
    private void thinkAfterRefusal() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2 + random.nextInt(15)));
    }

    private static Map<String, Object> args(Object... kv) {
        return result(kv);
    }

    private static Map<String, Object> result(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private <T> T any(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }
}
