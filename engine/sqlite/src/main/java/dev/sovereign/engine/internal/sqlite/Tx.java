package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTxBase;
import dev.sovereign.engine.internal.jdbc.WentBackwardsGuard;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One transaction (or one autocommit read) on the engine's connection, with {@link #now()} read
 * inside it. Small helpers keep the stores to one SQL statement per line. Not thread-safe; lives only
 * inside {@link Database#write} or {@link Database#read}.
 */
public final class Tx extends JdbcTxBase {
    private final Database db;
    private final StatementCache statements;
    private final long now;

    Tx(Database db, WentBackwardsGuard backwards, StatementCache statements, long now) {
        this(db, backwards, statements, now, null);
    }

    Tx(Database db, WentBackwardsGuard backwards, StatementCache statements, long now, IdentityClaim claimToJournal) {
        super(db, backwards, claimToJournal);
        this.db = db;
        this.statements = statements;
        this.now = now;
    }

    /** The clock reading taken after the write lock was held. */
    @Override
    public long now() {
        return now;
    }

    /** The ledger file this transaction writes. */
    public Path file() {
        return db.file();
    }

    @Override
    public int update(String sql, Object... args) throws SQLException {
        PreparedStatement ps = prepare(sql, args);
        boolean completed = false;
        try {
            int n = ps.executeUpdate();
            completed = true;
            if (n > 0) {
                // the claim is journalled with the first change it makes (a refused call rolls both back)
                journalClaim();
            }
            return n;
        } finally {
            release(sql, ps, completed);
        }
    }

    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        PreparedStatement ps = prepare(sql, args);
        boolean completed = false;
        try {
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
            completed = true;
            return out;
        } finally {
            release(sql, ps, completed);
        }
    }

    private void release(String sql, PreparedStatement ps, boolean completed) {
        if (completed) {
            statements.giveBack(sql, ps);
        } else {
            statements.discard(ps);
        }
    }

    @Override
    public Dialect dialect() {
        return Dialect.SQLITE;
    }

    /** Nothing to lock: the transaction holds the file's one write lock from its {@code BEGIN IMMEDIATE}. */
    @Override
    public void lockTokenCounter(String actor) {}

    /** Under the file's one write lock nothing else writes: a row changed under it is a bug. */
    @Override
    public RuntimeException changedUnderLock(String row) {
        return new IllegalStateException(row + " changed under the write lock");
    }

    /** Nothing to lock, as {@link #lockTokenCounter}. */
    @Override
    public void lockLeaseChanges() {}

    private PreparedStatement prepare(String sql, Object... args) throws SQLException {
        PreparedStatement ps = statements.take(sql);
        try {
            bind(ps, args);
            return ps;
        } catch (SQLException | RuntimeException e) {
            statements.discard(ps);
            throw e;
        }
    }
}
