package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.attack.standing.Op.Kind;
import dev.sovereign.engine.attack.standing.Strike.Form;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The generator of attacks: (operations before) × (table, row, column, value) × (statement form). Nothing is
 * listed by hand but the vocabulary — the operations, the columns and what their values mean, the forms — so a new
 * table, column, operation or form is attacked in every combination with the others at once.
 */
final class Attacks {
    private Attacks() {}

    /**
     * Attacks on {@code tables} in {@code forms}: one table per attack, whose rows the operations before it make
     * sure of, struck {@code strikes} times (each strike its own row, column, value and form).
     */
    static Arbitrary<Attack> on(Dialect d, List<String> tables, List<Form> forms, int strikes) {
        boolean ddl = forms.contains(Form.DDL);
        return Arbitraries.of(tables)
                .flatMap(table -> Combinators.combine(
                                before(table, ddl),
                                strike(d, table, forms).list().ofSize(strikes))
                        .as(Attack::new));
    }

    static Arbitrary<Strike> strike(Dialect d, String table, List<Form> forms) {
        Arbitrary<Tuple.Tuple2<String, Value>> columnAndValue = firstMoreOften(Columns.attacked(d, table))
                .flatMap(column -> values(table, column).map(v -> Tuple.of(column, v)));
        boolean ddl = forms.contains(Form.DDL);
        Arbitrary<Integer> variant = Arbitraries.integers().between(0, ddl ? Strike.ddlKinds(d) - 1 : 5);
        Arbitrary<Integer> pick = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(-3, -1)),
                Tuple.of(1, Arbitraries.integers().between(0, 4)));
        return Combinators.combine(columnAndValue, Arbitraries.of(forms), pick, variant, Arbitraries.of(false, true))
                .as((cv, form, p, var, recursive) -> new Strike(table, cv.get1(), cv.get2(), form, p, var, recursive));
    }

    /**
     * One of {@code choices}, the first ones more often (each list names what decides who holds what first: a
     * lease's holder and token before its renewal count; the plain UPDATE before the composite forms).
     */
    private static <T> Arbitrary<T> firstMoreOften(List<T> choices) {
        List<Tuple.Tuple2<Integer, T>> weighted = new ArrayList<>();
        for (int i = 0; i < choices.size(); i++) {
            weighted.add(Tuple.of(choices.size() - i, choices.get(i)));
        }
        return Arbitraries.frequency(weighted);
    }

    /** The meaningful values of a column, three times as often as the type-confused ones. */
    private static Arbitrary<Value> values(String table, String column) {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(Columns.meaningful(table, column))),
                Tuple.of(1, Arbitraries.of(Value.CONFUSED)));
    }

    /** Any operation, the lease writes more often (the fence's most used path). */
    private static Arbitrary<Op> anyOp() {
        Arbitrary<Kind> kind = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(Kind.GRANT)),
                Tuple.of(4, Arbitraries.just(Kind.RENEW)),
                Tuple.of(2, Arbitraries.just(Kind.GRANT_TTL)),
                Tuple.of(1, Arbitraries.just(Kind.EXTEND)),
                Tuple.of(1, Arbitraries.just(Kind.KEEP_UNTIL)),
                Tuple.of(4, Arbitraries.just(Kind.BEAT)),
                Tuple.of(2, Arbitraries.just(Kind.RELEASE)),
                Tuple.of(2, Arbitraries.just(Kind.TAKEOVER)),
                Tuple.of(3, Arbitraries.just(Kind.OTHER_LEASE)),
                Tuple.of(2, Arbitraries.just(Kind.CLAIM)),
                Tuple.of(1, Arbitraries.just(Kind.COMPLETE)),
                Tuple.of(2, Arbitraries.just(Kind.START_RUN)),
                Tuple.of(1, Arbitraries.just(Kind.FINISH_RUN)),
                Tuple.of(1, Arbitraries.just(Kind.RECOVER)),
                Tuple.of(1, Arbitraries.just(Kind.RETRY)),
                Tuple.of(1, Arbitraries.just(Kind.ACKNOWLEDGE)),
                Tuple.of(1, Arbitraries.just(Kind.TICK)),
                Tuple.of(1, Arbitraries.just(Kind.PRUNE)),
                Tuple.of(1, Arbitraries.just(Kind.CONTEND)));
        Arbitrary<Character> who =
                Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just('A')), Tuple.of(1, Arbitraries.just('B')));
        Arbitrary<String> actor =
                Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just("w")), Tuple.of(1, Arbitraries.just("x")));
        return Combinators.combine(kind, who, actor).as(Op::new);
    }

    /**
     * The operations before the attack: a few of any kind, then what leaves a row in the attacked table (one of
     * several ways), then a few more of any kind — the last operation before the attack shapes the rows most.
     */
    private static Arbitrary<List<Op>> before(String table, boolean ddl) {
        Arbitrary<List<Op>> prefix = anyOp().list().ofMaxSize(ddl ? 1 : 2);
        Arbitrary<List<Op>> suffix = anyOp().list().ofMaxSize(ddl ? 1 : 3);
        Arbitrary<List<Op>> needed =
                Arbitraries.of(PREREQUISITES.getOrDefault(table, List.of(List.of(op(Kind.GRANT)))));
        return Combinators.combine(prefix, needed, suffix).as((p, n, s) -> {
            List<Op> all = new ArrayList<>(p);
            all.addAll(n);
            all.addAll(s);
            return List.copyOf(all);
        });
    }

    private static Op op(Kind kind) {
        return new Op(kind, 'A', "w");
    }

    /**
     * The ways to leave the rows of a table an attack needs (A, the victim, makes them), each of the lease writes
     * that leave a lease row in a different shape: a grant, a renewal (the row states its token), a beat (only the
     * session moved), a write to another lease (the change marker moved on), a takeover.
     */
    private static final List<List<Op>> LEASE_SHAPES = List.of(
            List.of(op(Kind.GRANT)),
            List.of(op(Kind.GRANT), op(Kind.RENEW)),
            List.of(op(Kind.GRANT), op(Kind.BEAT)),
            List.of(op(Kind.GRANT), op(Kind.RENEW), op(Kind.BEAT)),
            List.of(op(Kind.GRANT), new Op(Kind.OTHER_LEASE, 'B', "x")),
            List.of(new Op(Kind.GRANT, 'B', "w"), op(Kind.TAKEOVER)),
            List.of(op(Kind.GRANT), op(Kind.RENEW), op(Kind.RENEW)),
            // leases for locks (decision 0116): a row not attached to a session, extended, kept until a time
            List.of(op(Kind.GRANT_TTL)),
            List.of(op(Kind.GRANT_TTL), op(Kind.EXTEND)),
            List.of(op(Kind.GRANT), op(Kind.KEEP_UNTIL)),
            List.of(op(Kind.GRANT_TTL), op(Kind.KEEP_UNTIL), op(Kind.BEAT)));

    private static final Map<String, List<List<Op>>> PREREQUISITES = pairs(
            "actor_leases", LEASE_SHAPES,
            "processes", LEASE_SHAPES,
            "lease_tombstones",
                    List.of(List.of(new Op(Kind.GRANT, 'A', "x"), new Op(Kind.RELEASE, 'A', "x"), op(Kind.GRANT))),
            "messages",
                    List.of(
                            List.of(op(Kind.CLAIM)),
                            List.of(op(Kind.CLAIM), op(Kind.CLAIM)),
                            List.of(op(Kind.CLAIM), op(Kind.COMPLETE))),
            "execution_attempts", List.of(List.of(op(Kind.START_RUN)), List.of(op(Kind.START_RUN), op(Kind.BEAT))),
            "assignments",
                    List.of(
                            List.of(op(Kind.START_RUN)),
                            List.of(op(Kind.START_RUN), op(Kind.RECOVER)),
                            List.of(op(Kind.START_RUN), op(Kind.RECOVER), op(Kind.RETRY))),
            "receipts",
                    List.of(
                            List.of(op(Kind.START_RUN), op(Kind.FINISH_RUN)),
                            List.of(op(Kind.START_RUN), op(Kind.RECOVER))),
            "supervisor_ticks", List.of(List.of(op(Kind.TICK)), List.of(op(Kind.TICK), op(Kind.PRUNE), op(Kind.TICK))),
            // decision 0018: rows below the watermark, which only the prune's rules may delete
            "fence_events",
                    List.of(
                            List.of(op(Kind.GRANT)),
                            List.of(op(Kind.GRANT), op(Kind.RELEASE), op(Kind.PRUNE)),
                            List.of(op(Kind.START_RUN), op(Kind.RECOVER), op(Kind.PRUNE)),
                            List.of(op(Kind.CLAIM), op(Kind.PRUNE))),
            "retention", List.of(List.of(op(Kind.GRANT), op(Kind.PRUNE)), List.of(op(Kind.GRANT))),
            // decision 0019: B refused A's live lease, twice in one window
            "lease_contention",
                    List.of(
                            List.of(op(Kind.GRANT), new Op(Kind.CONTEND, 'B', "w")),
                            List.of(op(Kind.GRANT), new Op(Kind.CONTEND, 'B', "w"), op(Kind.PRUNE))));

    /** A map from alternating keys and values (more than Map.of's ten pairs). */
    @SuppressWarnings("unchecked")
    private static Map<String, List<List<Op>>> pairs(Object... keysAndValues) {
        Map<String, List<List<Op>>> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], (List<List<Op>>) keysAndValues[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(out);
    }
}
