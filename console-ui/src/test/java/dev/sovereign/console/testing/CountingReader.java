package dev.sovereign.console.testing;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ExportProgress;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A real reader that counts what the console asks of it. */
public final class CountingReader implements AdminReader {
    private final AdminReader real;
    public final AtomicInteger dataVersions = new AtomicInteger();
    public final AtomicInteger snapshots = new AtomicInteger();
    public final AtomicInteger eventReads = new AtomicInteger();
    /** The names of the threads that touched the database through this reader. */
    public final Set<String> threads = ConcurrentHashMap.newKeySet();

    public CountingReader(AdminReader real) {
        this.real = real;
    }

    @Override
    public LedgerLocation location() {
        return real.location();
    }

    @Override
    public int schemaVersion() {
        return real.schemaVersion();
    }

    @Override
    public long changeMarker() {
        dataVersions.incrementAndGet();
        threads.add(Thread.currentThread().getName());
        return real.changeMarker();
    }

    @Override
    public AdminSnapshot snapshot() {
        snapshots.incrementAndGet();
        threads.add(Thread.currentThread().getName());
        return real.snapshot();
    }

    /** How many times the console read the ledger's metrics (size, rows, growth). */
    public final AtomicInteger metricsReads = new AtomicInteger();

    @Override
    public LedgerMetrics metrics() {
        metricsReads.incrementAndGet();
        threads.add(Thread.currentThread().getName());
        return real.metrics();
    }

    @Override
    public List<JournalEntry> eventsSince(long afterSeq, int limit) {
        eventReads.incrementAndGet();
        return real.eventsSince(afterSeq, limit);
    }

    @Override
    public List<JournalEntry> recentRejections(int limit) {
        return real.recentRejections(limit);
    }

    @Override
    public JournalSlice journalAbout(JournalSubject subject, int limit) {
        threads.add(Thread.currentThread().getName());
        return real.journalAbout(subject, limit);
    }

    @Override
    public long exportJournalCsv(Path target, ExportProgress progress) {
        return real.exportJournalCsv(target, progress);
    }

    @Override
    public void close() {
        real.close();
    }
}
