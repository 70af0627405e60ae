package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * What one engine remembers of the token counter, so that a ledger put back behind its back (a file copied back
 * from a backup, a {@code pg_restore}) cannot issue a token twice to it (decision 0605): the highest token it saw
 * committed, and whether it found the ledger gone backwards. A mint that returns a token not above it, or a beat that
 * reads the counter below it, means the ledger went backwards; the transaction must not commit, and every later
 * write is refused until the counter is in an epoch above every token this engine saw (an operator ran
 * {@code sovereign fence bump}, or restored a backup). A backend's door holds one and supplies its words. Thread-safe.
 */
public final class WentBackwardsGuard {
    /** How a backend says it, and where it reads the counter. */
    public interface Words {
        /** The sentence for {@code seen} against a counter at {@code counter} (negative: a value that is no token). */
        String sentence(long seen, long counter);

        /** The ledger's file for the exception, or null for a server. */
        Path file();
    }

    private final Words words;
    /** How many stripes the counter mints from: token {@code t} is stripe {@code t mod stripes}'s (1 on SQLite). */
    private final int stripes;
    /** The highest token this engine minted in a transaction that committed; 0 before its first. */
    private volatile long highestSeen;
    /** The same, per stripe: a mint is compared with its own stripe's (decision 0924). */
    private final AtomicLongArray highestByStripe;
    /** Whether this engine found the ledger gone backwards and refuses to write until a new epoch starts. */
    private volatile boolean wentBackwards;

    public WentBackwardsGuard(Words words) {
        this(words, 1);
    }

    /**
     * For a counter of {@code stripes} rows, each issuing only the tokens equal to its number modulo {@code stripes}
     * (PostgreSQL's schema version 19, decision 0924): a mint is not above a token of ANOTHER stripe this engine saw,
     * and that says nothing, so each mint is compared with the highest of its own stripe; the counter a beat reads
     * (the greatest of the rows) is still compared with the highest of all.
     */
    public WentBackwardsGuard(Words words, int stripes) {
        this.words = words;
        this.stripes = stripes;
        this.highestByStripe = new AtomicLongArray(stripes);
    }

    /** The highest token this engine minted in a committed transaction; 0 before its first. */
    public long highestSeen() {
        return highestSeen;
    }

    /** A transaction that minted up to {@code minted} committed (called by the door, serialised by its lock). */
    public void committed(long minted) {
        if (minted > highestSeen) {
            highestSeen = minted;
        }
        highestByStripe.accumulateAndGet(stripeOf(minted), minted, Math::max);
    }

    /** A mint returned {@code minted}: not above a token this engine saw committed, the ledger went backwards. */
    public void requireForward(long minted) {
        long seen = highestByStripe.get(stripeOf(minted));
        if (minted <= seen) {
            throw new WentBackwards(seen, words.sentence(seen, minted - stripes));
        }
    }

    private int stripeOf(long token) {
        return (int) Math.floorMod(token, (long) stripes);
    }

    /** A beat read the counter: below a token this engine saw committed, the ledger went backwards. */
    public void requireCounterNotBelowSeen(long counter) {
        long seen = highestSeen;
        if (counter < seen) {
            throw new WentBackwards(seen, words.sentence(seen, counter));
        }
    }

    /**
     * Runs a write: refused while this engine knows the ledger went backwards and {@code counter} (read on demand)
     * is in no newer epoch; when {@code write} finds it gone backwards, {@code record} journals it (best effort: the
     * refusal is the answer, another engine may have recorded it) and the write fails with {@code WENT_BACKWARDS}.
     */
    public <T> T guard(Supplier<T> write, Supplier<Long> counter, java.util.function.LongConsumer record) {
        requireNotGoneBackwards(counter);
        try {
            return write.get();
        } catch (WentBackwards e) {
            wentBackwards = true;
            try {
                record.accept(e.seen);
            } catch (RuntimeException ignored) {
                // the refusal below is the answer; the record is best effort (another engine may have made it)
            }
            throw new StorageException(Problem.WENT_BACKWARDS, words.file(), e.getMessage(), null);
        }
    }

    private void requireNotGoneBackwards(Supplier<Long> counter) {
        if (!wentBackwards) {
            return;
        }
        Long now = counter.get();
        long seen = highestSeen;
        if (now != null && FencingTokens.epochOf(now) > FencingTokens.epochOf(seen)) {
            wentBackwards = false;
            return;
        }
        throw new StorageException(
                Problem.WENT_BACKWARDS, words.file(), words.sentence(seen, now == null ? -1 : now), null);
    }

    /** A mint or a beat found the counter below a token this engine saw; rolls its work back like any failure. */
    public static final class WentBackwards extends StorageException {
        private static final long serialVersionUID = 1L;
        private final long seen;

        WentBackwards(long seen, String sentence) {
            super(Problem.WENT_BACKWARDS, null, sentence, null);
            this.seen = seen;
        }
    }
}
