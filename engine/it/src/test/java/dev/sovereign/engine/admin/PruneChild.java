package dev.sovereign.engine.admin;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A child process that prunes a ledger and stops inside one of its batches ({@code PruneKilledMidBatchTest}): the
 * export hook runs inside each batch's write transaction, so when it is handed the {@code n}th batch of rows of
 * {@code table} this process prints {@code IN BATCH <table> <rows> <lowest seq, or -1>} and waits there, its transaction open, for the
 * test to pause or kill it. Prints {@code READY} once its engine is open.
 *
 * <p>Arguments: database, table, n, rows per batch.
 */
public final class PruneChild {
    private PruneChild() {}

    public static void main(String[] args) throws Exception {
        Path database = Path.of(args[0]);
        String table = args[1];
        int n = Integer.parseInt(args[2]);
        int batchRows = Integer.parseInt(args[3]);
        int[] seen = {0};
        try (Engine e = Engine.open(EngineConfig.forDatabase(database)
                .busyBound(Duration.ofSeconds(60))
                .processLabel("prune child")
                .build())) {
            System.out.println("READY");
            System.out.flush();
            e.prune(new PruneOptions(batchRows, Integer.MAX_VALUE, false, null).exportingTo(rows -> {
                if (rows.table().equals(table) && ++seen[0] == n) {
                    long first = rows.rows().stream()
                            .map(row -> row.get("seq"))
                            .filter(seq -> seq instanceof Number)
                            .mapToLong(seq -> ((Number) seq).longValue())
                            .min()
                            .orElse(-1);
                    System.out.println("IN BATCH " + table + " " + rows.rows().size() + " " + first);
                    System.out.flush();
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }));
            System.out.println("PRUNED, not stopped");
        }
    }
}
