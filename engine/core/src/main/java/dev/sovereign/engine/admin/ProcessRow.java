package dev.sovereign.engine.admin;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.process.Staleness;
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
 * @param lastClaim           the journal's sentence about the last time a process acted as this identity with
 *                            {@code --process} (OS user, host, pid), or null when nobody did (decision 0802)
 */
public record ProcessRow(
        ProcessRef process,
        String kind,
        long startedAt,
        long heartbeatAt,
        long heartbeatIntervalMs,
        Long stoppedAt,
        int leasesHeld,
        int activeAttempts,
        String lastClaim) {

    public ProcessRow {
        Objects.requireNonNull(process, "process");
    }

    /** A row nobody claimed with {@code --process}. */
    public ProcessRow(
            ProcessRef process,
            String kind,
            long startedAt,
            long heartbeatAt,
            long heartbeatIntervalMs,
            Long stoppedAt,
            int leasesHeld,
            int activeAttempts) {
        this(process, kind, startedAt, heartbeatAt, heartbeatIntervalMs, stoppedAt, leasesHeld, activeAttempts, null);
    }

    /** Who last acted as this identity ({@code OS user U on host H (pid P, 'command')}), or "" when nobody did. */
    public String lastClaimedBy() {
        if (lastClaim == null) {
            return "";
        }
        int end = lastClaim.indexOf(" acted as ");
        return end < 0 ? lastClaim : lastClaim.substring(0, end);
    }

    /** How long after its last heartbeat this process counts as stale. */
    public long staleAfterMs() {
        return heartbeatIntervalMs * EngineConfig.STALE_AFTER_MISSED_BEATS;
    }

    /** Whether this process was meant to heartbeat at all (not a CLI identity that never beat). */
    public boolean promisedToBeat() {
        return Staleness.promisedToBeat(kind, startedAt, heartbeatAt);
    }

    /** live / stale / stopped / no heartbeat at {@code now} (epoch ms); stale as {@link Staleness} defines it. */
    public ProcessState stateAt(long now) {
        if (stoppedAt != null) {
            return ProcessState.STOPPED;
        }
        if (!promisedToBeat()) {
            return ProcessState.NO_HEARTBEAT;
        }
        return Staleness.isStale(kind, startedAt, heartbeatAt, heartbeatIntervalMs, stoppedAt, now)
                ? ProcessState.STALE
                : ProcessState.LIVE;
    }
}
