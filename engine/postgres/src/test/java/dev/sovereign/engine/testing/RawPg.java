package dev.sovereign.engine.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;

/**
 * Raw SQL against a PostgreSQL ledger from a plain JDBC connection: what a badly behaved client (a
 * bug, a hand-typed statement in psql) can send, with none of the engine in between. Each call runs
 * its statements as ONE transaction; {@link #refused} expects the database to refuse it and rolls it
 * back, {@link #passes} commits it. Not thread-safe: one per connection.
 */
public final class RawPg {
    /**
     * Mints a token on every stripe of the counter (schema version 19: one row per stripe of actors), as a grant, an
     * attempt or a claim does on its actor's stripe in its own transaction; whichever actor the next statement names.
     */
    public static final String MINT = "UPDATE token_counter SET last_token = last_token + 64"
            + " WHERE id IN (SELECT id FROM token_counter ORDER BY id FOR UPDATE)"; // in order: no deadlock
    /** Before schema version 19: the one row, one step. */
    public static final String MINT_BEFORE_19 = "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1";
    /** The token just minted (or the last one). */
    public static final String TOKEN_BEFORE_19 = "(SELECT last_token FROM token_counter WHERE id = 1)";
    /** The lease row's own actor's token just minted, for an UPDATE of {@code actor_leases}. */
    public static final String LEASE_TOKEN = token("actor_leases.actor_id");
    /** The message's recipient's token just minted, for an UPDATE of {@code messages}. */
    public static final String CLAIM_TOKEN = token("messages.recipient");

    /**
     * The token just minted for the actor the SQL expression {@code actor} names: the row of its stripe (schema version
     * 19, decision 0924; before it the one row, {@link #TOKEN_BEFORE_19}).
     */
    /** Mints one token on the stripe of the actor the SQL expression {@code actor} names, as the engine does. */
    public static String mint(String actor) {
        return "UPDATE token_counter SET last_token = last_token + 64 WHERE id = sovereign_token_stripe(" + actor + ")";
    }

    /**
     * The token just minted for the actor the SQL expression {@code actor} names: the row of its stripe (schema version
     * 19, decision 0924; before it the one row, {@link #TOKEN_BEFORE_19}).
     */
    public static String token(String actor) {
        return "(SELECT last_token FROM token_counter WHERE id = sovereign_token_stripe(" + actor + "))";
    }
    /**
     * The lease change marker every lease write carries: its own transaction's id (schema version 18, decision 0923;
     * until then a value of the lease change counter, raised in the same transaction).
     */
    public static final String CHANGE = "txid_current()";
    /** The server's clock in epoch milliseconds. */
    public static final String NOW = "sovereign_now_ms()";

    private final Connection c;

    public RawPg(Connection c) {
        this.c = c;
    }

    public Connection connection() {
        return c;
    }

    /** Runs the statements in one transaction and commits it; fails the test if any is refused. */
    public void passes(String... statements) {
        try {
            run(statements);
            c.commit();
        } catch (SQLException e) {
            rollbackQuietly();
            fail("expected to pass, but was refused: " + e.getMessage() + "\n  in: "
                    + String.join(";\n      ", statements));
        } finally {
            autoCommit();
        }
    }

    /**
     * Runs the statements in one transaction and expects the database to refuse one of them with a
     * message containing {@code expected}; rolls back either way.
     */
    public void refused(String expected, String... statements) {
        try {
            run(statements);
            rollbackQuietly();
            fail("expected to be refused (" + expected + "), but went through: " + String.join(";\n  ", statements));
        } catch (SQLException e) {
            rollbackQuietly();
            assertThat(e.getMessage())
                    .as("refusal of %s", String.join("; ", statements))
                    .contains(expected);
        } finally {
            autoCommit();
        }
    }

    /**
     * Waits until {@code function} has been called {@code calls} times in this database, as pg_stat_user_functions
     * counts (with {@code track_functions = 'pl'}; a session's counts reach the view once its backend has ended: a
     * condition, not a time). Fails after 20 s.
     */
    public void awaitFunctionCalls(String function, long calls) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        long seen = -1;
        while (System.nanoTime() < deadline) {
            seen = scalar("SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions WHERE funcname = " + q(function));
            if (seen == calls) {
                return;
            }
            Thread.onSpinWait();
        }
        fail(function + " was called " + seen + " times, expected " + calls);
    }

    /** COPY ... FROM STDIN with {@code data} (tab-separated lines) in one transaction, expected refused. */
    public void copyRefused(String expected, String copy, String data) {
        try {
            c.setAutoCommit(false);
            c.unwrap(PGConnection.class).getCopyAPI().copyIn(copy, new StringReader(data));
            rollbackQuietly();
            fail("expected COPY to be refused (" + expected + "), but it went through: " + copy);
        } catch (SQLException e) {
            rollbackQuietly();
            assertThat(e.getMessage()).contains(expected);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } finally {
            autoCommit();
        }
    }

    /** COPY ... FROM STDIN with {@code data}, committed; returns the rows copied. */
    public long copyPasses(String copy, String data) {
        try {
            c.setAutoCommit(false);
            long rows = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copy, new StringReader(data));
            c.commit();
            return rows;
        } catch (SQLException | IOException e) {
            rollbackQuietly();
            throw new AssertionError("expected COPY to pass: " + e.getMessage(), e);
        } finally {
            autoCommit();
        }
    }

    public long scalar(String sql) {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            throw new AssertionError(e.getMessage() + " in " + sql, e);
        }
    }

    public String text(String sql) {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new AssertionError(e.getMessage() + " in " + sql, e);
        }
    }

    /** Runs the statements outside any transaction of ours (auto-commit), e.g. DDL or SET. */
    public void exec(String... statements) {
        try (Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    /** {@code 'text'} as an SQL literal. */
    public static String q(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private void run(String... statements) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private void rollbackQuietly() {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // nothing to roll back
        }
    }

    private void autoCommit() {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
