package dev.sovereign.engine.spi.tools;

import dev.sovereign.engine.admin.EpochStart;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Path;
import java.time.Clock;

/**
 * {@code sovereign backup} and {@code sovereign restore} (decision 0604): an online, consistent copy of a ledger
 * file that records in itself when and at which token it was taken, and the way back that never issues a token
 * twice. Only the backend of the ledger's location knows how; this class only chooses it. A server ledger is backed
 * up with its own tools ({@code pg_dump}) and brought back with {@code pg_restore} and a fence bump. Stateless,
 * thread-safe.
 */
public final class LedgerBackups {
    private LedgerBackups() {}

    /**
     * What a backup wrote.
     *
     * @param ledger   the ledger copied (only read)
     * @param copy     the new file holding the copy
     * @param backupId the id the copy records (a restore names it)
     * @param epoch    the counter's epoch when the copy was taken
     * @param token    the counter when the copy was taken (the highest token the copy knows)
     * @param lastSeq  the highest journal seq in the copy
     * @param at       when, on the given clock (epoch ms)
     */
    public record Backup(
            LedgerLocation ledger, Path copy, String backupId, long epoch, long token, long lastSeq, long at) {}

    /**
     * What a restore did.
     *
     * @param backup        the backup restored (only read)
     * @param target        the ledger it now is
     * @param takenToken    the counter when the backup was taken
     * @param takenAt       when the backup was taken (epoch ms), or -1 for a copy not made by {@code sovereign backup}
     * @param replacedEpoch the epoch of the ledger it replaced, or -1 when there was none
     * @param start         the new epoch it started (every lease of the backup voided)
     * @param restores      the file beside the backup that records every restore made from it
     */
    public record Restore(
            Path backup,
            LedgerLocation target,
            long takenToken,
            long takenAt,
            long replacedEpoch,
            EpochStart start,
            Path restores) {}

    /**
     * Copies the ledger at {@code ledger} into the new file {@code copy}, consistently, while workers may be writing.
     *
     * @throws LedgerCopyRefusal {@code unsupported_backup} for a server ledger, {@code backup_exists} when
     *     {@code copy} exists
     * @throws dev.sovereign.engine.base.StorageException when the ledger cannot be read or the copy written
     */
    public static Backup backup(LedgerLocation ledger, Path copy, Clock clock) {
        return Backends.forDatabase(ledger).backup(ledger, copy, clock);
    }

    /**
     * Puts the backup {@code backup} in place at {@code target} in a new epoch above every epoch the backup, the
     * ledger it replaces and every earlier restore from this backup knew, and above {@code aboveEpoch}.
     *
     * @throws LedgerCopyRefusal when processes are live on {@code target}, or it exists but is not a ledger that can
     *     be read, or the backup is the target itself
     * @throws dev.sovereign.engine.base.StorageException when a file cannot be read or written
     */
    public static Restore restore(Path backup, LedgerLocation target, long aboveEpoch, Clock clock) {
        return Backends.forDatabase(target).restore(backup, target, aboveEpoch, clock);
    }
}
