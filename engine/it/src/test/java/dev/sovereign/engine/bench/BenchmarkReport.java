package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark of this package once — the floor, the engine's operations and the peer with
 * JMH, then the multi-process contention cases — and writes the report (Markdown) with every figure
 * as a ratio to the floor measured in the same run. Started by {@code bench/run.sh} (Maven profile
 * {@code bench}); never part of {@code mvn verify}.
 *
 * <p>Arguments: {@code --report=PATH --quick=true|false --include=REGEX}.
 */
public final class BenchmarkReport {
    private static final String PACKAGE = BenchmarkReport.class.getPackageName();

    /** How long and how often everything is measured. */
    record Settings(
            String name,
            int forks,
            int warmupIterations,
            int measurementIterations,
            Duration iteration,
            Duration contentionWarmup,
            Duration contentionDuration) {}

    static final Settings FULL =
            new Settings("full", 3, 3, 5, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5));
    static final Settings QUICK = new Settings(
            "quick (a smoke run, not for conclusions)",
            1,
            1,
            2,
            Duration.ofMillis(500),
            Duration.ofMillis(300),
            Duration.ofSeconds(1));

    /** The measured iterations of one benchmark with one set of parameters, in µs per operation. */
    record Measured(String benchmark, Map<String, String> params, double[] samples) {
        double median() {
            return percentile(50);
        }

        double min() {
            return Arrays.stream(samples).min().orElse(Double.NaN);
        }

        double max() {
            return Arrays.stream(samples).max().orElse(Double.NaN);
        }

        double percentile(double p) {
            double[] s = samples.clone();
            Arrays.sort(s);
            if (s.length == 0) {
                return Double.NaN;
            }
            double rank = p / 100.0 * (s.length - 1);
            int lo = (int) Math.floor(rank);
            int hi = (int) Math.ceil(rank);
            return s[lo] + (s[hi] - s[lo]) * (rank - lo);
        }
    }

    /** One row of the operations table: which benchmark, and how many write transactions it is. */
    record Operation(String label, String benchmark, Map<String, String> params, int transactions, String needs) {}

    static final String IDLE_TICK = "idle supervisor tick, 1,000,000 journal rows, 100,000 finished attempts";

    static final List<Operation> OPERATIONS = List.of(
            new Operation("lease acquire + release", "LeaseBenchmark.acquireRelease", Map.of(), 2, null),
            new Operation("lease renew", "LeaseBenchmark.renew", Map.of(), 1, null),
            new Operation("heartbeat, 1 lease", "HeartbeatBenchmark.heartbeat", Map.of("leases", "1"), 1, null),
            new Operation("heartbeat, 100 leases", "HeartbeatBenchmark.heartbeat", Map.of("leases", "100"), 1, null),
            new Operation("heartbeat, 1,000 leases", "HeartbeatBenchmark.heartbeat", Map.of("leases", "1000"), 1, null),
            new Operation("message claim + complete", "MailboxBenchmark.claimComplete", Map.of(), 2, null),
            new Operation(
                    "runAssignment, scripted provider 0 ms", "RunAssignmentBenchmark.runAssignment", Map.of(), 2, null),
            new Operation(IDLE_TICK, "SupervisorTickBenchmark.idleTick", Map.of(), 1, null),
            new Operation("peer: ShedLock JDBC lock + unlock", "ShedLockBenchmark.lockUnlock", Map.of(), 2, null));

    private BenchmarkReport() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            opts.put(a.substring(2, eq), a.substring(eq + 1));
        }
        boolean quick = Boolean.parseBoolean(opts.getOrDefault("quick", "false"));
        Settings settings = quick ? QUICK : FULL;
        Path report = Path.of(opts.getOrDefault("report", "benchmarks.md"));
        if (quick && report.getFileName().toString().equals("benchmarks.md")) {
            report = Path.of("benchmarks-quick.md").toAbsolutePath();
        }
        String include = opts.getOrDefault("include", ".*");

        awaitQuiet(quick ? Duration.ZERO : QUIET_WAIT);
        Instant started = Instant.now();
        String loadBefore = loadAverage();
        log("load before: " + loadBefore);
        Machine machine = Machine.describe();

        Path work = Files.createDirectories(Path.of("bench-work").toAbsolutePath());
        Optional<Path> history = Optional.empty();
        if (present("SupervisorTickBenchmark") && "SupervisorTickBenchmark".matches(include)) {
            log("generating the ledger history template (1,000,000 journal rows, 100,000 finished attempts)");
            history = Optional.of(LedgerHistory.template(work));
        }

        log("measuring the physical floor: write + fdatasync of one 4 KiB page");
        FsyncFloor fsyncBefore = FsyncFloor.measure(work, quick ? 100 : 1_000);
        boolean sqlite = SQLITE_BENCHMARKS.stream()
                        .anyMatch(b ->
                                Pattern.compile("^(" + include + ")").matcher(b).find())
                || "Contention".matches(include);
        boolean postgres = PG_BENCHMARKS.stream()
                        .anyMatch(b ->
                                Pattern.compile("^(" + include + ")").matcher(b).find())
                || "PgContention".matches(include);
        boolean concurrency = "Concurrency".matches(include);
        boolean anyJmh = Stream.concat(SQLITE_BENCHMARKS.stream(), PG_BENCHMARKS.stream())
                .anyMatch(b -> Pattern.compile("^(" + include + ")").matcher(b).find());
        Map<String, Double> walPages = Map.of();
        if (sqlite) {
            log("counting WAL pages per operation");
            walPages = WalCensus.take();
        }
        EmbeddedPostgres pg = null;
        Map<String, PgCensus.Count> pgCensus = Map.of();
        Map<String, String> pgServer = Map.of();
        List<PgContentionDriver.Result> pgContention = new ArrayList<>();
        List<Measured> measured;
        try {
            if (postgres) {
                log("starting the durable PostgreSQL server of the benchmarks");
                pg = PgBench.start();
                System.setProperty(PgBench.PORT_PROPERTY, Integer.toString(pg.getPort()));
                pgServer = PgBench.show();
                log("PostgreSQL server: " + pgServer);
                log("counting the statements each PostgreSQL operation sends");
                pgCensus = PgCensus.take();
                pgCensus.forEach((op, c) -> log("census " + op + ": " + c));
            }
            measured = !anyJmh
                    ? List.of()
                    : runJmh(
                            settings,
                            include,
                            work,
                            history,
                            pg == null ? OptionalInt.empty() : OptionalInt.of(pg.getPort()));
            if ("PgContention".matches(include)) {
                pgContention = runPgContention(settings);
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
        List<ContentionDriver.Result> contention = new ArrayList<>();
        if ("Contention".matches(include)) {
            contention = runContention(settings);
        }
        List<ConcurrencyDriver.Run> concurrent = new ArrayList<>();
        if (concurrency) {
            concurrent = runConcurrency(settings);
        }
        FsyncFloor fsyncAfter = FsyncFloor.measure(work, quick ? 100 : 1_000);
        String loadAfter = loadAverage();
        log("load after: " + loadAfter);
        Instant finished = Instant.now();

        PgSection pgSection = new PgSection(measured, pgContention, pgCensus, pgServer, fsyncBefore);
        ConcurrencySection concurrencySection =
                new ConcurrencySection(concurrent, settings.forks(), fsyncBefore, fsyncAfter);
        Files.createDirectories(report.toAbsolutePath().getParent());
        if (!sqlite && Files.isRegularFile(report)) {
            // only PostgreSQL and/or the one-JVM concurrency was measured: replace those sections, keep every
            // other figure of the report as it was
            String text = Files.readString(report);
            if (postgres) {
                text = PgSection.splice(text, pgSection.render(settings, started, finished, loadBefore, loadAfter));
            }
            if (concurrency) {
                text = ConcurrencySection.splice(
                        text, concurrencySection.render(settings, started, finished, loadBefore, loadAfter));
            }
            Files.writeString(report, text);
        } else {
            String md = new ReportWriter(
                            settings,
                            machine,
                            loadBefore,
                            loadAfter,
                            started,
                            finished,
                            measured,
                            contention,
                            walPages,
                            fsyncBefore,
                            fsyncAfter,
                            pgSection,
                            concurrencySection)
                    .render();
            Files.writeString(report, md);
        }
        log("wrote " + report.toAbsolutePath());
    }

    /** One benchmark method of each SQLite class and each PostgreSQL class, to match {@code --include} against. */
    static final List<String> SQLITE_BENCHMARKS = List.of(
            "FloorBenchmark.beginUpdateCommit",
            ContractFloor.BENCHMARK,
            "LeaseBenchmark.acquireRelease",
            "LeaseBenchmark.renew",
            "HeartbeatBenchmark.heartbeat",
            "MailboxBenchmark.claimComplete",
            "RunAssignmentBenchmark.runAssignment",
            "SupervisorTickBenchmark.idleTick",
            "ShedLockBenchmark.lockUnlock");

    static final List<String> PG_BENCHMARKS = List.of(
            "PgFloorBenchmark.beginUpdateCommit",
            PgContractFloor.BENCHMARK,
            "PgLeaseBenchmark.acquireRelease",
            "PgLeaseBenchmark.renew",
            "PgHeartbeatBenchmark.heartbeat",
            "PgMailboxBenchmark.claimComplete",
            "PgRunAssignmentBenchmark.runAssignment",
            "PgShedLockBenchmark.lockUnlock");

    private static List<PgContentionDriver.Result> runPgContention(Settings s) throws Exception {
        PgContentionDriver driver = new PgContentionDriver(PgContentionDriver.warmup(s), s.contentionDuration());
        List<PgContentionDriver.Result> out = new ArrayList<>();
        for (ContentionDriver.Target t : List.of(ContentionDriver.Target.DIFFERENT, ContentionDriver.Target.SAME)) {
            for (int n : PgContentionDriver.PROCESSES) {
                PgContentionDriver.Case c = new PgContentionDriver.Case(t, n);
                log("PostgreSQL contention " + c);
                PgContentionDriver.Result r = driver.run(c);
                log(fmt(
                        "  %,.0f grants/s, p99 wait %.2f ms, refusals %d, storage errors %d",
                        r.figures().grantsPerSecond(),
                        r.figures().waitPercentileMillis(99),
                        r.figures().refusals(),
                        r.figures().storageErrors()));
                out.add(r);
            }
        }
        return out;
    }

    static boolean present(String simpleName) {
        try {
            Class.forName(PACKAGE + "." + simpleName);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Runs the benchmarks in {@code forks} rounds of one fork each, every round going through every
     * benchmark, instead of all forks of one benchmark back to back: on a shared machine the cost of
     * an fsync drifts over minutes, and interleaving gives the floor and each operation the same
     * share of quiet and busy moments, so their ratio is fair.
     */
    private static List<Measured> runJmh(
            Settings s, String include, Path work, Optional<Path> history, OptionalInt pgPort) throws Exception {
        Map<String, Measured> merged = new LinkedHashMap<>();
        for (int round = 1; round <= s.forks(); round++) {
            log("JMH round " + round + " of " + s.forks());
            ChainedOptionsBuilder b = new OptionsBuilder()
                    .include(PACKAGE.replace(".", "\\.") + "\\.(" + include + ")")
                    .mode(Mode.AverageTime)
                    .timeUnit(TimeUnit.MICROSECONDS)
                    .forks(1)
                    .warmupIterations(s.warmupIterations())
                    .warmupTime(TimeValue.milliseconds(s.iteration().toMillis()))
                    .measurementIterations(s.measurementIterations())
                    .measurementTime(TimeValue.milliseconds(s.iteration().toMillis()))
                    .threads(1)
                    .shouldFailOnError(true)
                    .result(work.resolve("jmh-results-round-" + round + ".json").toString())
                    .resultFormat(ResultFormatType.JSON)
                    .jvmArgs("-Xmx1g", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
            List<String> extra = new ArrayList<>();
            history.ifPresent(h -> extra.add("-D" + LedgerHistory.TEMPLATE_PROPERTY + "=" + h));
            pgPort.ifPresent(p -> extra.add("-D" + PgBench.PORT_PROPERTY + "=" + p));
            if (!extra.isEmpty()) {
                b = b.jvmArgsAppend(extra.toArray(String[]::new));
            }
            Collection<RunResult> results = new Runner(b.build()).run();
            for (RunResult rr : results) {
                String name = rr.getParams().getBenchmark();
                String shortName = name.substring(PACKAGE.length() + 1);
                Map<String, String> params = new TreeMap<>();
                for (String key : rr.getParams().getParamsKeys()) {
                    params.put(key, rr.getParams().getParam(key));
                }
                List<Double> samples = new ArrayList<>();
                for (BenchmarkResult br : rr.getBenchmarkResults()) {
                    for (IterationResult ir : br.getIterationResults()) {
                        samples.add(ir.getPrimaryResult().getScore());
                    }
                }
                double[] these =
                        samples.stream().mapToDouble(Double::doubleValue).toArray();
                merged.merge(
                        shortName + params,
                        new Measured(shortName, params, these),
                        (a, c) -> new Measured(a.benchmark(), a.params(), concat(a.samples(), c.samples())));
            }
        }
        return new ArrayList<>(merged.values());
    }

    private static double[] concat(double[] a, double[] b) {
        double[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static final List<BusySetting> BUSY_SETTINGS = List.of(BusySetting.ENGINE_DEFAULT, BusySetting.SHORT_PAUSES);

    private static List<ContentionDriver.Result> runContention(Settings s) throws Exception {
        ContentionDriver driver = new ContentionDriver(s.contentionWarmup(), s.contentionDuration());
        List<ContentionDriver.Result> out = new ArrayList<>();
        for (Durability d : List.of(Durability.NORMAL, Durability.FULL)) {
            for (BusySetting busy : BUSY_SETTINGS) {
                for (ContentionDriver.Target t : ContentionDriver.Target.values()) {
                    for (int n : new int[] {1, 2, 4}) {
                        ContentionDriver.Case c = new ContentionDriver.Case(d, t, n, busy);
                        log("contention " + c);
                        out.add(driver.run(c));
                    }
                }
            }
        }
        return out;
    }

    /** The one-JVM concurrency cases (decision 0505), in rounds through every case like the JMH forks. */
    private static List<ConcurrencyDriver.Run> runConcurrency(Settings s) throws Exception {
        ConcurrencyDriver driver = new ConcurrencyDriver(ConcurrencyDriver.warmup(s), s.contentionDuration());
        List<ConcurrencyDriver.Run> out = new ArrayList<>();
        for (int round = 1; round <= s.forks(); round++) {
            for (ConcurrencyDriver.Case c : ConcurrencyDriver.cases()) {
                log("concurrency round " + round + ": " + c);
                ConcurrencyDriver.Run r = driver.run(c);
                log(fmt(
                        "  %,.0f grants/s, p50 %.2f ms, p99 %.2f ms, %d commits, %d busy retries",
                        r.perSecond(), r.percentileMillis(50), r.percentileMillis(99), r.batches(), r.busyRetries()));
                out.add(r);
            }
        }
        return out;
    }

    /** How long a full run waits for the machine to settle before it measures (its own Maven build included). */
    static final Duration QUIET_WAIT = Duration.ofMinutes(5);

    /**
     * Waits until the 1-minute load average is below {@link ReportWriter#QUIET_LOAD}, at most {@code limit}: the
     * build that compiled this run (and anything that ran just before) loads the machine for a minute or two, and a
     * run measured on a machine that has not settled is not "quiet". It measures anyway after the limit, and the
     * report then says the machine was not quiet.
     */
    static void awaitQuiet(Duration limit) throws InterruptedException {
        Instant until = Instant.now().plus(limit);
        double load = firstLoad(loadAverage());
        if (load < ReportWriter.QUIET_LOAD || limit.isZero()) {
            return;
        }
        log(String.format(
                "waiting for the 1-minute load (%.2f) to fall below %.1f, at most %d s",
                load, ReportWriter.QUIET_LOAD, limit.toSeconds()));
        while (load >= ReportWriter.QUIET_LOAD && Instant.now().isBefore(until)) {
            Thread.sleep(5_000);
            load = firstLoad(loadAverage());
        }
        log(String.format("1-minute load %.2f: measuring", load));
    }

    static double firstLoad(String load) {
        try {
            return Double.parseDouble(load.split(" ")[0]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " / " + f[1] + " / " + f[2] + " (1 / 5 / 15 min)";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    static void log(String line) {
        System.out.println("[bench] " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + " " + line);
        System.out.flush();
    }

    /** The machine the figures belong to. */
    record Machine(
            String nproc,
            String cpuModel,
            String memory,
            String tempDir,
            String fileSystem,
            String jvm,
            String os,
            String sqlite) {
        static Machine describe() {
            String tmp = System.getProperty("java.io.tmpdir");
            return new Machine(
                    run("nproc").trim() + " (JVM sees " + Runtime.getRuntime().availableProcessors() + ")",
                    run("lscpu")
                            .lines()
                            .filter(l -> l.startsWith("Model name"))
                            .map(l -> l.replaceFirst("Model name:\\s*", ""))
                            .findFirst()
                            .orElse("unknown"),
                    run("free", "-h").stripTrailing(),
                    tmp,
                    run("df", "-T", tmp).stripTrailing(),
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                            + "; JMH forks run with -Xmx1g, contention workers with -Xmx256m",
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    sqliteVersion());
        }

        private static String sqliteVersion() {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT sqlite_version()")) {
                rs.next();
                return "SQLite " + rs.getString(1) + " via sqlite-jdbc "
                        + c.getMetaData().getDriverVersion();
            } catch (SQLException e) {
                return "unknown (" + e.getMessage() + ")";
            }
        }

        private static String run(String... cmd) {
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                try (InputStream in = p.getInputStream()) {
                    String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    p.waitFor(10, TimeUnit.SECONDS);
                    return out;
                }
            } catch (IOException e) {
                return "unknown (" + e.getMessage() + ")";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "unknown (interrupted)";
            }
        }
    }

    static String fmt(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}
