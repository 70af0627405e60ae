package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.testing.ChildJvm;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Multi-process contention: 1, 2 or 4 child JVMs ({@link ContentionWorker}), each its own engine and
 * process identity, acquiring and releasing either the SAME actor's lease or each its OWN actor's,
 * on one database file, for a fixed time. Reports total grants per second, each process's share of
 * the grants, and the wait to acquire (from wanting the lease to holding it) over all grants.
 */
final class ContentionDriver {
    enum Target {
        /** Every process wants the one lease of actor {@code contended}. */
        SAME,
        /** Process i wants only actor {@code own-i}: they contend for SQLite's write lock, not the lease. */
        DIFFERENT
    }

    record Case(Durability durability, Target target, int processes, BusySetting busy) {}

    record ProcessFigures(int grants, long refusals, long storageErrors, long[] waitsNanos) {}

    record Result(Case scenario, double seconds, List<ProcessFigures> processes) {
        long grants() {
            return processes.stream().mapToLong(ProcessFigures::grants).sum();
        }

        double grantsPerSecond() {
            return grants() / seconds;
        }

        /** Each process's fraction of all grants, in start order. */
        double[] shares() {
            long total = Math.max(1, grants());
            return processes.stream()
                    .mapToDouble(p -> (double) p.grants() / total)
                    .toArray();
        }

        double minShare() {
            return Arrays.stream(shares()).min().orElse(0);
        }

        long[] allWaitsSorted() {
            long[] all = processes.stream()
                    .flatMapToLong(p -> Arrays.stream(p.waitsNanos()))
                    .toArray();
            Arrays.sort(all);
            return all;
        }

        double waitPercentileMillis(double p) {
            long[] all = allWaitsSorted();
            if (all.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(all.length - 1, Math.max(0, Math.ceil(p / 100.0 * all.length) - 1));
            return all[i] / 1e6;
        }

        long refusals() {
            return processes.stream().mapToLong(ProcessFigures::refusals).sum();
        }

        long storageErrors() {
            return processes.stream().mapToLong(ProcessFigures::storageErrors).sum();
        }
    }

    private final Duration warmup;
    private final Duration duration;

    ContentionDriver(Duration warmup, Duration duration) {
        this.warmup = warmup;
        this.duration = duration;
    }

    Result run(Case c) throws Exception {
        Path dir = BenchFiles.freshDirectory();
        try {
            Path db = dir.resolve("sovereign.db");
            try (Engine e = BenchFiles.openEngine(db, c.durability())) {
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
                    String actor = c.target() == Target.SAME ? "contended" : "own-" + i;
                    Path log = dir.resolve("worker-" + i + ".log");
                    Path result = dir.resolve("worker-" + i + ".bin");
                    ProcessBuilder pb = new ProcessBuilder(javaCommand(
                            db.toString(),
                            go.toString(),
                            actor,
                            Long.toString(warmup.toMillis()),
                            Long.toString(duration.toMillis()),
                            result.toString(),
                            c.durability().name(),
                            c.busy().code()));
                    pb.redirectErrorStream(true);
                    pb.redirectOutput(log.toFile());
                    children.add(pb.start());
                    logs.add(log);
                    results.add(result);
                }
                for (Path log : logs) {
                    ChildJvm.awaitLine(log, "READY", Duration.ofSeconds(120));
                }
                Files.createFile(go);
                long limit = warmup.plus(duration).plusSeconds(120).toMillis();
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
            List<ProcessFigures> figures = new ArrayList<>();
            for (Path r : results) {
                figures.add(read(r));
            }
            return new Result(c, duration.toNanos() / 1e9, figures);
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }

    private static List<String> javaCommand(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(ChildJvm.classpath());
        cmd.add(ContentionWorker.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static ProcessFigures read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            int grants = in.readInt();
            long refusals = in.readLong();
            long errors = in.readLong();
            long[] waits = new long[grants];
            for (int i = 0; i < grants; i++) {
                waits[i] = in.readLong();
            }
            return new ProcessFigures(grants, refusals, errors, waits);
        }
    }
}
