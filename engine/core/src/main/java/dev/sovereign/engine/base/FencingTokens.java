package dev.sovereign.engine.base;

/**
 * The shape of a fencing token (decision 0603): {@code epoch * 2^40 + n}, with {@code 1 <= n < 2^40} and
 * {@code 0 <= epoch <= 2^23 - 1}, so every token is a positive signed 64-bit integer. Every ledger starts in
 * epoch 0 (its tokens are 1, 2, 3 ...). Within an epoch the counter steps by one per grant and never onto the
 * next epoch's start; only a restore or a fence bump moves it there, recorded in the ledger's history (decision
 * 0604). So every token an epoch could ever issue is below the next epoch's start: after a backup is put back, a
 * jump to a later epoch goes past every token the lost history could have issued. Pure functions; thread-safe.
 */
public final class FencingTokens {
    /** The bits of a token below its epoch. */
    public static final int EPOCH_SHIFT = 40;
    /** How many counter values one epoch spans (its start, then 2^40 - 1 tokens). */
    public static final long EPOCH_SPAN = 1L << EPOCH_SHIFT;
    /** The last epoch: its last token is {@link Long#MAX_VALUE}. */
    public static final long MAX_EPOCH = (1L << (63 - EPOCH_SHIFT)) - 1;

    private FencingTokens() {}

    /** The epoch of a token or of a counter value (both non-negative). */
    public static long epochOf(long token) {
        if (token < 0) {
            throw new IllegalArgumentException("a token or counter value is never negative: " + token);
        }
        return token >>> EPOCH_SHIFT;
    }

    /** The counter's value when {@code epoch} starts: nothing of that epoch issued yet. */
    public static long startOf(long epoch) {
        if (epoch < 0 || epoch > MAX_EPOCH) {
            throw new IllegalArgumentException("no epoch " + epoch + " (0.." + MAX_EPOCH + ")");
        }
        return epoch << EPOCH_SHIFT;
    }

    /** The first token {@code epoch} issues. */
    public static long firstTokenOf(long epoch) {
        return startOf(epoch) + 1;
    }

    /** How many tokens of its epoch a counter at {@code counter} has issued. */
    public static long issuedInEpoch(long counter) {
        return counter & (EPOCH_SPAN - 1);
    }

    /** {@code 12} in epoch 0 (every token of a ledger never restored or bumped); else {@code 3:12}. */
    public static String describe(long token) {
        long epoch = epochOf(token);
        return epoch == 0 ? Long.toString(token) : token + " (epoch " + epoch + ", #" + issuedInEpoch(token) + ")";
    }
}
