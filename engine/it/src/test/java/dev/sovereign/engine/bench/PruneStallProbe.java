package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.PruneOptions;
import dev.sovereign.engine.admin.PruneReport;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How long a prune holds up the workers writing beside it (issue 29 item 1; decision 0018): a SQLite ledger whose
 * journal holds {@code rows} rows older than the policy, one worker thread granting and releasing leases as fast as
 * it can, measured first alone and then while a prune removes those rows in batches of 500, and then the month's
 * finished runs and messages ({@code -Dprobe.runs=N}, default 5,000 of each). Prints the worker's
 * latency percentiles in both phases (the ratio is the stall) and the prune's longest batch. Not part of the suite:
 * {@code mvn -pl engine/it -am test -Dtest=PruneStallProbe -Dsurefire.failIfNoSpecifiedTests=false}
 * ({@code -Dprobe.rows=N}, {@code -Dprobe.durability=FULL|NORMAL}); its output goes to docs/benchmarks.md.
 */
class PruneStallProbe {
    @org.junit.jupiter.api.Test
    void measure() throws Exception {
        int rows = Integer.getInteger("probe.rows", 100_000);
        Durability durability = Durability.valueOf(System.getProperty("probe.durability", "FULL"));
        Path dir = Files.createTempDirectory("prune-stall");
        MovableClock clock =
                new MovableClock(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
        EngineConfig.Builder config = EngineConfig.forDatabase(LedgerLocation.file(dir.resolve("l.db")))
                .dataDirectory(dir.resolve("l.data"))
                .clock(clock)
                .durability(Durability.NORMAL)
                .heartbeat(false);
        int runs = Integer.getInteger("probe.runs", 5_000);
        try (Engine filler = Engine.open(config.build())) {
            filler.actors().add("old");
            for (int i = 0; i < rows / 2; i++) {
                Lease l = filler.leases().acquire("old", Duration.ofSeconds(30));
                filler.leases().release("old", l.token());
            }
            // finished runs and messages of the same month (decision 0020): each run goes with its attempt and receipt
            filler.actors().add("jobs");
            for (int i = 0; i < runs; i++) {
                dev.sovereign.engine.run.Assignment a = filler.runs().assign("jobs", "scripted:outcome=completed");
                filler.runs().runAssignment(a.id(), Duration.ofSeconds(30));
                filler.leases().current("jobs").ifPresent(x -> filler.leases().release("jobs", x.token()));
                var m = filler.mailbox().send("ops", "jobs", "m" + i, "b", 3);
                Lease host = filler.leases().acquire("jobs", Duration.ofSeconds(30));
                var c = filler.mailbox().claim(m.id(), "jobs");
                filler.mailbox().complete(m.id(), c.token());
                filler.leases().release("jobs", host.token());
            }
        }
        clock.advance(Duration.ofDays(31));
        try (Engine worker = Engine.open(config.durability(durability).build());
                Engine pruner = Engine.open(config.durability(durability).build())) {
            worker.actors().add("hot");
            List<Long> alone = run(worker, () -> sleepQuietly(3_000));
            PruneReport[] report = {null};
            List<Long> during = run(worker, () -> report[0] = pruner.prune(PruneOptions.all()));
            System.out.printf(
                    "prune stall probe: %,d old journal rows (and %,d finished runs and messages), durability %s%n"
                            + "  worker grant+release alone:        p50 %s  p99 %s  max %s  (%d ops)%n"
                            + "  worker grant+release during prune: p50 %s  p99 %s  max %s  (%d ops)%n"
                            + "  prune: %,d journal rows, %,d runs, %,d messages in %d batches, longest batch %d ms%n",
                    rows,
                    runs,
                    durability,
                    ms(pct(alone, 50)),
                    ms(pct(alone, 99)),
                    ms(pct(alone, 100)),
                    alone.size(),
                    ms(pct(during, 50)),
                    ms(pct(during, 99)),
                    ms(pct(during, 100)),
                    during.size(),
                    report[0].journalRows(),
                    report[0].runs(),
                    report[0].messages(),
                    report[0].batches(),
                    report[0].longestBatchMs());
        }
    }

    /** The worker's grant + release latencies (ns) while {@code other} runs on this thread. */
    private static List<Long> run(Engine worker, Runnable other) throws InterruptedException {
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                long start = System.nanoTime();
                Lease l = worker.leases().acquire("hot", Duration.ofSeconds(30));
                worker.leases().release("hot", l.token());
                latencies.add(System.nanoTime() - start);
            }
        });
        t.start();
        other.run();
        stop.set(true);
        t.join();
        return latencies;
    }

    private static long pct(List<Long> xs, int p) {
        List<Long> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        if (sorted.isEmpty()) {
            return 0;
        }
        int i = (int) Math.min(sorted.size() - 1, Math.ceil(p / 100.0 * sorted.size()) - 1);
        return sorted.get(Math.max(0, i));
    }

    private static String ms(long ns) {
        return String.format("%.2f ms", ns / 1e6);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A clock the probe moves a month forward (the rows it wrote become older than the policy). */
    private static final class MovableClock extends Clock {
        private volatile long now;

        MovableClock(long now) {
            this.now = now;
        }

        void advance(Duration d) {
            now += d.toMillis();
        }

        @Override
        public long millis() {
            return now;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
