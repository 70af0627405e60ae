package dev.sovereign.engine.admin;

import java.util.List;

/**
 * The newest journal rows about one {@link JournalSubject}, with how many there are: a page never loads an
 * unbounded history, and says "the newest N of M" with the true M. Immutable.
 *
 * @param subject     what the rows are about
 * @param entries     the newest rows naming it, newest first, each with its sentence
 * @param total       how many rows name it in the part of the journal searched (at least {@code entries.size()})
 * @param searchedAfterSeq 0 when the whole journal was searched (then {@code total} is the journal's own count);
 *                    otherwise only rows with a greater seq were (a subject without an index of its own is
 *                    looked for in the journal's tail)
 * @param lastSeq     the journal's highest seq when the rows were read
 */
public record JournalSlice(
        JournalSubject subject, List<JournalEntry> entries, long total, long searchedAfterSeq, long lastSeq) {
    public JournalSlice {
        entries = List.copyOf(entries);
    }

    /** Whether {@link #total()} counts the whole journal, not only its tail. */
    public boolean wholeJournal() {
        return searchedAfterSeq <= 0;
    }
}
