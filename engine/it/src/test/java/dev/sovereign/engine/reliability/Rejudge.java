package dev.sovereign.engine.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Judges a saved torture run again, with the checker as it is now: the histories in a run's folder against its
 * ledger (a SQLite file, or a PostgreSQL URL of the run's server started again on its {@code pgdata/}). For a
 * checker fix found by a long run, so the run need not be repeated to see its verdict. Arguments: the run's
 * folder, the ledger (path or URL), the final clock in epoch ms ({@code 0}: the ledger's own now on PostgreSQL).
 */
public final class Rejudge {
    private Rejudge() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        boolean server = args[1].startsWith("jdbc:postgresql:");
        Ledger ledger = server ? PgLedgerReader.read(args[1]) : Ledger.read(Path.of(args[1]));
        long finalNow = Long.parseLong(args[2]);
        if (finalNow == 0) {
            finalNow = PgLedgerReader.awaitEverythingExpired(args[1], Duration.ofSeconds(5));
        }
        var histories = HistoryReader.readAll(dir);
        var ops = histories.stream().flatMap(h -> h.ops().stream()).toList();
        OutputFolders outputs = OutputFolders.read(dir.resolve("torture.data"), ledger);
        HistoryChecker.Result result = HistoryChecker.check(
                ledger,
                ops,
                finalNow,
                outputs,
                server ? Set.of("busy", "storage_IO", "storage_COMMIT_OUTCOME_UNKNOWN") : Set.of("busy"),
                server ? 64 : 1);
        Map<HistoryChecker.Rule, Long> byRule = result.violations().stream()
                .collect(Collectors.groupingBy(HistoryChecker.Violation::rule, TreeMap::new, Collectors.counting()));
        System.out.println("processes " + histories.size() + ", operations " + ops.size() + ", journal events "
                + ledger.events().size() + ", receipts " + ledger.receipts().size() + ", output markers "
                + outputs.markCount());
        System.out.println("Violations: " + result.violations().size() + " " + byRule);
        System.out.println(result.summary(25));
    }
}
