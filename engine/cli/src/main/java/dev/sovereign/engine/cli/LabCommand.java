package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Check;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabGate;
import dev.sovereign.engine.lab.LabListener;
import dev.sovereign.engine.lab.LabOptions;
import dev.sovereign.engine.lab.LabRun;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import dev.sovereign.engine.lab.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sovereign lab SCENARIO [--break-fence]} runs one teaching scenario headlessly: real worker
 * processes against a database, the narrative printed step by step as it happens, then the verdict
 * the scenario's checker read from the journal and the ledger. {@code sovereign lab list} lists the
 * scenarios.
 *
 * <p>Which database: the one named with {@code --db} or {@code $SOVEREIGN_DB} (it must exist; the
 * scenario adds its own fresh actor and touches nothing else; on a server only a lab sandbox, see
 * {@link Lab#serverSandbox}), else a fresh sandbox database in a new
 * temporary directory, which is kept so it can be inspected afterwards ({@code sovereign --db PATH
 * events}). See docs/decisions/0700-lab-scenarios-and-verdicts.md.
 *
 * <p>Exit codes: {@value #HELD} the fence held, {@value #VIOLATED} the fence was violated,
 * {@value #INCONCLUSIVE} inconclusive (the scenario did not reach the situation it teaches, e.g. a
 * worker did not start in time: nothing was proven either way), 2 bad usage or an unknown scenario,
 * 3 storage error, 130 interrupted (SIGINT/SIGTERM: every worker it started is stopped first).
 *
 * <p>Not thread-safe: picocli creates one instance per command line and runs it once.
 */
@Command(
        name = "lab",
        description = {
            "Run a teaching scenario with real workers; print its verdict.",
            "SCENARIO is one of: two-racers, gc-pause, hard-kill, expired-self-reclaim, stolen-fence, clock-skew;"
                    + " 'list' describes them.",
            "Without --db (or $SOVEREIGN_DB) it runs in a fresh sandbox database, kept for inspection.",
            "On a server (--db jdbc:postgresql://...) it runs only in a lab sandbox: an empty database or schema"
                    + " (made one) or an existing sandbox; a real ledger is refused."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the fence held",
            "1:the fence was violated (a stale writer committed, or something was committed twice)",
            "2:bad usage or an unknown scenario",
            "3:storage error (the named database is missing, locked, not ours)",
            "4:inconclusive: the scenario did not reach the situation it teaches",
            "130:interrupted (the scenario's workers are stopped first)"
        })
final class LabCommand implements Callable<Integer> {
    /** Exit code: the fence held. */
    static final int HELD = ExitCode.OK;
    /** Exit code: a safety check failed. The same number as a refusal: "the answer was no". */
    static final int VIOLATED = 1;
    /** Exit code: nothing was proven either way. */
    static final int INCONCLUSIVE = 4;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "A scenario name, or 'list'.")
    String scenario;

    @Option(
            names = "--break-fence",
            description = "Start the scenario's workers with the terminal fence switched off"
                    + " (-Dsovereign.fault.ignoreTerminalFence=true) to show what fencing prevents: gc-pause, stolen-fence"
                    + " and clock-skew then report violated. For teaching only.")
    boolean breakFence;

    @Option(
            names = "--slow",
            arity = "0..1",
            fallbackValue = "4",
            paramLabel = "SECONDS",
            description = "Slow motion for a class: wait SECONDS (default 4) before each step the story can wait for"
                    + " (the lab's own next action). The workers' TTLs and jobs run on in real time; a step that must"
                    + " follow in real time never waits (decision 0117).")
    Integer slow;

    @Override
    public Integer call() throws Exception {
        SovereignCommand root = SovereignCommand.of(spec);
        Output out = root.output(spec);
        if ("list".equals(scenario)) {
            // as the scenarios run where --db points (on a server clock-skew explains instead); nothing is opened
            list(out, root.databaseNamed() ? Lab.scenarios(root.location()) : Lab.scenarios());
            return ExitCode.OK;
        }
        if (Lab.scenario(scenario).isEmpty()) {
            throw CliFailure.badInput("There is no lab scenario '" + scenario + "'; the scenarios are "
                    + String.join(
                            ", ",
                            Lab.scenarios().stream().map(ScenarioInfo::name).toList())
                    + " (see 'sovereign lab list')");
        }
        boolean sandbox = !root.databaseNamed();
        LedgerLocation named = sandbox ? null : root.location();
        boolean server = named != null && !named.isFile();
        // On a server the lab runs only in a lab sandbox: an empty database or schema is made one, an existing
        // sandbox is used again, anything else is refused before anything is written (decision 0909).
        LedgerLocation location = sandbox
                ? LedgerLocation.file(Lab.createSandbox(sandboxDirectory()))
                : server ? Lab.serverSandbox(named) : LedgerLocation.file(root.database("lab"));
        ScenarioInfo info = Lab.scenario(scenario, location).orElseThrow();
        if (!out.json()) {
            out.line("lab " + info.name() + ": " + info.title());
            out.line("database  " + location
                    + (sandbox
                            ? "  (a fresh sandbox, kept for inspection with the newest " + Lab.SANDBOXES_KEPT + ")"
                            : server ? "  (a lab sandbox on the server; its clock decides every expiry)" : ""));
            out.line("fence     "
                    + (breakFence ? "SWITCHED OFF in the workers (--break-fence): expect violations" : "intact"));
            if (breakFence && !info.faultSwitchApplies()) {
                out.line("          (this scenario does not rely on the terminal fence: the switch changes nothing)");
            }
            if (slow != null) {
                out.line("pace      slow motion: the lab waits " + slow + " s before each step it can hold; the"
                        + " workers' TTLs and jobs run on in real time");
            }
            out.line("");
        }
        if (slow != null && slow < 0) {
            throw CliFailure.badInput("--slow takes a number of seconds, 0 or more; it was " + slow + ".");
        }
        LabRun run = Lab.prepare(info.name(), new LabOptions(location, breakFence), printer(out, info));
        if (slow != null) {
            run.gate(slowMotion(out, Duration.ofSeconds(slow)));
        }
        LabVerdict verdict;
        try (StopSignals.Stop stop = root.environment().stopSignals().listen()) {
            Thread canceller = new Thread(
                    () -> {
                        try {
                            if (stop.await(Duration.ofDays(3650))) {
                                run.cancel();
                            }
                        } catch (InterruptedException ignored) {
                            // the run ended first
                        }
                    },
                    "lab-stop");
            canceller.setDaemon(true);
            canceller.start();
            try {
                verdict = run.run();
            } finally {
                canceller.interrupt();
            }
        }
        print(out, verdict, sandbox);
        return switch (verdict.verdict()) {
            case HELD -> HELD;
            case VIOLATED -> VIOLATED;
            case INCONCLUSIVE -> INCONCLUSIVE;
        };
    }

    /** The lab's one folder per user, which keeps the newest few sandboxes (issue 29 item 5). */
    private static Path sandboxDirectory() {
        return Lab.defaultSandboxFolder();
    }

    private void list(Output out, List<ScenarioInfo> scenarios) {
        if (out.json()) {
            for (ScenarioInfo s : scenarios) {
                ObjectNode o = JsonShapes.object();
                o.put("scenario", s.name())
                        .put("title", s.title())
                        .put("summary", s.summary())
                        .put("fault_switch_applies", s.faultSwitchApplies());
                ArrayNode steps = o.putArray("steps");
                s.steps().forEach(steps::add);
                out.emit(o);
            }
            return;
        }
        Table t = new Table("SCENARIO", "BREAK-FENCE", "WHAT IT SHOWS");
        for (ScenarioInfo s : scenarios) {
            t.row(s.name(), s.faultSwitchApplies() ? "violates" : "-", s.title());
        }
        out.table(t);
        out.line("");
        out.line("Run one with 'sovereign lab SCENARIO' (add --break-fence to switch the terminal fence off in its"
                + " workers).");
    }

    /** Waits {@code pause} before each step the run may hold, and says so (decision 0117). */
    private static LabGate slowMotion(Output out, Duration pause) {
        return new LabGate() {
            private int waitingFor = -1;
            private long since;

            @Override
            public boolean released(LabStep next) {
                if (waitingFor != next.index()) {
                    waitingFor = next.index();
                    since = System.nanoTime();
                    if (!out.json()) {
                        out.line("      (the lab waits " + pause.toSeconds() + " s before step " + (next.index() + 1)
                                + "; the workers run on in real time)");
                    }
                }
                return System.nanoTime() - since >= pause.toNanos();
            }
        };
    }

    /** Prints each step as it starts and as it ends, on the run's thread. */
    private static LabListener printer(Output out, ScenarioInfo info) {
        return step -> {
            if (out.json()) {
                ObjectNode o = JsonShapes.object();
                o.put("event", "step")
                        .put("scenario", info.name())
                        .put("step", step.index() + 1)
                        .put("of", step.of())
                        .put("title", step.title())
                        .put("status", step.status().code())
                        .put("detail", step.detail())
                        .put("at", step.at());
                out.emit(o);
                return;
            }
            switch (step.status()) {
                case RUNNING -> out.line(step.position() + " " + step.title());
                // a step that saw the fence fail reads the same as in the console: its sentence says so
                case DONE, VIOLATED -> out.line(indent(step) + step.detail());
                case FAILED -> out.line(indent(step) + "FAILED: " + step.detail());
                case SKIPPED -> out.line(step.position() + " " + step.title() + " (not reached)");
                default -> {
                    // PENDING is never published
                }
            }
        };
    }

    private static String indent(LabStep step) {
        return " ".repeat(step.position().length() + 1);
    }

    private static void print(Output out, LabVerdict v, boolean sandbox) {
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("event", "verdict")
                    .put("scenario", v.scenario())
                    .put("verdict", v.verdict().code())
                    .put("headline", v.headline())
                    .put("database", v.location().toString())
                    .put("sandbox", sandbox)
                    .put("actor", v.actor())
                    .put("fault_injected", v.faultInjected())
                    .put("started_at", v.startedAt())
                    .put("duration_ms", v.durationMs());
            ArrayNode checks = o.putArray("checks");
            for (Check c : v.checks()) {
                checks.addObject()
                        .put("kind", c.kind().name().toLowerCase(Locale.ROOT))
                        .put("statement", c.statement())
                        .put("passed", c.passed())
                        .put("evidence", c.evidence());
            }
            ObjectNode workers = o.putObject("worker_output");
            v.workerOutput().forEach((label, lines) -> {
                ArrayNode a = workers.putArray(label);
                lines.forEach(a::add);
            });
            out.emit(o);
            return;
        }
        out.line("");
        out.line("verdict   " + v.verdict().name() + ": " + v.headline());
        for (Check c : v.checks()) {
            out.line("  " + (c.passed() ? "ok    " : "FAILED") + "  "
                    + String.format("%-6s", c.kind().name().toLowerCase(Locale.ROOT)) + "  " + c.statement() + " ("
                    + c.evidence() + ")");
        }
        if (v.verdict() == Verdict.INCONCLUSIVE) {
            out.line("");
            out.line("What the workers printed:");
            v.workerOutput().forEach((label, lines) -> {
                out.line("  " + label);
                List.copyOf(lines).forEach(l -> out.line("    " + l));
            });
        }
        out.line("");
        // a server's URL without its password: the driver finds it in ~/.pgpass or PGPASSFILE (decision 0423)
        String db = v.location().withoutSecrets().toString();
        out.line("See it in the journal: sovereign --db " + db + " events   (or: sovereign console --db " + db + ")");
    }
}
