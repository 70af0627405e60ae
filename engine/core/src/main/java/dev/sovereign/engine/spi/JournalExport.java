package dev.sovereign.engine.spi;

import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalCsv;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.OwnerOnly;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The journal's CSV export, shared by every backend's admin reader ({@code AdminReader.exportJournalCsv}): pages
 * of events in {@code seq} order written to an owner-only temporary file beside the target, moved into place at
 * the end, so a failed or cancelled export never leaves half a file under the target's name. Stateless.
 */
public final class JournalExport {
    /** Events per page: each page is one call of the reader, so a poller interleaves with a long export. */
    public static final int PAGE = 1_000;

    /** One page of the journal: events with {@code seq > afterSeq}, oldest first, at most {@code limit}. */
    @FunctionalInterface
    public interface Pages {
        List<JournalEntry> eventsSince(long afterSeq, int limit);
    }

    private JournalExport() {}

    /**
     * Writes every event {@code pages} yields to {@code target} as CSV; {@code total} is the count known at the
     * start (the progress' denominator, raised if more events arrive).
     *
     * @return how many events were written
     * @throws UncheckedIOException when the target cannot be written or the thread was interrupted
     */
    public static long export(Path target, ExportProgress progress, long total, Pages pages) {
        Path absolute = target.toAbsolutePath().normalize();
        Path dir = absolute.getParent();
        Path part = null;
        try {
            part = OwnerOnly.createTempFile(dir, absolute.getFileName().toString(), ".part"); // 0600 (decision 0801)
            long done = 0;
            try (BufferedWriter w = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
                w.write(JournalCsv.header());
                long after = 0;
                while (true) {
                    List<JournalEntry> page = pages.eventsSince(after, PAGE);
                    for (JournalEntry e : page) {
                        w.write(JournalCsv.row(e));
                        after = e.seq();
                    }
                    done += page.size();
                    total = Math.max(total, done);
                    progress.progress(done, total);
                    if (page.size() < PAGE) {
                        break;
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        throw new IOException("the export was cancelled");
                    }
                }
            }
            Files.move(part, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return done;
        } catch (IOException e) {
            if (part != null) {
                try {
                    Files.deleteIfExists(part);
                } catch (IOException ignored) {
                    // leave the temporary file; its name says what it is
                }
            }
            throw new UncheckedIOException("Could not export the journal to " + absolute + ": " + e.getMessage(), e);
        }
    }
}
