package dev.sovereign.engine.process;

/**
 * A row of the process registry. The identity ({@code proc_<uuid>}) is what fencing uses; pid and
 * host are stored beside it for display only, because the OS reuses PIDs.
 */
public record ProcessInfo(
        String identity,
        Long pid,
        String host,
        String kind,
        String label,
        long startedAt,
        long heartbeatAt,
        long heartbeatIntervalMs,
        Long stoppedAt) {

    /**
     * live, stale (missed {@code staleAfterBeats} heartbeats), stopped, or a CLI identity that never promised to
     * beat, as of {@code now}; see {@link Staleness} for the one definition.
     */
    public Liveness livenessAt(long now, int staleAfterBeats) {
        if (stoppedAt != null) {
            return Liveness.STOPPED;
        }
        if (!Staleness.promisedToBeat(kind, startedAt, heartbeatAt)) {
            return Liveness.NO_HEARTBEAT;
        }
        return now - heartbeatAt > heartbeatIntervalMs * staleAfterBeats ? Liveness.STALE : Liveness.LIVE;
    }

    /** {@code NO_HEARTBEAT}: a CLI identity that never beat, neither live nor stale ({@link Staleness}). */
    public enum Liveness {
        LIVE,
        STALE,
        STOPPED,
        NO_HEARTBEAT
    }
}
