package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.LedgerMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Locale;
import java.util.Map;

/**
 * The ledger's numbers ({@link Engine#metrics()}) as Prometheus metrics, read afresh on every scrape in one read
 * transaction (decision 0319). The names and labels are the contract an operator's dashboards and alerts rely on:
 * docs/operations.md lists them. The journal's counts are counters: they only grow while nothing is pruned.
 */
final class LedgerMetricsCollector implements MultiCollector {
    private final Engine engine;

    LedgerMetricsCollector(Engine engine) {
        this.engine = engine;
    }

    @Override
    public MetricSnapshots collect() {
        LedgerMetrics m = engine.metrics();
        MetricSnapshots.Builder out = MetricSnapshots.builder();
        out.metricSnapshot(gauge(
                "sovereign_leases",
                "Actor leases by state: live (its effective expiry ahead) or expired (nobody took it yet).",
                Map.of("live", m.leasesLive(), "expired", m.leasesExpired()),
                "state"));
        out.metricSnapshot(
                counter("sovereign_grants", "Lease grants in the journal: acquisitions and takeovers.", m.grants()));
        out.metricSnapshot(
                counter("sovereign_takeovers", "Takeovers of an expired lease in the journal.", m.takeovers()));
        CounterSnapshot.Builder refusals = CounterSnapshot.builder()
                .name("sovereign_refusals")
                .help("Refused writes in the journal (REJECTED rows), by refusal category.");
        m.refusalsByCategory()
                .forEach((category, n) -> refusals.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of("category", category))
                        .value(n)
                        .build()));
        out.metricSnapshot(refusals.build());
        GaugeSnapshot.Builder runs =
                GaugeSnapshot.builder().name("sovereign_runs").help("Assignments by state.");
        m.runsByState().forEach((state, n) -> runs.dataPoint(point("state", state.toLowerCase(Locale.ROOT), n)));
        out.metricSnapshot(runs.build());
        out.metricSnapshot(gauge(
                "sovereign_runs_worker_lost",
                "Runs whose worker was lost that nobody has retried or acknowledged yet.",
                m.workerLost()));
        out.metricSnapshot(gauge(
                "sovereign_runs_needing_operator",
                "Runs that ended FAILED or BLOCKED that nobody has retried or acknowledged: the console's alerts.",
                m.runsNeedingOperator()));
        out.metricSnapshot(gauge(
                "sovereign_processes",
                "Registered processes: live, stale (its beats stopped), no_heartbeat (a CLI call's identity) or"
                        + " stopped.",
                Map.of(
                        "live", m.processesLive(),
                        "stale", m.processesStale(),
                        "no_heartbeat", m.processesWithoutHeartbeat(),
                        "stopped", m.processesStopped()),
                "state"));
        GaugeSnapshot.Builder rows =
                GaugeSnapshot.builder().name("sovereign_ledger_rows").help("Rows in each of the ledger's tables.");
        m.rowsByTable().forEach((table, n) -> rows.dataPoint(point("table", table, n)));
        out.metricSnapshot(rows.build());
        out.metricSnapshot(gauge("sovereign_journal_rows", "Rows in the fence journal.", m.journalRows()));
        out.metricSnapshot(GaugeSnapshot.builder()
                .name("sovereign_ledger_size_bytes")
                .help("The ledger's size on disk: the SQLite file's pages, or the ledger schema's tables and indexes.")
                .unit(Unit.BYTES)
                .dataPoint(point(m.sizeBytes()))
                .build());
        out.metricSnapshot(gauge(
                "sovereign_journal_events_last_day",
                "Journal rows written in the 24 hours before the reading: the journal's growth per day.",
                m.eventsLastDay()));
        if (m.oldestEventAt() >= 0) {
            out.metricSnapshot(seconds(
                    "sovereign_journal_oldest_event_timestamp_seconds",
                    "When the oldest journal row was written (Unix time).",
                    m.oldestEventAt()));
        }
        out.metricSnapshot(GaugeSnapshot.builder()
                .name("sovereign_journal_retention_seconds")
                .help("How long the journal is kept: the ledger's retention policy (decision 0018).")
                .unit(Unit.SECONDS)
                .dataPoint(point(m.retention().keepJournal().toSeconds()))
                .build());
        out.metricSnapshot(counter(
                "sovereign_pruned_journal_rows",
                "Journal rows pruned in the ledger's whole life (decision 0018).",
                m.retention().prunedRows()));
        out.metricSnapshot(counter(
                "sovereign_pruned_runs",
                "Finished runs pruned with their attempts and receipts, in the ledger's whole life (decision 0020).",
                m.retention().prunedRuns()));
        out.metricSnapshot(counter(
                "sovereign_pruned_messages",
                "Finished messages pruned in the ledger's whole life (decision 0020).",
                m.retention().prunedMessages()));
        out.metricSnapshot(counter(
                "sovereign_pruned_processes",
                "Stopped processes pruned in the ledger's whole life (decision 0020).",
                m.retention().prunedProcesses()));
        if (m.retention().lastBackupAt() >= 0) {
            out.metricSnapshot(seconds(
                    "sovereign_last_backup_timestamp_seconds",
                    "When 'sovereign backup' last copied this ledger (Unix time); absent when never.",
                    m.retention().lastBackupAt()));
        }
        out.metricSnapshot(seconds(
                "sovereign_last_prune_timestamp_seconds",
                "When a prune last removed rows or moved the journal's watermark (Unix time); 0 when never.",
                Math.max(0, m.retention().lastPrunedAt())));
        out.metricSnapshot(seconds(
                "sovereign_metrics_read_timestamp_seconds",
                "When these numbers were read, by the reading engine's clock (Unix time).",
                m.readAt()));
        return out.build();
    }

    private static GaugeSnapshot.GaugeDataPointSnapshot point(double value) {
        return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build();
    }

    private static GaugeSnapshot.GaugeDataPointSnapshot point(String label, String value, double n) {
        return GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(Labels.of(label, value))
                .value(n)
                .build();
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(point(value))
                .build();
    }

    private static GaugeSnapshot gauge(String name, String help, Map<String, Long> byLabel, String label) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        byLabel.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> b.dataPoint(point(label, e.getKey(), e.getValue())));
        return b.build();
    }

    private static GaugeSnapshot seconds(String name, String help, long epochMillis) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .unit(Unit.SECONDS)
                .dataPoint(point(epochMillis / 1000.0))
                .build();
    }

    private static CounterSnapshot counter(String name, String help, long value) {
        return CounterSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value(value)
                        .build())
                .build();
    }
}
