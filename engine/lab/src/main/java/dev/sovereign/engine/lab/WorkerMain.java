package dev.sovereign.engine.lab;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.CommandAllowList;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.OffsetClock;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.worker.Worker;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import sun.misc.Signal;

/**
 * The entry point of a lab worker process ({@link WorkerProcess} starts it): hosts one actor the way
 * {@code sovereign worker --control-stdin} does, printing the same lines, but built on the engine core
 * alone, so the lab, the demo and the console start workers without the CLI (no picocli, no Jackson).
 *
 * <p>Arguments, all from {@link WorkerProcess}: {@code DB ACTOR TTL_MS CLOCK_OFFSET_MS LABEL [PATTERN...]},
 * DB being a file's path or {@code env:SOVEREIGN_DB} (a server's URL, from the environment: never on a command line),
 * the patterns being the worker's command allow-list (decision 0800). Standard
 * input carries the lab's control lines ({@code pause}, {@code resume}, {@code skew <n>ms},
 * {@code contend}, {@code stop}); its end means the parent is gone and the worker stops. SIGTERM and SIGINT
 * stop it the same way (the lease is released). Exit codes as the CLI's: 0 stopped, 1 refused, 2 bad
 * input (an actor that does not exist), 3 storage error, 70 a bug — one sentence on standard error,
 * never a stack trace.
 */
public final class WorkerMain {
    private WorkerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the worker and maps every way it can end to the CLI's exit code and one sentence on standard
     * error (decision 0300): 0 stopped, 1 refused, 2 bad input, 3 storage error, 70 a bug.
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            return host(args, out);
        } catch (Refusal r) {
            err.println((r.category().isBadInput() ? "bad input" : "refused") + " ("
                    + r.category().code() + "): " + LedgerLocation.redactUrlsIn(r.getMessage()));
            return r.category().isBadInput() ? 2 : 1;
        } catch (StorageException e) {
            err.println("storage error (" + e.problem().name().toLowerCase(Locale.ROOT) + "): "
                    + LedgerLocation.redactUrlsIn(e.getMessage()));
            return 3;
        } catch (RuntimeException e) {
            err.println("internal error: the lab's worker failed unexpectedly ("
                    + LedgerLocation.redactUrlsIn(e.toString()) + ").");
            return 70;
        }
    }

    /** The worker's ledger: a file's path, or {@code env:SOVEREIGN_DB} for a server's URL (never on a command line). */
    private static LedgerLocation ledger(String arg) {
        if (WorkerProcess.FROM_ENVIRONMENT.equals(arg)) {
            String url = System.getenv(WorkerProcess.DB_VARIABLE);
            if (url == null || url.isBlank()) {
                throw Refusal.of(
                                RefusalCategory.INVALID_ARGUMENT,
                                "The lab's worker was told to read its database" + " from $" + WorkerProcess.DB_VARIABLE
                                        + ", which is not set.")
                        .build();
            }
            return LedgerLocation.parse(url);
        }
        return LedgerLocation.parse(arg);
    }

    /** A skew as {@link WorkerProcess} sends it: {@code <n>ms}. */
    private static Duration millis(String text) {
        return Duration.ofMillis(Long.parseLong(text.endsWith("ms") ? text.substring(0, text.length() - 2) : text));
    }

    private static int host(String[] args, PrintStream out) {
        if (args.length < 5) {
            throw Refusal.of(
                            RefusalCategory.INVALID_ARGUMENT,
                            "usage: WorkerMain DB ACTOR TTL_MS CLOCK_OFFSET_MS"
                                    + " LABEL [ALLOWED_COMMAND_PATTERN...] (started by the lab, not by people).")
                    .build();
        }
        LedgerLocation db = ledger(args[0]);
        String actor = args[1];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
        OffsetClock clock = new OffsetClock(Clock.systemUTC(), Duration.ofMillis(Long.parseLong(args[3])));
        String label = args[4].isEmpty() ? "worker " + ProcessHandle.current().pid() : args[4];
        long beat = Math.max(50, Math.min(1_000, ttl.toMillis() / 3));
        // the same limits as 'sovereign worker --ttl' (decisions 0602, 0114): one sentence, exit 2
        Arguments.leaseTtlMillis(ttl);
        Arguments.runTtlMillis(ttl, Duration.ofMillis(beat));
        CommandAllowList allowed = CommandAllowList.of(Arrays.asList(args).subList(5, args.length));
        EngineConfig config = EngineConfig.forDatabase(db)
                .clock(clock)
                .processKind("worker")
                .processLabel(label)
                .heartbeatInterval(Duration.ofMillis(beat))
                .defaultTtl(ttl)
                .allowCommands(allowed)
                .build();
        try (Engine engine = Engine.openExisting(config)) {
            if (engine.actors().find(actor).isEmpty()) {
                // Before the "started" line, as the CLI's worker: a typo is one sentence and nothing on stdout.
                throw ActorRules.unknown(actor);
            }
            Object printLock = new Object();
            Worker worker = new Worker(engine, actor, ttl, Duration.ofMillis(200), event -> {
                synchronized (printLock) {
                    out.println(event.toLine());
                    out.flush();
                }
            });
            synchronized (printLock) {
                out.println("started " + engine.processIdentity() + " pid "
                        + ProcessHandle.current().pid() + " ttl "
                        + ttl.toMillis() + " ms"
                        + (clock.offset().isZero()
                                ? ""
                                : " clock offset " + clock.offset().toMillis() + " ms") + " commands "
                        + (allowed.isEmpty()
                                ? "none allowed"
                                : "allowed by " + allowed.patterns().size() + " pattern(s)")
                        + " actor " + actor);
                out.flush();
            }
            // SIGTERM / SIGINT end the worker as the CLI's does: it stops, releases its lease and exits 0.
            for (String name : new String[] {"TERM", "INT"}) {
                try {
                    Signal.handle(new Signal(name), signal -> worker.stop());
                } catch (IllegalArgumentException unavailable) {
                    // no such signal here (e.g. on Windows): the end of standard input still stops it
                }
            }
            Thread control = new Thread(
                    () -> WorkerControl.read(System.in, worker, WorkerMain::millis, offset -> {
                        clock.setOffset(offset);
                        synchronized (printLock) {
                            out.println("skewed    " + actor + " — clock offset now " + offset.toMillis() + " ms");
                            out.flush();
                        }
                    }),
                    "worker-control");
            control.setDaemon(true);
            control.start();
            worker.run();
            control.interrupt();
        }
        return 0;
    }
}
