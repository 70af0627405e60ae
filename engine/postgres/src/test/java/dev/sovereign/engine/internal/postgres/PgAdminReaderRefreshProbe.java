package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgTestServer;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not a test (its name keeps surefire from running it by default): the console's refresh cost on the embedded
 * server, for docs/benchmarks-console.md. Run it with
 * {@code mvn -pl engine/postgres -am verify -Dtest=PgAdminReaderRefreshProbe -Dsurefire.failIfNoSpecifiedTests=false}.
 * Medians of many calls on one long-lived reader, as the console's poller makes them.
 */
class PgAdminReaderRefreshProbe {
    private static final int ACTORS = Integer.getInteger("probe.actors", 2_000);

    @Test
    void measure() {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        LedgerLocation location = LedgerLocation.parse(db.url());
        try (Engine e = Engine.open(
                        EngineConfig.forDatabase(location).heartbeat(false).build());
                AdminReader r = Ledgers.openReader(location, Clock.systemUTC(), ZoneOffset.UTC)) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < ACTORS; i++) {
                e.actors().add(String.format("actor-%05d", i));
            }
            for (int i = 0; i < ACTORS; i++) {
                leases.add(e.leases().acquire(String.format("actor-%05d", i), Duration.ofMinutes(10)));
            }
            r.snapshot();
            report("changeMarker(), nothing changed", 2_000, () -> r.changeMarker());
            report("snapshot(), nothing changed", 100, () -> r.snapshot());
            Lease one = leases.get(ACTORS / 2);
            report(
                    "one renewal, then changeMarker() + snapshot()",
                    100,
                    () -> {
                        e.leases().renew(one.actor(), one.token());
                        long t = System.nanoTime();
                        r.changeMarker();
                        r.snapshot();
                        return System.nanoTime() - t;
                    },
                    true);
            report(
                    "one heartbeat of all " + ACTORS + " leases, then changeMarker() + snapshot()",
                    20,
                    () -> {
                        e.heartbeatNow();
                        long t = System.nanoTime();
                        r.changeMarker();
                        r.snapshot();
                        return System.nanoTime() - t;
                    },
                    true);
            report(
                    "a fresh reader's first snapshot",
                    10,
                    () -> {
                        long t = System.nanoTime();
                        try (AdminReader fresh = Ledgers.openReader(location, Clock.systemUTC(), ZoneOffset.UTC)) {
                            fresh.snapshot();
                        }
                        return System.nanoTime() - t;
                    },
                    true);
            report(
                    "a write lease renewal (the write path, unchanged by the reader)",
                    200,
                    () -> e.leases().renew(one.actor(), one.token()));
        }
    }

    private interface Timed {
        long run();
    }

    private static void report(String what, int n, Runnable call) {
        report(
                what,
                n,
                () -> {
                    long t = System.nanoTime();
                    call.run();
                    return System.nanoTime() - t;
                },
                true);
    }

    private static void report(String what, int n, Timed timed, boolean unused) {
        for (int i = 0; i < Math.max(5, n / 10); i++) {
            timed.run(); // warm-up
        }
        long[] ns = new long[n];
        for (int i = 0; i < n; i++) {
            ns[i] = timed.run();
        }
        Arrays.sort(ns);
        System.out.printf(
                "PROBE %-75s median %8.3f ms  p90 %8.3f ms  (n=%d)%n",
                what, ns[n / 2] / 1e6, ns[(int) (n * 0.9)] / 1e6, n);
    }
}
