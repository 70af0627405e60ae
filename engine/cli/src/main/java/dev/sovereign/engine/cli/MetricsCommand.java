package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.LedgerLocation;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sovereign metrics [--listen HOST:PORT]}: the ledger's state in the Prometheus text format, printed once, or
 * served over HTTP for Prometheus to scrape until the command is stopped (decision 0319). Reads only: serving writes
 * nothing to the ledger and registers no process.
 */
@Command(
        name = "metrics",
        description = {
            "Print or serve the ledger's state as Prometheus metrics.",
            "Leases, grants, refusals by category, takeovers, runs by state, lost workers, processes, rows per table,"
                    + " size on disk, the oldest event and the journal's growth, in the Prometheus text format. With"
                    + " --listen, served at http://HOST:PORT/metrics for Prometheus to scrape until Ctrl-C (a local"
                    + " address by default; docs/security.md says what it exposes)."
        })
final class MetricsCommand extends EngineCommand {
    @Option(
            names = "--listen",
            paramLabel = "HOST:PORT",
            arity = "0..1",
            fallbackValue = "127.0.0.1:9464",
            description = "Serve the metrics over HTTP on this address (default when given alone: 127.0.0.1:9464;"
                    + " port 0 picks a free one).")
    String listen;

    private InetAddress host;
    private int port;

    @Override
    protected void beforeOpen(LedgerLocation database) {
        if (listen == null) {
            return;
        }
        int colon = listen.lastIndexOf(':');
        String portText = colon < 0 ? "" : listen.substring(colon + 1);
        String hostText = colon < 0 ? listen : listen.substring(0, colon);
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (colon <= 0 || port < 0 || port > 65_535) {
            throw CliFailure.badInput(
                    "--listen takes HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:9464, not '" + listen + "'.");
        }
        try {
            host = InetAddress.getByName(
                    hostText.startsWith("[") ? hostText.substring(1, hostText.length() - 1) : hostText);
        } catch (UnknownHostException e) {
            throw CliFailure.badInput("--listen names a host this machine cannot resolve: '" + hostText + "'.");
        }
    }

    @Override
    protected int run(Engine engine, Output out) {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new LedgerMetricsCollector(engine));
        if (listen == null) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            try {
                PrometheusTextFormatWriter.create().write(text, registry.scrape(), EscapingScheme.ALLOW_UTF8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            out.line(text.toString(StandardCharsets.UTF_8).stripTrailing());
            return ExitCode.OK;
        }
        try (StopSignals.Stop stop =
                        SovereignCommand.of(spec).environment().stopSignals().listen();
                HTTPServer server = HTTPServer.builder()
                        .inetAddress(host)
                        .port(port)
                        .registry(registry)
                        .buildAndStart()) {
            String shown =
                    host.getHostAddress().contains(":") ? "[" + host.getHostAddress() + "]" : host.getHostAddress();
            out.line("Serving the ledger's metrics at http://" + shown + ":" + server.getPort()
                    + "/metrics; stop with Ctrl-C.");
            stop.await(Duration.ofDays(3650));
            return ExitCode.OK;
        } catch (IOException e) {
            throw CliFailure.badInput("Cannot serve metrics on " + listen + ": " + e.getMessage() + ".");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.INTERRUPTED;
        }
    }
}
