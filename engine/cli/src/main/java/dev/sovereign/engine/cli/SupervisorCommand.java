package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.supervisor.SupervisorLoop;
import dev.sovereign.engine.supervisor.TickReport;
import dev.sovereign.engine.supervisor.TickReport.Recovery;
import dev.sovereign.engine.supervisor.TickReport.Retirement;
import dev.sovereign.engine.supervisor.TickReport.TickFailure;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign supervisor [--once] [--interval DUR]}: the supervisor of contract §10.
 *
 * <p>{@code --once} runs one tick and prints its whole report. Without it, a loop (process kind
 * {@code supervisor}, heartbeat on) ticks every interval and prints one line per tick that did
 * something (swept, recovered, retired, failed) or whose reported expired leases or stale processes
 * changed since the tick before — a lease that stays expired is reported once, not every second. A
 * tick that fails as a whole is one sentence on stderr and the loop goes on. SIGINT or SIGTERM ends the
 * loop after the tick in progress, with exit 0 and no stack trace.
 */
@Command(name = "supervisor", description = "Recover dead processes' work (--once: one tick, else a loop).")
final class SupervisorCommand extends EngineCommand {
    @Option(names = "--once", description = "Run one tick, print its report and exit.")
    boolean once;

    @Option(
            names = "--interval",
            paramLabel = "DUR",
            defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Time between ticks of the loop (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(
            names = "--prune-every",
            paramLabel = "DUR",
            defaultValue = "10m",
            converter = Converters.DurationConverter.class,
            description = "How often the loop prunes what the retention policy lets go, a few short batches at a"
                    + " time (default: ${DEFAULT-VALUE}; see 'sovereign retention').")
    Duration pruneEvery;

    @Option(
            names = "--label",
            paramLabel = "TEXT",
            description = "How the process is shown (default: supervisor <pid>).")
    String label;

    @Override
    protected boolean heartbeats() {
        return !once;
    }

    @Override
    protected void checkArguments() {
        Arguments.durationMillis(interval, "supervisor interval (--interval)");
    }

    @Override
    protected void customize(EngineConfig.Builder config, CliEnvironment environment) {
        config.processKind("supervisor")
                .processLabel(
                        label != null
                                ? label
                                : "supervisor " + ProcessHandle.current().pid());
    }

    @Override
    protected int run(Engine engine, Output out) throws InterruptedException {
        if (once) {
            printReport(out, engine.supervisor().tick());
            return ExitCode.OK;
        }
        PrintWriter err = spec.commandLine().getErr();
        Object printLock = new Object();
        Reported previous = new Reported();
        RuntimeException[] cannotTick = {null};
        SupervisorLoop[] self = {null};
        Pruning pruning = new Pruning(pruneEvery, out.now());
        SupervisorLoop loop = new SupervisorLoop(
                engine.supervisor(),
                interval,
                report -> {
                    synchronized (printLock) {
                        if (previous.worthALine(report)) {
                            printLine(out, report);
                        }
                    }
                    pruning.maybePrune(engine, out, err, printLock);
                },
                failure -> {
                    if (failure instanceof StorageException s && s.problem() == StorageException.Problem.READ_ONLY) {
                        // this login may never tick (decision 0316): no tick did anything; one sentence, exit 3
                        cannotTick[0] = failure;
                        self[0].stop();
                        return;
                    }
                    synchronized (printLock) {
                        err.println("tick failed, " + describe(failure));
                        err.flush();
                    }
                });
        self[0] = loop;
        if (!out.json()) {
            out.line("supervising " + engine.config().location() + " as " + engine.processIdentity() + " (pid "
                    + ProcessHandle.current().pid() + "), a tick every " + Times.span(interval)
                    + "; stop with Ctrl-C or SIGTERM");
        }
        try (StopSignals.Stop stop =
                SovereignCommand.of(spec).environment().stopSignals().listen()) {
            Thread stopper = new Thread(
                    () -> {
                        try {
                            stop.await(Duration.ofDays(3650));
                            loop.stop();
                        } catch (InterruptedException ignored) {
                            // the loop ended on its own
                        }
                    },
                    "supervisor-stop");
            stopper.setDaemon(true);
            stopper.start();
            loop.run();
            stopper.interrupt();
        }
        if (cannotTick[0] != null) {
            throw cannotTick[0];
        }
        if (!out.json()) {
            synchronized (printLock) {
                out.line("stopped");
            }
        }
        return ExitCode.OK;
    }

    private static String describe(RuntimeException e) {
        String kind = e instanceof StorageException s
                ? "storage error (" + s.problem().name().toLowerCase(Locale.ROOT) + ")"
                : e instanceof Refusal r
                        ? "refused (" + r.category().code() + ")"
                        : e.getClass().getSimpleName();
        return kind + ": " + ErrorMapper.sentence(e.getMessage()) + " The next tick tries again.";
    }

    /** The whole report of one tick: counts, then one line per item. */
    private static void printReport(Output out, TickReport r) {
        if (out.json()) {
            out.emit(JsonShapes.tick(r));
            return;
        }
        Times t = out.times();
        out.fields(
                "Supervisor tick at " + t.wall(r.at()) + " by " + r.processIdentity() + ".",
                List.of(
                        new String[] {
                            "expired leases", Integer.toString(r.expiredLeases().size())
                        },
                        new String[] {
                            "stale processes",
                            Integer.toString(r.staleProcesses().size())
                        },
                        new String[] {
                            "swept claims", Integer.toString(r.sweptClaims().size())
                        },
                        new String[] {
                            "recovered", Integer.toString(r.recovered().size())
                        },
                        new String[] {
                            "retired attempts", Integer.toString(r.retired().size())
                        },
                        new String[] {"failures", Integer.toString(r.failures().size())}));
        Table items = new Table("WHAT", "WHICH", "DETAIL");
        for (Lease l : r.expiredLeases()) {
            items.row(
                    "expired lease",
                    "actor " + l.actor(),
                    "held by " + l.process() + " with token " + l.token() + ", expired " + t.at(l.expiresAt())
                            + " (reported; the next acquirer takes it over)");
        }
        for (ProcessInfo p : r.staleProcesses()) {
            items.row(
                    "stale process",
                    p.identity(),
                    p.kind() + " '" + p.label() + "'" + (p.pid() == null ? "" : " pid " + p.pid()) + ", last heartbeat "
                            + t.at(p.heartbeatAt()));
        }
        for (String m : r.sweptClaims()) {
            items.row("swept claim", m, "the expired claim was cleared; the message is NEW again");
        }
        for (Recovery x : r.recovered()) {
            items.row("recovered", x.assignmentId(), recovery(x));
        }
        for (Retirement x : r.retired()) {
            items.row(
                    "retired",
                    x.attemptId(),
                    "expired attempt of " + x.assignmentId() + " that was no longer current," + " now " + x.state());
        }
        for (TickFailure f : r.failures()) {
            items.row("failure", f.item(), f.problem());
        }
        if (!items.isEmpty()) {
            out.line("");
            out.table(items);
        }
    }

    private static String recovery(Recovery x) {
        return "FAILED (worker_lost, outcome unknown): attempt " + x.attemptId() + " token " + x.attemptToken()
                + " of " + x.lostProcess() + (x.fenceWasStolen() ? " (its fence had been stolen)" : "")
                + "; receipt #" + x.receiptId();
    }

    /** One line for a tick of the loop, naming only what is there. */
    private static void printLine(Output out, TickReport r) {
        if (out.json()) {
            out.emit(JsonShapes.tick(r));
            return;
        }
        List<String> parts = new ArrayList<>();
        for (Recovery x : r.recovered()) {
            parts.add("recovered " + x.assignmentId() + " as FAILED/worker_lost (attempt token " + x.attemptToken()
                    + " of " + x.lostProcess() + ", receipt #" + x.receiptId() + ")");
        }
        if (!r.sweptClaims().isEmpty()) {
            parts.add("swept " + count(r.sweptClaims().size(), "expired claim") + ": "
                    + String.join(", ", r.sweptClaims()));
        }
        if (!r.retired().isEmpty()) {
            parts.add("retired " + count(r.retired().size(), "stale attempt") + ": "
                    + r.retired().stream()
                            .map(x -> x.attemptId() + " " + x.state())
                            .collect(Collectors.joining(", ")));
        }
        if (!r.failures().isEmpty()) {
            parts.add(count(r.failures().size(), "failure") + ": "
                    + r.failures().stream()
                            .map(f -> f.item() + ": " + f.problem())
                            .collect(Collectors.joining("; ")));
        }
        if (!r.expiredLeases().isEmpty()) {
            parts.add(count(r.expiredLeases().size(), "expired lease") + " ("
                    + r.expiredLeases().stream()
                            .map(l -> l.actor() + " token " + l.token())
                            .collect(Collectors.joining(", "))
                    + ")");
        }
        if (!r.staleProcesses().isEmpty()) {
            parts.add(count(r.staleProcesses().size(), "stale process") + " ("
                    + r.staleProcesses().stream().map(ProcessInfo::identity).collect(Collectors.joining(", ")) + ")");
        }
        if (parts.isEmpty()) {
            parts.add("no expired leases and no stale processes any more");
        }
        out.line(out.times().wall(r.at()) + "  " + String.join("; ", parts));
    }

    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : noun.endsWith("s") ? "es" : "s");
    }

    /** What the previous tick reported, so a tick that only repeats it prints nothing. Not thread-safe. */
    private static final class Reported {
        private Set<String> leases = Set.of();
        private Set<String> processes = Set.of();

        boolean worthALine(TickReport r) {
            Set<String> nowLeases = r.expiredLeases().stream()
                    .map(l -> l.actor() + "#" + l.token())
                    .collect(Collectors.toSet());
            Set<String> nowProcesses =
                    r.staleProcesses().stream().map(ProcessInfo::identity).collect(Collectors.toSet());
            boolean changed = !nowLeases.equals(leases) || !nowProcesses.equals(processes);
            leases = nowLeases;
            processes = nowProcesses;
            return changed
                    || !r.sweptClaims().isEmpty()
                    || !r.recovered().isEmpty()
                    || !r.retired().isEmpty()
                    || !r.failures().isEmpty();
        }
    }

    /**
     * The loop's pruning (decision 0018): every {@code every}, at most {@link #BATCHES} short batches, so a tick is
     * never held up for long; what is left waits for the next time. A login that may not prune (a PostgreSQL worker)
     * is told once, and the loop goes on without pruning.
     */
    static final class Pruning {
        static final int BATCHES = 20;
        private final Duration every;
        private long next;
        private boolean off;

        Pruning(Duration every, long now) {
            this.every = every;
            this.next = now + every.toMillis();
        }

        void maybePrune(Engine engine, Output out, PrintWriter err, Object printLock) {
            long now = out.now();
            if (off || now < next) {
                return;
            }
            try {
                PruneReport r = engine.prune(new PruneOptions(PruneOptions.DEFAULT_BATCH_ROWS, BATCHES, false, null));
                next = r.finished() ? now + every.toMillis() : now; // unfinished: on with the next tick
                if (!r.nothing() && !out.json()) {
                    synchronized (printLock) {
                        out.line(out.times().wall(now) + "  pruned " + r.journalRows() + " journal rows, " + r.ticks()
                                + " ticks, " + r.contentionRows() + " contention windows, " + r.runs() + " runs, "
                                + r.messages() + " messages, " + r.processes() + " processes (longest batch "
                                + r.longestBatchMs() + " ms)");
                    }
                }
            } catch (RuntimeException e) {
                off = true;
                synchronized (printLock) {
                    err.println("pruning stopped for this supervisor: " + describe(e)
                            + " (prune with 'sovereign prune' as the operator role or the owner)");
                    err.flush();
                }
            }
        }
    }
}
