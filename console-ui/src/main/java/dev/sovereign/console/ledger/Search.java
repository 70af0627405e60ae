package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.ProcessRef;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * What the operator is looking for, across every page: an actor, a process (label or identity), an
 * assignment, attempt or message id, or a token. Each page shows only its rows that match; an empty
 * query shows everything.
 *
 * <p>Matching: case-insensitive substring of any of a row's names and ids. A query of digits also
 * matches a row whose token is that number (and still names that contain it: {@code 7101} finds
 * {@code worker 7101}); {@code #5} or {@code token 5} matches tokens only. UI-thread confined.
 */
public final class Search {
    private static final Pattern TOKEN_ONLY = Pattern.compile("(?:#|token\\s*)(\\d{1,18})");
    private static final Pattern DIGITS = Pattern.compile("\\d{1,18}");

    private final StringProperty query = new SimpleStringProperty(this, "query", "");

    /** The query as typed; blank shows everything. */
    public StringProperty queryProperty() {
        return query;
    }

    public boolean isActive() {
        return query.get() != null && !query.get().isBlank();
    }

    /** Whether a row with these tokens and these names and ids matches the current query. */
    public boolean matches(long[] tokens, String... names) {
        return matches(query.get(), tokens, names);
    }

    public static boolean matches(String query, long[] tokens, String... names) {
        if (query == null || query.isBlank()) {
            return true;
        }
        String q = query.strip().toLowerCase(Locale.ROOT);
        Matcher tokenOnly = TOKEN_ONLY.matcher(q);
        if (tokenOnly.matches()) {
            return hasToken(tokens, Long.parseLong(tokenOnly.group(1)));
        }
        if (DIGITS.matcher(q).matches() && hasToken(tokens, Long.parseLong(q))) {
            return true;
        }
        for (String n : names) {
            if (n != null && n.toLowerCase(Locale.ROOT).contains(q)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasToken(long[] tokens, long t) {
        for (long x : tokens) {
            if (x == t) {
                return true;
            }
        }
        return false;
    }

    /** The names a process is found by: identity, label, "label (pid)". */
    public static String[] names(ProcessRef p) {
        return p == null ? new String[0] : new String[] {p.identity(), p.label(), p.displayName()};
    }

    /** {@code first} followed by {@code more}. */
    public static String[] concat(String[] first, String... more) {
        String[] all = Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    /** Tokens of a row, skipping the absent ones. */
    public static long[] tokens(Long... tokens) {
        return Arrays.stream(tokens)
                .filter(Objects::nonNull)
                .mapToLong(Long::longValue)
                .toArray();
    }
}
