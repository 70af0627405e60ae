package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.OffsetClock;
import dev.sovereign.engine.lab.WorkerControl;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.worker.Worker;
import dev.sovereign.engine.worker.WorkerEvent;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sovereign worker --actor A [--ttl DUR] [--clock-offset DUR]}: a long-running process that
 * hosts one actor — waits for its lease, heartbeats, claims and completes its messages, runs its
 * assignments ({@code command:} ones only when {@code --allow-command} matches them; decision 0800), prints one line per thing it does (with tokens), and on SIGINT or SIGTERM releases
 * its lease and exits 0.
 *
 * <p>{@code --control-stdin} (the channel the lab's own workers, {@code lab.WorkerMain}, also read) reads commands from standard
 * input, one per line: {@code pause}, {@code resume} (a cooperative pause: no work, no heartbeats),
 * {@code skew DUR} (set the clock offset), {@code contend} (try to acquire once now, even while another
 * process's lease is live: the refusal is journalled), {@code stop}. End of input means the parent is gone: the
 * worker stops, so a crashed console leaves no orphans.
 */
@Command(name = "worker", description = "Host an actor: hold its lease, do its messages and runs.")
final class WorkerCommand extends EngineCommand {
    @Option(names = "--actor", required = true, paramLabel = "A", description = "The actor to host.")
    String actor;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description =
                    "TTL of the lease, attempts and claims; the heartbeat renews at a third of it" + " (default: 10s).")
    Duration ttl;

    @Option(
            names = "--clock-offset",
            paramLabel = "DUR",
            converter = Converters.SignedDurationConverter.class,
            description = "Run this worker's clock ahead (or behind, with -) by DUR, for teaching clock skew.")
    Duration clockOffset;

    @Option(names = "--label", paramLabel = "TEXT", description = "How the process is shown (default: worker <pid>).")
    String label;

    @Option(
            names = "--idle",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "How long to wait when there is nothing to do (default: 200ms).")
    Duration idle;

    @Option(names = "--control-stdin", description = "Read pause/resume/skew/stop commands from standard input.")
    boolean controlStdin;

    @Mixin
    AllowCommandOptions allowCommands;

    private OffsetClock clock;

    private Duration ttl() {
        return RunCommand.hostingTtl(ttl);
    }

    @Override
    protected boolean heartbeats() {
        return true;
    }

    /**
     * The worker's TTL is its lease's, its claims' and its runs': within the rule book's limits and long enough
     * for its heartbeat; the clock offset and the idle wait within 365 days. Exit 2 before anything is opened.
     */
    @Override
    protected void checkArguments() {
        RunCommand.checkHostingTtl(ttl());
        if (clockOffset != null) {
            Arguments.offsetMillis(clockOffset, "clock offset (--clock-offset)");
        }
        if (idle != null) {
            Arguments.durationMillis(idle, "idle wait (--idle)");
        }
    }

    /**
     * The worker registers once it checked its actor (a read), so a typo leaves no process row (decision 0315);
     * it then beats at once, so it shows as live while it waits for the lease.
     */
    @Override
    protected boolean registersWhenOpened() {
        return false;
    }

    @Override
    protected void customize(EngineConfig.Builder config, CliEnvironment environment) {
        clock = new OffsetClock(environment.clock(), clockOffset != null ? clockOffset : Duration.ZERO);
        RunCommand.hosting(config, ttl(), allowCommands)
                .clock(clock)
                .processKind("worker")
                .processLabel(
                        label != null
                                ? label
                                : "worker " + ProcessHandle.current().pid());
    }

    @Override
    protected int run(Engine engine, Output out) throws Exception {
        if (engine.actors().find(actor).isEmpty()) {
            // Before the "started" line, so a typo is one sentence and nothing on stdout, and no process row.
            throw ActorRules.unknown(actor);
        }
        engine.heartbeatNow(); // registers the process: a worker is visible while it waits
        Object printLock = new Object();
        Worker worker = new Worker(engine, actor, ttl(), idle != null ? idle : Duration.ofMillis(200), event -> {
            synchronized (printLock) {
                print(out, engine, event);
            }
        });
        synchronized (printLock) {
            print(
                    out,
                    engine,
                    new WorkerEvent(
                            "started",
                            actor,
                            null,
                            null,
                            engine.processIdentity() + " pid "
                                    + ProcessHandle.current().pid() + " ttl " + ttl().toMillis() + " ms"
                                    + (clock.offset().isZero()
                                            ? ""
                                            : " clock offset " + clock.offset().toMillis() + " ms")
                                    + " commands "
                                    + (engine.config().allowedCommands().isEmpty()
                                            ? "none allowed"
                                            : "allowed by "
                                                    + engine.config()
                                                            .allowedCommands()
                                                            .patterns()
                                                            .size() + " pattern(s)")));
        }
        try (StopSignals.Stop stop =
                SovereignCommand.of(spec).environment().stopSignals().listen()) {
            Thread stopper = daemon("worker-stop", () -> {
                try {
                    stop.await(Duration.ofDays(3650));
                    worker.stop();
                } catch (InterruptedException ignored) {
                    // the worker ended on its own
                }
            });
            Thread control = controlStdin
                    ? daemon(
                            "worker-control",
                            () -> WorkerControl.read(System.in, worker, Converters::parseSignedDuration, offset -> {
                                clock.setOffset(offset);
                                synchronized (printLock) {
                                    out.line("skewed    " + actor + " — clock offset now " + offset.toMillis() + " ms");
                                }
                            }))
                    : null;
            worker.run();
            stopper.interrupt();
            if (control != null) {
                control.interrupt();
            }
        }
        return ExitCode.OK;
    }

    private void print(Output out, Engine engine, WorkerEvent e) {
        if (out.json()) {
            ObjectNode n = JsonShapes.object();
            n.put("event", e.kind())
                    .put("actor", e.actor())
                    .put("process", engine.processIdentity())
                    .put("at", engine.config().clock().millis());
            if (e.resource() != null) {
                n.put("resource", e.resource());
            }
            if (e.token() != null) {
                n.put("token", e.token());
            }
            if (e.detail() != null) {
                n.put("detail", e.detail());
            }
            out.emit(n);
        } else {
            out.line(e.kind().equals("started") ? "started " + e.detail() + " actor " + e.actor() : e.toLine());
        }
    }
}
