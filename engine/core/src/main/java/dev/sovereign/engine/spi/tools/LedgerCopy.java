package dev.sovereign.engine.spi.tools;

import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.Backends;
import dev.sovereign.engine.spi.StorageBackend;

/**
 * Moves a whole ledger from a SQLite file into an empty PostgreSQL ledger (issue 15, decision 0907): the
 * source backend reads one consistent snapshot, the target backend writes it in one transaction. Neither
 * backend sees the other; this class only chooses them. Stateless, thread-safe.
 */
public final class LedgerCopy {
    private LedgerCopy() {}

    /**
     * Copies every row of {@code from} into {@code to}.
     *
     * @throws LedgerCopyRefusal when the copy is refused before anything was written (the source is a URL, the
     *     target a file, the target not empty, the source a lab sandbox, not ours or newer...)
     * @throws dev.sovereign.engine.base.StorageException when either ledger cannot be used; the target then holds no
     *     copied row (a new database may keep the empty schema the copy created before it locked the file,
     *     decision 0927)
     */
    public static LedgerCopyReport copy(LedgerLocation from, LedgerLocation to) {
        return copy(from, to, false);
    }

    /**
     * Copies every row of {@code from} into {@code to} and, unless {@code keepSource}, retires {@code from} in the
     * same step (decision 0915): the file's write lock is held from before its snapshot is read until the server
     * committed, then the file records where the ledger went and refuses every later write. With
     * {@code keepSource} the file is only read and stays live — two ledgers that can both mint the same token:
     * unsafe unless its workers are stopped for good.
     *
     * @throws LedgerCopyRefusal when the copy is refused before anything was written
     * @throws dev.sovereign.engine.base.StorageException when either ledger cannot be used; the target then holds no
     *     copied row (a new database may keep the empty schema the copy created before it locked the file,
     *     decision 0927)
     */
    public static LedgerCopyReport copy(LedgerLocation from, LedgerLocation to, boolean keepSource) {
        if (!from.isFile()) {
            throw new LedgerCopyRefusal(
                    "source_is_url",
                    "The source of a copy is a ledger file, not " + from + "; name the .db file the workers used.");
        }
        if (to.isFile()) {
            throw new LedgerCopyRefusal(
                    "target_is_file",
                    "The target of a copy is a jdbc:postgresql: URL, not the file " + to
                            + "; to copy a file, use 'sovereign backup' (and 'sovereign restore' to put it back).");
        }
        StorageBackend source = Backends.forDatabase(from);
        StorageBackend target = Backends.forDatabase(to);
        // decision 0927: the source's refusals first (one read, no lock), then the target's schema, so that a move
        // holds the file's write lock only while rows are copied; both are checked again in the copy itself
        source.readAll(from, rows -> null);
        target.prepareCopyTarget(to);
        if (keepSource) {
            return source.readAll(from, rows -> target.copyInto(to, rows));
        }
        return source.moveFrom(from, to, rows -> target.copyInto(to, rows));
    }
}
