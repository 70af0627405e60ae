package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.testing.ChildJvm;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Contention on PostgreSQL: 1, 4 or 16 child JVMs ({@link PgContentionWorker}), each its own engine and so its
 * own connection and process identity, on one database of the benchmark server, for a fixed time; either each
 * on its OWN actor (they contend only for the server: the token counter row every grant locks until its
 * durable commit) or all on the SAME actor. Separate OS processes, as the SQLite contention cases.
 */
final class PgContentionDriver {
    /** How often a waiting worker reads the lease row (one round trip to the server per read). */
    static final long POLL_MICROS = 1_000;

    static final int[] PROCESSES = {1, 4, 16};

    record Case(ContentionDriver.Target target, int processes) {}

    /** One case's figures; the arithmetic is {@link ContentionDriver.Result}'s. */
    record Result(Case scenario, ContentionDriver.Result figures) {}

    /**
     * The unrecorded warm-up of a case: 16 JVMs compiling their hot paths on 2 cores need longer than the one
     * second the SQLite cases give their 4, so a full run gives 3 s (a quick run its own short warm-up).
     */
    static Duration warmup(BenchmarkReport.Settings s) {
        return s.contentionWarmup().compareTo(Duration.ofSeconds(1)) >= 0
                ? Duration.ofSeconds(3)
                : s.contentionWarmup();
    }

    private final Duration warmup;
    private final Duration duration;

    PgContentionDriver(Duration warmup, Duration duration) {
        this.warmup = warmup;
        this.duration = duration;
    }

    Result run(Case c) throws Exception {
        Path dir = BenchFiles.freshDirectory();
        try {
            String url = PgBench.freshDatabase();
            try (Engine e = PgBench.openEngine(url, dir.resolve("setup"))) {
                e.actors().add("contended");
                for (int i = 0; i < c.processes(); i++) {
                    e.actors().add("own-" + i);
                }
            }
            Path go = dir.resolve("go");
            List<Process> children = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            List<Path> results = new ArrayList<>();
            try {
                for (int i = 0; i < c.processes(); i++) {
                    String actor = c.target() == ContentionDriver.Target.SAME ? "contended" : "own-" + i;
                    Path log = dir.resolve("worker-" + i + ".log");
                    Path result = dir.resolve("worker-" + i + ".bin");
                    List<String> cmd = new ArrayList<>();
                    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java")
                            .toString());
                    cmd.add("-Xmx128m");
                    cmd.add("-cp");
                    cmd.add(ChildJvm.classpath());
                    cmd.add(PgContentionWorker.class.getName());
                    cmd.addAll(List.of(
                            url,
                            go.toString(),
                            actor,
                            Long.toString(warmup.toMillis()),
                            Long.toString(duration.toMillis()),
                            result.toString(),
                            Long.toString(POLL_MICROS),
                            dir.resolve("data-" + i).toString()));
                    ProcessBuilder pb = new ProcessBuilder(cmd);
                    pb.redirectErrorStream(true);
                    pb.redirectOutput(log.toFile());
                    children.add(pb.start());
                    logs.add(log);
                    results.add(result);
                }
                for (Path log : logs) {
                    ChildJvm.awaitLine(log, "READY", Duration.ofSeconds(300));
                }
                Files.createFile(go);
                long limit = warmup.plus(duration).plusSeconds(180).toMillis();
                for (int i = 0; i < children.size(); i++) {
                    Process p = children.get(i);
                    if (!p.waitFor(limit, TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                        throw new IllegalStateException(
                                "contention worker " + i + " failed: " + Files.readString(logs.get(i)));
                    }
                }
            } finally {
                children.forEach(ChildJvm::destroy);
            }
            List<ContentionDriver.ProcessFigures> figures = new ArrayList<>();
            for (Path r : results) {
                figures.add(read(r));
            }
            return new Result(c, new ContentionDriver.Result(null, duration.toNanos() / 1e9, figures));
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }

    private static ContentionDriver.ProcessFigures read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            int grants = in.readInt();
            long refusals = in.readLong();
            long errors = in.readLong();
            long[] waits = new long[grants];
            for (int i = 0; i < grants; i++) {
                waits[i] = in.readLong();
            }
            return new ContentionDriver.ProcessFigures(grants, refusals, errors, waits);
        }
    }
}
