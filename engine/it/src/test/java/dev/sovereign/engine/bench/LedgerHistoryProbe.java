package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.nio.file.Files;
import java.nio.file.Path;

/** Development aid: times the generation of the supervisor benchmark's history. */
public final class LedgerHistoryProbe {
    private LedgerHistoryProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = BenchFiles.freshDirectory();
        try {
            Path file = BenchFiles.createEngineFile(dir, Durability.FULL);
            long t0 = System.nanoTime();
            new LedgerHistory(Integer.parseInt(args[0]), Integer.parseInt(args[1]))
                    .writeInto(file, System.currentTimeMillis());
            System.out.printf(
                    "generated in %.1f s, file %d MB%n", (System.nanoTime() - t0) / 1e9, Files.size(file) >> 20);
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }
}
