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

    /** live, stale (missed {@code staleAfterBeats} heartbeats) or stopped, as of {@code now}. */
    public Liveness livenessAt(long now, int staleAfterBeats) {
        if (stoppedAt != null) {
            return Liveness.STOPPED;
        }
        return now - heartbeatAt > heartbeatIntervalMs * staleAfterBeats ? Liveness.STALE : Liveness.LIVE;
    }

    public enum Liveness { LIVE, STALE, STOPPED }
}
