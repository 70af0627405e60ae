package dev.sovereign.engine.admin;

import dev.sovereign.engine.EngineConfig;
import java.util.Objects;

/**
 * One row of the process registry, with what it holds. Staleness is judged against the process's
 * <em>own</em> registered heartbeat interval, never a hard-coded one. Immutable.
 *
 * @param process             who it is
 * @param kind                what it registered as ({@code worker}, {@code cli}, {@code console}, ...)
 * @param startedAt           registration time, epoch ms
 * @param heartbeatAt         its last heartbeat, epoch ms
 * @param heartbeatIntervalMs the interval it promised to beat at
 * @param stoppedAt           when it closed cleanly, or null while running (or after a crash)
 * @param leasesHeld          actor-lease rows naming it (live or expired)
 * @param activeAttempts      ACTIVE execution attempts naming it
 */
public record ProcessRow(ProcessRef process, String kind, long startedAt, long heartbeatAt, long heartbeatIntervalMs,
                         Long stoppedAt, int leasesHeld, int activeAttempts) {

    public ProcessRow {
        Objects.requireNonNull(process, "process");
    }

    /** How long after its last heartbeat this process counts as stale. */
    public long staleAfterMs() {
        return heartbeatIntervalMs * EngineConfig.STALE_AFTER_MISSED_BEATS;
    }

    /** live / stale / stopped at {@code now} (epoch ms). */
    public ProcessState stateAt(long now) {
        if (stoppedAt != null) {
            return ProcessState.STOPPED;
        }
        return now - heartbeatAt > staleAfterMs() ? ProcessState.STALE : ProcessState.LIVE;
    }
}
