package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovereign metrics} (issue 29 item 3, decision 0319): the ledger's numbers in the Prometheus text format,
 * printed, and served over HTTP and scraped by a real HTTP client, read afresh on every scrape; bad addresses are one
 * sentence. The numbers are checked against what the test did to a real ledger, on SQLite and on PostgreSQL.
 */
class CliMetricsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    @TempDir
    Path dir;

    private final SettableClock clock = new SettableClock();

    /** Every sample line of a text exposition: {@code name{labels}} → value. */
    static Map<String, Double> samples(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        Matcher m =
                Pattern.compile("(?m)^([a-z_]+(?:\\{[^}]*\\})?) ([0-9.eE+-]+)$").matcher(text);
        while (m.find()) {
            out.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return out;
    }

    /**
     * Two grants, a refused grant, then (where the test's clock is the ledger's: SQLite) a takeover and a stale
     * release. A PostgreSQL ledger reads its server's clock, which the test does not move.
     */
    private void activity(CliHarness cli, boolean takeover) {
        cli.ok("init");
        cli.ok("actor", "add", "a");
        cli.ok("actor", "add", "b");
        cli.ok("--process", "proc_one", "lease", "acquire", "a", "--ttl", "10s");
        cli.ok("--process", "proc_one", "lease", "acquire", "b", "--ttl", "10m");
        assertThat(cli.run("--process", "proc_two", "lease", "acquire", "a").exit())
                .isEqualTo(ExitCode.REFUSED);
        if (!takeover) {
            return;
        }
        clock.advance(Duration.ofSeconds(11));
        cli.ok("--process", "proc_two", "lease", "acquire", "a", "--ttl", "10s"); // a takeover
        assertThat(cli.run("--process", "proc_one", "lease", "release", "a", "--token", "1")
                        .exit())
                .isEqualTo(ExitCode.REFUSED);
    }

    private void checkTheNumbers(Map<String, Double> s, boolean takeover) {
        assertThat(s)
                .containsEntry("sovereign_leases{state=\"live\"}", 2.0)
                .containsEntry("sovereign_leases{state=\"expired\"}", 0.0)
                .containsEntry("sovereign_grants_total", takeover ? 3.0 : 2.0)
                .containsEntry("sovereign_takeovers_total", takeover ? 1.0 : 0.0)
                .containsEntry("sovereign_refusals_total{category=\"actor_lease_held\"}", 1.0)
                .containsEntry("sovereign_ledger_rows{table=\"actors\"}", 2.0)
                .containsEntry("sovereign_runs{state=\"completed\"}", 0.0)
                .containsEntry("sovereign_runs_worker_lost", 0.0)
                .containsEntry("sovereign_processes{state=\"stale\"}", 0.0);
        // every process row in one of the four states; proc_one at least is a CLI identity that never beat
        assertThat(s.get("sovereign_processes{state=\"live\"}")
                        + s.get("sovereign_processes{state=\"no_heartbeat\"}")
                        + s.get("sovereign_processes{state=\"stopped\"}"))
                .isEqualTo(s.get("sovereign_ledger_rows{table=\"processes\"}"));
        assertThat(s.get("sovereign_processes{state=\"no_heartbeat\"}")).isGreaterThanOrEqualTo(1.0);
        assertThat(s.get("sovereign_journal_rows")).isEqualTo(s.get("sovereign_ledger_rows{table=\"fence_events\"}"));
        if (takeover) {
            assertThat(s).containsEntry("sovereign_refusals_total{category=\"actor_lease_lost\"}", 1.0);
        }
        assertThat(s.get("sovereign_journal_rows")).isGreaterThanOrEqualTo(takeover ? 5.0 : 3.0);
        assertThat(s.get("sovereign_journal_events_last_day")).isEqualTo(s.get("sovereign_journal_rows"));
        assertThat(s.get("sovereign_ledger_size_bytes")).isGreaterThan(10_000.0);
        if (takeover) {
            assertThat(s.get("sovereign_journal_oldest_event_timestamp_seconds"))
                    .isEqualTo((clock.millis() - 11_000) / 1000.0, Offset.offset(1.0));
        } else {
            assertThat(s.get("sovereign_journal_oldest_event_timestamp_seconds"))
                    .isPositive();
        }
    }

    @Test
    void printsTheLedgersNumbersInThePrometheusTextFormat() {
        CliHarness cli = new CliHarness(temp.dir(), clock);
        activity(cli, true);
        Result r = cli.ok("metrics");
        assertThat(r.out()).contains("# HELP sovereign_leases ").contains("# TYPE sovereign_grants_total counter");
        checkTheNumbers(samples(r.out()), true);
    }

    @Test
    void onPostgresTheSameNumbersAndTheSchemasSize() {
        String url = PgTestServer.freshDatabase().url();
        CliHarness cli = new CliHarness(dir, clock).with(b -> b.variables(Map.of("SOVEREIGN_DB", url)));
        activity(cli, false);
        checkTheNumbers(samples(cli.ok("metrics").out()), false);
    }

    @Test
    void servedOverHttpEveryScrapeReadsTheLedgerAfreshUntilStopped() throws Exception {
        CliHarness cli = new CliHarness(temp.dir(), clock);
        activity(cli, true);
        StopSignals.Stop stop = new StopSignals.Stop();
        CliEnvironment env =
                cli.with(b -> b.stopSignals(StopSignals.manual(stop))).environment();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> serving = CompletableFuture.supplyAsync(() -> Cli.execute(
                env, new PrintWriter(out, true), new PrintWriter(err, true), "metrics", "--listen", "127.0.0.1:0"));
        Pattern address = Pattern.compile("at (http://127\\.0\\.0\\.1:[0-9]+/metrics)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Matcher m = address.matcher("");
        while (!(m = address.matcher(out.toString())).find()) {
            assertThat(serving).as("stderr: %s", err).isNotDone();
            assertThat(System.nanoTime())
                    .as("the address within 30 s; stderr: %s", err)
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        URI uri = URI.create(m.group(1));
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> first =
                http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        checkTheNumbers(samples(first.body()), true);

        // a change in the ledger shows in the next scrape; OpenMetrics when Prometheus asks for it
        cli.ok("actor", "add", "c");
        cli.ok("--process", "proc_three", "lease", "acquire", "c", "--ttl", "1m");
        HttpResponse<String> second = http.send(
                HttpRequest.newBuilder(uri)
                        .header("Accept", "application/openmetrics-text; version=1.0.0")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(second.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/openmetrics-text"));
        assertThat(second.body()).endsWith("# EOF\n");
        assertThat(samples(second.body()))
                .containsEntry("sovereign_leases{state=\"live\"}", 3.0)
                .containsEntry("sovereign_grants_total", 4.0);

        stop.request();
        assertThat(serving.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void statusShowsTheSizeOnDiskTheRowsTheOldestEventAndTheGrowthTheMetricsShow() {
        CliHarness cli = new CliHarness(temp.dir(), clock);
        activity(cli, true);
        Map<String, Double> metrics = samples(cli.ok("metrics").out());
        JsonNode status = cli.ok("status", "--json").onlyJson();
        assertThat(status.get("size_bytes").asDouble()).isEqualTo(metrics.get("sovereign_ledger_size_bytes"));
        assertThat(status.get("rows").get("fence_events").asDouble()).isEqualTo(metrics.get("sovereign_journal_rows"));
        assertThat(status.get("rows").get("actors").asLong()).isEqualTo(2);
        assertThat(status.get("oldest_event_at").asLong()).isEqualTo(clock.millis() - 11_000);
        assertThat(status.get("events_last_day").asDouble())
                .isEqualTo(metrics.get("sovereign_journal_events_last_day"));

        String text = cli.ok("status").out();
        assertThat(text).containsPattern("on disk +[0-9.]+ kB \\(rows: fence_events [0-9]+, ");
        assertThat(text).contains("in the last 24 hours");
        clock.advance(Duration.ofDays(2));
        assertThat(cli.ok("status", "--json").onlyJson().get("events_last_day").asLong())
                .isZero();
    }

    /**
     * The Grafana dashboard and docs/operations.md name only metrics the command serves, and the page lists every
     * one it serves: docs true to the code.
     */
    @Test
    void theDashboardAndTheOperationsPageNameTheMetricsTheCommandServes() throws Exception {
        CliHarness cli = new CliHarness(temp.dir(), clock);
        activity(cli, true);
        cli.ok("backup", "metrics-backup.db"); // the last backup is served once there was one
        Set<String> served = new TreeSet<>();
        Matcher names = Pattern.compile("(?m)^# TYPE (sovereign_[a-z_]+) ")
                .matcher(cli.ok("metrics").out());
        while (names.find()) {
            served.add(names.group(1));
        }
        assertThat(served).hasSizeGreaterThanOrEqualTo(12);
        Path docs =
                Path.of(System.getProperty("user.dir")).resolve("../../docs").normalize();
        for (String file : new String[] {"grafana/sovereign-ledger.json", "operations.md"}) {
            String text = Files.readString(docs.resolve(file));
            Matcher used = Pattern.compile("sovereign_[a-z_]+[a-z]").matcher(text);
            Set<String> named = new TreeSet<>();
            while (used.find()) {
                named.add(used.group());
            }
            assertThat(named)
                    .as(file)
                    .isNotEmpty()
                    .allSatisfy(n -> assertThat(served).as(file).contains(n));
            if (file.equals("operations.md")) {
                assertThat(named).as("every served metric is documented").containsAll(served);
            }
        }
    }

    @Test
    void aBadAddressIsOneSentenceAndExitTwo() {
        CliHarness cli = new CliHarness(temp.dir(), clock);
        cli.ok("init");
        for (String bad :
                new String[] {"9464", "127.0.0.1:", "127.0.0.1:70000", "127.0.0.1:x", "no-such-host.invalid:9464"}) {
            Result r = cli.run("metrics", "--listen", bad);
            assertThat(r.exit()).as(bad).isEqualTo(ExitCode.BAD_INPUT);
            assertThat(r.errLines()).as(bad).singleElement().asString().contains("--listen");
        }
    }
}
