package dev.sovereign.engine.reliability.fuzz;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Calls a {@link FuzzTarget} with bad input many times and holds each verdict against the ledger:
 * a crash is a failure; a refusal or a read that changed the ledger (a digest of every table taken
 * before and after the call) is a failure; a refusal may add at most the REJECTED rows its verdict
 * allows. Accepted writes move the baseline on.
 */
public final class Fuzzer {
    private Fuzzer() {}

    public record Report(
            String target,
            long seed,
            Map<Verdict.Kind, Integer> counts,
            Map<String, Map<Verdict.Kind, Integer>> byOperation,
            List<String> failures,
            List<String> slowest) {
        public String summary() {
            StringBuilder b = new StringBuilder(
                    target + " fuzzed with seed " + seed + ": " + counts + "; " + failures.size() + " failure(s)");
            byOperation.forEach(
                    (op, c) -> b.append("\n    ").append(op).append(' ').append(c));
            slowest.forEach(s -> b.append("\n    slow: ").append(s));
            failures.stream().limit(20).forEach(f -> b.append("\n  ").append(f));
            return b.toString();
        }
    }

    public static Report run(FuzzTarget target, Path database, long seed, int calls) {
        BadInputs inputs = new BadInputs(seed);
        Map<Verdict.Kind, Integer> counts = new EnumMap<>(Verdict.Kind.class);
        Map<String, Map<Verdict.Kind, Integer>> byOperation = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        LedgerDigest.Snapshot before = LedgerDigest.of(database);
        TreeMap<Long, String> slow = new TreeMap<>();
        long digestNanos = 0;
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            Verdict v = target.call(inputs);
            long t1 = System.nanoTime();
            slow.put(t1 - t0, "call " + i + " " + v.call() + ": " + (t1 - t0) / 1_000_000 + " ms");
            if (slow.size() > 5) {
                slow.pollFirstEntry();
            }
            counts.merge(v.kind(), 1, Integer::sum);
            String op = v.call().contains("(") ? v.call().substring(0, v.call().indexOf('(')) : v.call();
            byOperation
                    .computeIfAbsent(op, k -> new EnumMap<>(Verdict.Kind.class))
                    .merge(v.kind(), 1, Integer::sum);
            LedgerDigest.Snapshot after = LedgerDigest.of(database);
            digestNanos += System.nanoTime() - t1;
            String where = "call " + i + " " + v.call();
            switch (v.kind()) {
                case CRASHED -> failures.add(where + " crashed: " + v.detail());
                case READ -> {
                    if (!after.equals(before)) {
                        failures.add(where + " is a read but changed the ledger");
                    }
                }
                case REFUSED -> {
                    if (!after.digest().equals(before.digest())) {
                        failures.add(where + " was refused (" + v.detail() + ") but changed the ledger");
                    }
                    long added = after.rejectedRows() - before.rejectedRows();
                    if (added > v.maxRejections()) {
                        failures.add(where + " was refused (" + v.detail() + ") and added " + added
                                + " REJECTED rows (at most " + v.maxRejections() + " expected)");
                    }
                }
                case ACCEPTED -> {}
            }
            before = after;
        }
        List<String> slowest = new ArrayList<>(slow.descendingMap().values());
        slowest.add("reading the ledger after every call: " + digestNanos / 1_000_000 + " ms in all");
        return new Report(target.name(), seed, counts, byOperation, failures, slowest);
    }
}
