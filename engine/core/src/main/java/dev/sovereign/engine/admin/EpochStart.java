package dev.sovereign.engine.admin;

/**
 * A new epoch of the token counter, started by {@code sovereign restore} or {@code sovereign fence bump}
 * (decision 0604), in the one transaction that also recorded it in the ledger's history and journal and voided
 * every lease row of the older epochs. Immutable.
 *
 * @param kind         {@code restore} or {@code bump}
 * @param epoch        the new epoch
 * @param fromToken    the counter before the jump
 * @param firstToken   the first token the new epoch issues (the next grant's)
 * @param voidedLeases how many lease rows the jump deleted (their holders must acquire them again)
 * @param at           when, on the ledger's clock (epoch ms)
 */
public record EpochStart(String kind, long epoch, long fromToken, long firstToken, int voidedLeases, long at) {}
