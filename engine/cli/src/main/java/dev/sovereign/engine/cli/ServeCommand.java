package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code sovereign serve --stdio}: one long-lived process that reads JSON requests line by line on standard
 * input and answers each with exactly one JSON line on standard output, so an agent in any language pays the
 * JVM's start once, keeps one process identity and is kept alive by this process's heartbeat between its
 * requests. Each request runs the same command class a one-shot call runs ({@link ServeRequests}), on this
 * process's engine.
 *
 * <p>Ends on end of input, SIGINT or SIGTERM: the engine closes as any other clean close does, releasing the
 * leases this process still holds (by compare-and-set on their tokens) and marking the process stopped, then
 * exit 0 (docs/decisions/0317). A signal during a {@code run} request cancels that run's provider first; the
 * run still commits its end and is answered.
 *
 * <p>Not thread-safe: one instance serves one input stream; requests are answered one at a time, in order.
 */
@Command(name = "serve", description = "Answer JSON requests on stdin, one line each, as one process.")
final class ServeCommand extends EngineCommand {
    /** What the queue hands the serving loop when input ended or a stop was requested. */
    private static final String END = new String("end of input");

    @Option(
            names = "--stdio",
            required = true,
            description = "Read one JSON request per line on stdin, answer one JSON line each on stdout.")
    boolean stdio;

    @Option(
            names = "--ttl",
            paramLabel = "DUR",
            converter = Converters.DurationConverter.class,
            description = "TTL of leases, runs and claims a request gives none for; the heartbeat renews at a third"
                    + " of it, 50ms to 1s (default: 10s).")
    Duration ttl;

    @Option(names = "--label", paramLabel = "TEXT", description = "How the process is shown (default: serve <pid>).")
    String label;

    @Mixin
    AllowCommandOptions allowCommands;

    /** Its TTL within the rule book's limits and spanning two of its own beats, as a worker's (exit 2). */
    @Override
    protected void checkArguments() {
        RunCommand.checkHostingTtl(RunCommand.hostingTtl(ttl));
    }

    /** Beats while open, so what it holds stays alive between requests. */
    @Override
    protected boolean heartbeats() {
        return true;
    }

    /** A serve process is its own identity for its whole life: it cannot act as another one. */
    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (SovereignCommand.of(spec).process() != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "'serve' is a process of its own and takes no --process:"
                            + " it mints one identity when it starts and answers the request {\"op\": \"identity\"} with it");
        }
    }

    @Override
    protected void customize(EngineConfig.Builder config, CliEnvironment environment) {
        RunCommand.hosting(config, RunCommand.hostingTtl(ttl), allowCommands)
                .processKind("serve")
                .processLabel(
                        label != null
                                ? label
                                : "serve " + ProcessHandle.current().pid());
    }

    @Override
    protected int run(Engine engine, Output out) throws InterruptedException {
        CliEnvironment environment = SovereignCommand.of(spec).environment();
        boolean debug = SovereignCommand.of(spec).debug();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        try (StopSignals.Stop stop = environment.stopSignals().listen()) {
            ServeRequests requests = new ServeRequests(
                    engine,
                    environment,
                    stop,
                    debug ? Optional.of(spec.commandLine().getErr()) : Optional.empty());
            Thread reader = daemon("serve-stdin", () -> read(environment, lines));
            Thread stopper = daemon("serve-stop", () -> {
                try {
                    stop.await(Duration.ofDays(3650));
                    requests.stopRuns();
                    lines.add(END);
                } catch (InterruptedException ignored) {
                    // input ended first
                }
            });
            long number = 0;
            while (true) {
                String line = lines.take();
                if (line == END || stop.isRequested()) {
                    break;
                }
                number++;
                if (line.isBlank()) {
                    continue;
                }
                ObjectNode answer = requests.answer(line, number);
                out.emit(answer);
            }
            stopper.interrupt();
            reader.interrupt();
        }
        return ExitCode.OK;
    }

    /** Hands every line of standard input to the loop, then {@link #END}; a read failure ends input too. */
    private static void read(CliEnvironment environment, BlockingQueue<String> lines) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(environment.input(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException | UncheckedIOException e) {
            // input that cannot be read has ended
        } finally {
            lines.add(END);
        }
    }
}
