package dev.sovereign.console.ledger;

import java.util.List;

/**
 * Which journal rows a link asks the Journal page to show: the rows of some kinds (a refusal category too) written
 * in a time span, as a point of the Trends page counted them. Immutable.
 *
 * @param kinds       the kinds ({@code LEASE_ACQUIRED}, ...); empty: every kind
 * @param category    for {@code REJECTED} rows, one refusal category; null: any
 * @param from        the span's first millisecond (the writers' clocks, epoch ms)
 * @param toInclusive the span's last millisecond
 */
public record JournalQuery(List<String> kinds, String category, long from, long toInclusive) {
    public JournalQuery {
        kinds = List.copyOf(kinds);
    }
}
