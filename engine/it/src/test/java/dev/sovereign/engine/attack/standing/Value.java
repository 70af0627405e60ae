package dev.sovereign.engine.attack.standing;

import java.util.List;
import java.util.Map;

/**
 * A value the attacker writes into one column, generated as what it MEANS (the row's own value plus one, the
 * clock plus a year, another host's identity, a text where a number belongs) and turned into an SQL literal only
 * when the attack runs, against the rows the preceding operations left. Immutable.
 */
record Value(Kind kind, long n, String text) {
    /** What a value is made of. */
    enum Kind {
        /** {@code text} as it stands: a literal, possibly of the wrong type (0.5, 'abc', x'01', NULL). */
        LITERAL,
        /** The target row's own value of the column plus {@code n}. */
        ROW_PLUS,
        /** The true time (the test's clock, which a PostgreSQL server is pinned to) plus {@code n}. */
        NOW_PLUS,
        /** The fencing-token counter's value plus {@code n}. */
        COUNTER_PLUS,
        /** A process identity: {@code text} is A (the victim), B (the attacker's own host) or a forged one. */
        PROCESS,
        /** The same column's value in another row of the table (another grant's token, another attempt's id). */
        OTHER_ROW
    }

    static final long YEAR = 365L * 24 * 3600 * 1000;
    static final long INT64_MAX = Long.MAX_VALUE;

    static Value literal(String sql) {
        return new Value(Kind.LITERAL, 0, sql);
    }

    static Value rowPlus(long n) {
        return new Value(Kind.ROW_PLUS, n, null);
    }

    static Value nowPlus(long n) {
        return new Value(Kind.NOW_PLUS, n, null);
    }

    static Value counterPlus(long n) {
        return new Value(Kind.COUNTER_PLUS, n, null);
    }

    static Value process(String who) {
        return new Value(Kind.PROCESS, 0, who);
    }

    static Value otherRow() {
        return new Value(Kind.OTHER_ROW, 0, null);
    }

    /** Type-confused and out-of-range values every column is tried with (issue 26 item 7's list, and more). */
    static final List<Value> CONFUSED = List.of(
            literal("0.5"),
            literal("'abc'"),
            literal("x'01'"),
            literal("'99999999999999999999'"),
            literal(Long.toString(INT64_MAX)),
            literal("NULL"),
            literal("-1"),
            literal("0"),
            literal("''"));

    /**
     * The SQL literal this value is in {@code world} for {@code column} of {@code row} (the target row's cells,
     * null for a row that does not exist) among {@code rows} (the whole table).
     */
    String render(Scene world, String column, Map<String, Object> row, List<Map<String, Object>> rows) {
        return switch (kind) {
            case LITERAL -> text;
            case ROW_PLUS -> {
                Object v = row == null ? null : row.get(column);
                if (v instanceof Number num && !(v instanceof Double)) {
                    yield plus(num.longValue(), n);
                }
                yield v == null ? "NULL" : "(" + column + " + " + n + ")";
            }
            case NOW_PLUS -> plus(world.now(), n);
            case COUNTER_PLUS -> "((SELECT last_token FROM token_counter WHERE id = 1) + " + n + ")";
            case PROCESS ->
                Literals.of(
                        world.dialect(),
                        switch (text) {
                            case "A" -> world.victim();
                            case "B" -> world.attacker();
                            default -> "proc_forged_by_hand";
                        });
            case OTHER_ROW -> {
                for (Map<String, Object> other : rows) {
                    if (other != row && other.get(column) != null) {
                        yield Literals.of(world.dialect(), other.get(column));
                    }
                }
                yield "NULL";
            }
        };
    }

    /** {@code a + b}, saturated at the ends of a 64-bit integer (the literal itself must parse). */
    private static String plus(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            r = a > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return Long.toString(r);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case LITERAL -> text;
            case ROW_PLUS -> "<row's value>" + (n >= 0 ? "+" : "") + n;
            case NOW_PLUS -> "<now>" + (n >= 0 ? "+" : "") + n;
            case COUNTER_PLUS -> "<counter>" + (n >= 0 ? "+" : "") + n;
            case PROCESS -> "<process " + text + ">";
            case OTHER_ROW -> "<another row's value>";
        };
    }
}
