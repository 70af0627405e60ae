package dev.sovereign.engine.attack.standing;

import dev.sovereign.engine.attack.standing.Strike.Form;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.TestBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The standing attack suite (issue 26 "How", docs/decisions/0013): hand-written SQL from a hostile client against
 * every table of the ledger, after every kind of operation the engines make, in every statement form, generated
 * rather than listed — so that a change to the schema or to a write path cannot silently reopen a guard. It runs
 * in every {@code mvn verify} on both backends, each through its subclass (the contract suite's shape, decision
 * 0015): on SQLite ({@code StandingAttackOnSqliteTest}: the file, as the sqlite3 shell reaches it), and from
 * engine/postgres-it on PostgreSQL ({@code StandingAttackOnPostgresTest}), where every statement comes from
 * another host's WORKER login and the engines run as worker logins of their own.
 *
 * <p>Each try takes a fresh ledger (or the last try's, if the database refused all of that try's strikes), lets
 * engines A (the victim) and B (the host whose login the attacker holds) make a generated sequence of operations
 * ({@link Op}: grant, renew, beat, release, takeover, a write to another lease, a claim, a run, a recovery, a
 * retry, an acknowledgement, a tick), reads every fact, and strikes one table {@link #STRIKES} times ({@link Strike}:
 * one of its rows, a column, a value — meaningful or type-confused — and a statement form, sent as one
 * transaction), asking after each strike the database accepted the {@link Oracle} and the engines' {@link Probes}
 * whether the fence held. A failure prints the operations, the exact statements and every violated rule. Tries,
 * seed, shrinking and a survey mode are set by {@link AttackSettings}.
 *
 * <p>The properties split the tables by the guards that answer for them, so a red property names its hole.
 */
@Tag("contract")
@AddLifecycleHook(AttackSettings.class)
abstract class StandingAttackContract {
    /** Strikes per attack: each try builds one ledger and strikes it this many times. */
    static final int STRIKES = 8;

    /** The backend whose ledgers are struck: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    private Dialect dialect() {
        return Dialect.of(backend());
    }

    private static final List<Form> ROW_FORMS = List.of(
            Form.UPDATE,
            Form.UPDATE_STATED,
            Form.DELETE,
            Form.DELETE_INSERT,
            Form.INSERT,
            Form.REPLACE,
            Form.UPDATE_THEN_TAKE);

    /** Lease rows and what marks their changes (issue 26 item 1: a bare DELETE after a renewal). */
    @Property
    void aLiveLeaseKeepsItsHolderAndTokenWhateverIsWrittenToItsRow(@ForAll("leaseAttacks") Attack attack) {
        new Trial(backend()).check("leases", attack);
    }

    /** The holder's session row, which keeps every attached lease alive (issue 26 item 2). */
    @Property
    void aSessionRowIsMovedOnlyByItsOwnProcessBeating(@ForAll("sessionAttacks") Attack attack) {
        new Trial(backend()).check("sessions", attack);
    }

    /** The token counter and the lease change counter (issue 26 item 7, issue 32 item 2). */
    @Property
    void theCountersStayIntegersAndMoveOnlyUpByMinting(@ForAll("counterAttacks") Attack attack) {
        new Trial(backend()).check("counters", attack);
    }

    /** Claims, attempts and assignments (issue 32 items 4, 5 and 6). */
    @Property
    void claimsAttemptsAndAssignmentsChangeOnlyThroughTheirFence(@ForAll("workAttacks") Attack attack) {
        new Trial(backend()).check("claims, attempts, assignments", attack);
    }

    /**
     * The journal, receipts, supervisor ticks, the ledger's mark, the migration record, the actors (PostgreSQL: the
     * server clock's pin) — and every table a later migration adds, until a property of its own takes it.
     */
    @Property
    void theJournalReceiptsTicksAndMarksKeepEveryRow(@ForAll("recordAttacks") Attack attack) {
        new Trial(backend()).check("journal and records", attack);
    }

    /** A trigger, view or index (PostgreSQL: rule, policy, function) added by hand (issue 26 item 6). */
    @Property
    void aTriggerViewOrIndexTheSchemaDidNotCreateIsRefusedAtTheNextOpen(@ForAll("ddlAttacks") Attack attack) {
        new Trial(backend()).check("added schema objects", attack);
    }

    @AfterProperty
    void closeTheLedger() {
        Trial.closePooled();
    }

    @AfterContainer
    static void survey() {
        Survey.write();
    }

    // ---- the generators ---------------------------------------------------------------------------------

    @Provide
    Arbitrary<Attack> leaseAttacks() {
        return Attacks.on(dialect(), List.of("actor_leases", "lease_tombstones"), ROW_FORMS, STRIKES);
    }

    @Provide
    Arbitrary<Attack> sessionAttacks() {
        return Attacks.on(dialect(), List.of("processes"), ROW_FORMS, STRIKES);
    }

    @Provide
    Arbitrary<Attack> counterAttacks() {
        return Attacks.on(dialect(), List.of("token_counter", "lease_change_counter"), ROW_FORMS, STRIKES);
    }

    @Provide
    Arbitrary<Attack> workAttacks() {
        return Attacks.on(dialect(), List.of("messages", "execution_attempts", "assignments"), ROW_FORMS, STRIKES);
    }

    /** The tables the other properties attack; every other table of the ledger is the records property's. */
    private static final List<String> NAMED = List.of(
            "actor_leases",
            "lease_tombstones",
            "processes",
            "token_counter",
            "lease_change_counter",
            "messages",
            "execution_attempts",
            "assignments");

    @Provide
    Arbitrary<Attack> recordAttacks() {
        List<String> tables = new ArrayList<>(dialect().tables());
        tables.removeAll(NAMED);
        return Attacks.on(dialect(), tables, ROW_FORMS, STRIKES);
    }

    @Provide
    Arbitrary<Attack> ddlAttacks() {
        return Attacks.on(dialect(), dialect().tables(), List.of(Form.DDL), 1);
    }

    /** One try on {@code backend}: a fresh ledger, the operations, the attack, the oracle and the probes. */
    static final class Trial {
        private final TestBackend backend;
        private final Dialect dialect;

        Trial(TestBackend backend) {
            this.backend = backend;
            this.dialect = Dialect.of(backend);
        }

        /**
         * The ledger the last try left sound — no violation: every strike refused, or accepted and judged harmless
         * by the oracle and the probes (a minted token, a grant by hand presenting what the guards ask), an object a
         * DDL strike added taken away again — which the next try of the same property uses with actors of its own,
         * up to {@link #TRIES_PER_LEDGER} tries: on PostgreSQL a fresh database costs more than a whole try. A
         * violation closes it, and the next try builds a new one. (Should a state the oracle judged harmless break
         * a later try's operations, that try fails with the ledger's history in its report: an oracle to sharpen.)
         */
        private static World pooled;

        static final int TRIES_PER_LEDGER = 10;

        void check(String property, Attack attack) {
            List<String> report = new ArrayList<>();
            report.add("backend " + backend.name() + ", attack " + attack);
            List<String> violations = new ArrayList<>();
            boolean anyRefused = false;
            boolean intact = true;
            long t0 = System.nanoTime();
            World world = pooled != null
                    ? pooled
                    : World.open(backend, attack.toString().hashCode());
            pooled = null;
            long t1 = System.nanoTime();
            long t2 = t1;
            long t3 = t1;
            try {
                int earlier = world.beginTry();
                if (earlier > 0) {
                    report.add("  (on the ledger of " + earlier
                            + " earlier tries of this property, which no strike of theirs"
                            + " broke; this try's actors are " + world.actor("w") + " and " + world.actor("x") + ")");
                }
                for (Op op : attack.before()) {
                    report.add("  " + op + " -> " + op.apply(world));
                }
                t2 = System.nanoTime();
                // The facts are read before the first strike and again after each one the database accepted; a refused
                // strike must leave every row as it was, which the read after the last strike checks for all of them.
                Facts current = Facts.read(world.owner(), dialect);
                Strike lastRefused = null;
                for (Strike strike : attack.strikes()) {
                    List<String> statements = strike.statements(world, current);
                    report.add("  the attacker strikes (" + strike + ") "
                            + (dialect == Dialect.POSTGRES
                                    ? "as B's worker login"
                                    : "on the file" + (strike.recursive() ? ", recursive_triggers ON" : ""))
                            + ":");
                    statements.forEach(s -> report.add("    " + s + ";"));
                    long sent = System.nanoTime();
                    String refusal = send(world, statements, strike.recursive());
                    boolean refused = refusal != null;
                    anyRefused |= refused;
                    report.add("    -> " + (refused ? "refused: " + refusal : "accepted") + " ("
                            + (System.nanoTime() - sent) / 1_000_000 + " ms)");
                    boolean ownerAdded = false;
                    if (strike.form() == Form.DDL && refused && dialect == Dialect.POSTGRES) {
                        // a worker login cannot add an object; someone with the owner's rights can, and then every
                        // open must notice it (the PostgreSQL part of issue 26 item 6)
                        String ownerRefusal = sendAsOwner(world, statements);
                        ownerAdded = ownerRefusal == null;
                        report.add("    the owner sends the same -> "
                                + (ownerAdded ? "accepted" : "refused: " + ownerRefusal));
                    }
                    if (refused && !ownerAdded) {
                        lastRefused = strike;
                        continue;
                    }
                    Facts after = Facts.read(world.owner(), dialect);
                    violations.addAll(Oracle.judge(world, strike, current, after, false));
                    if (strike.form() == Form.DDL) {
                        violations.addAll(nextOpen(world, strike, !refused && dialect == Dialect.POSTGRES));
                        // take the object away again: the ledger can serve the next try if that restores it
                        sendAsOwner(world, strike.undo(dialect));
                    } else {
                        violations.addAll(Probes.run(world, current, after, true));
                    }
                    if (!violations.isEmpty()) {
                        break;
                    }
                    Facts struck = current;
                    current = Facts.read(world.owner(), dialect);
                    intact &= strike.form() != Form.DDL || current.schema().equals(struck.schema());
                }
                t3 = System.nanoTime();
                if (violations.isEmpty()) {
                    Facts end = Facts.read(world.owner(), dialect);
                    if (lastRefused != null) {
                        violations.addAll(Oracle.judge(world, lastRefused, current, end, true));
                    }
                    if (strike0(attack).form() == Form.DDL) {
                        intact &= end.schema().equals(current.schema());
                    } else if (violations.isEmpty()) {
                        // and after the refused strikes, the engines still do their work on the ledger as it is
                        violations.addAll(Probes.run(world, end, end, false));
                    }
                }
            } catch (SQLException e) {
                intact = false;
                throw new IllegalStateException(
                        "the attack's setup failed: " + e.getMessage() + "\n" + String.join("\n", report), e);
            } finally {
                if (intact && violations.isEmpty() && world.tries() < TRIES_PER_LEDGER) {
                    pooled = world;
                } else {
                    world.close();
                }
            }
            report.add(String.format(
                    "  (%d ms to open the ledger, %d ms of operations, %d ms of strikes, %d ms of"
                            + " final probes and closing)",
                    (t1 - t0) / 1_000_000,
                    (t2 - t1) / 1_000_000,
                    (t3 - t2) / 1_000_000,
                    (System.nanoTime() - t3) / 1_000_000));
            report.add("  violations:");
            violations.forEach(v -> report.add("    " + v));
            String text = String.join("\n", report);
            Survey.record(backend.name(), property, attack.strikes().size(), anyRefused, violations, text);
            if (!violations.isEmpty() && !AttackSettings.SURVEY) {
                throw new AssertionError("The fence did not hold (" + property + "):\n" + text);
            }
        }

        private static Strike strike0(Attack attack) {
            return attack.strikes().get(0);
        }

        /** Closes the ledger a property's last try left (the next property builds its own). */
        static void closePooled() {
            if (pooled != null) {
                pooled.close();
                pooled = null;
            }
        }

        /** Sends the statements in one transaction from the attacker's connection; the refusal, or null. */
        String send(World world, List<String> statements, boolean recursive) throws SQLException {
            if (statements.isEmpty()) {
                return null;
            }
            try (Connection c = world.attacker(recursive)) {
                return transaction(c, statements);
            }
        }

        String sendAsOwner(World world, List<String> statements) throws SQLException {
            return transaction(world.owner(), statements);
        }

        private String transaction(Connection c, List<String> statements) throws SQLException {
            List<String> all = new ArrayList<>(dialect.begin());
            all.addAll(statements);
            all.addAll(dialect.commit());
            boolean auto = c.getAutoCommit();
            if (dialect == Dialect.POSTGRES) {
                c.setAutoCommit(false);
            }
            try (Statement s = c.createStatement()) {
                for (String sql : all) {
                    s.execute(sql);
                }
                if (dialect == Dialect.POSTGRES) {
                    c.commit();
                }
                return null;
            } catch (SQLException e) {
                try (Statement s = c.createStatement()) {
                    if (dialect == Dialect.POSTGRES) {
                        c.rollback();
                    } else {
                        s.execute("ROLLBACK");
                    }
                } catch (SQLException ignored) {
                    // nothing was open any more
                }
                return (e.getSQLState() == null ? "" : e.getSQLState() + " ")
                        + e.getMessage().replace('\n', ' ');
            } finally {
                c.setAutoCommit(auto);
            }
        }

        /** After an object was added: the next open must refuse the ledger, naming it (issue 26 item 6). */
        private static List<String> nextOpen(World world, Strike attack, boolean byAWorker) {
            List<String> out = new ArrayList<>();
            if (byAWorker) {
                out.add("[ddl.by-a-worker] a worker login added " + attack.ddlName());
            }
            try {
                world.reopen();
                out.add("[ddl.not-refused-at-open] the next open accepted the ledger with " + attack.ddlName() + " on "
                        + attack.table());
            } catch (StorageException e) {
                if (!e.getMessage().contains(attack.ddlName())) {
                    out.add("[ddl.refused-without-naming-it] the next open refused, but without naming "
                            + attack.ddlName() + ": " + e.getMessage());
                }
            } catch (RuntimeException e) {
                out.add("[ddl.open-failed-otherwise] the next open failed with " + e);
            }
            return out;
        }
    }
}
