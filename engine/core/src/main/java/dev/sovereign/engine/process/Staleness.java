package dev.sovereign.engine.process;

import dev.sovereign.engine.base.EngineConfig;

/**
 * The one definition of a stale process, used by the supervisor's tick report, the process registry's
 * rows and the console alike, so every place that counts stale processes gives the same number.
 *
 * <p>A process is stale when it is not stopped, it promised to beat, and its last heartbeat is older than
 * {@link EngineConfig#STALE_AFTER_MISSED_BEATS} of its own intervals. A CLI identity that has never sent a
 * heartbeat (a durable {@code lease acquire} identity, or one named with {@code --process}) never promised to
 * beat: it is not stale, however old its last heartbeat.
 */
public final class Staleness {
    /** The process kind the CLI registers as. */
    public static final String CLI_KIND = "cli";

    private Staleness() {}

    /** Whether a process of this kind and history was meant to heartbeat at all. */
    public static boolean promisedToBeat(String kind, long startedAt, long heartbeatAt) {
        return !(CLI_KIND.equals(kind) && heartbeatAt <= startedAt);
    }

    /** Whether the process is stale at {@code now} (epoch ms): see the class comment. */
    public static boolean isStale(
            String kind, long startedAt, long heartbeatAt, long heartbeatIntervalMs, Long stoppedAt, long now) {
        return stoppedAt == null
                && promisedToBeat(kind, startedAt, heartbeatAt)
                && now - heartbeatAt > heartbeatIntervalMs * EngineConfig.STALE_AFTER_MISSED_BEATS;
    }

    /** {@link #isStale} of a registry row. */
    public static boolean isStale(ProcessInfo p, long now) {
        return isStale(p.kind(), p.startedAt(), p.heartbeatAt(), p.heartbeatIntervalMs(), p.stoppedAt(), now);
    }
}
