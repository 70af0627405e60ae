package dev.sovereign.engine.journal;

import java.util.List;

/**
 * Read access to the fence journal. Thread-safe. The journal itself is append-only in the
 * database (triggers refuse UPDATE and DELETE); nothing here writes.
 */
public interface Journal {
    /** Events with {@code seq > afterSeq}, oldest first, at most {@code limit}. */
    List<FenceEvent> since(long afterSeq, int limit);

    /** The newest {@code REJECTED} events, newest first. */
    List<FenceEvent> rejections(int limit);

    /** Events about one resource, oldest first. */
    List<FenceEvent> forResource(String resourceType, String resourceId);

    /** The highest sequence number written so far (0 for an empty journal). */
    long lastSeq();
}
