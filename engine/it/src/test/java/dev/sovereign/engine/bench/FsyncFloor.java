package dev.sovereign.engine.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The physical floor of a durable commit on this disk: one 4 KiB write into a file followed by
 * {@code fdatasync} ({@code FileChannel.force(false)}), as a commit in WAL mode at {@code synchronous=FULL}
 * does at least once. Measured in the same run as the benchmarks, in the same directory as their files, so a
 * reader sees how close to the disk each operation is: at FULL no write transaction can be faster than one of
 * these.
 *
 * @param medianMicros the median of {@code runs} write + fdatasync pairs, in microseconds
 * @param minMicros    the fastest
 * @param maxMicros    the slowest
 * @param runs         how many were timed (after a short warm-up)
 */
record FsyncFloor(double medianMicros, double minMicros, double maxMicros, int runs) {
    static FsyncFloor measure(Path dir, int runs) throws IOException {
        Path file = Files.createTempFile(dir, "fsync-floor-", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
            ByteBuffer page = ByteBuffer.allocateDirect(4096);
            double[] micros = new double[runs];
            for (int i = -20; i < runs; i++) { // 20 unrecorded: the file's first blocks get allocated
                page.clear();
                page.putLong(0, i);
                long start = System.nanoTime();
                ch.write(page, 0);
                ch.force(false);
                long took = System.nanoTime() - start;
                if (i >= 0) {
                    micros[i] = took / 1_000.0;
                }
            }
            Arrays.sort(micros);
            return new FsyncFloor(micros[runs / 2], micros[0], micros[runs - 1], runs);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
