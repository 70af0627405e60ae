package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.base.StorageException.Problem;
import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.Rejections;
import dev.sovereign.engine.internal.jdbc.Transactions;
import dev.sovereign.engine.internal.jdbc.TxWork;
import dev.sovereign.engine.internal.jdbc.WentBackwardsGuard;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The one door to a PostgreSQL ledger for one engine: a single connection, guarded by a fair lock so the
 * heartbeat thread and callers take turns (as SQLite's {@code Database}). Every write runs in {@link #write}
 * as ONE READ COMMITTED transaction: the store locks the rows its rule needs ({@code SELECT … FOR UPDATE},
 * in the order of decision 0900: the actor's token counter row, lease, attempt, assignment, message; the lease
 * change counter is no longer locked since schema version 18, decision 0923),
 * asks the rule book, and sends the one compare-and-set the rule allows. {@code now} is the server's clock
 * ({@code sovereign_now_ms()}), read inside the transaction ({@link PgTx#now()}); the Java clock is never
 * used for a stamp or an expiry decision.
 *
 * <p>What can go wrong, and what this class makes of it:
 * <ul>
 *   <li>a deadlock (40P01), a serialization failure (40001), a lock timeout (55P03), or a compare-and-set
 *       that lost a race the row locks should have excluded ({@link PgConflict}): the WHOLE transaction is
 *       rolled back and run again, re-reading everything, after a short random pause, until the configured
 *       busy bound; then a {@code BUSY} storage error;</li>
 *   <li>a refusal thrown by the rule book: rolled back; a fencing refusal is then journalled as
 *       {@code REJECTED} in its own transaction, so other processes see it;</li>
 *   <li>a guard's {@code SV001}: the database refused a write this engine made, which is a bug or a hand
 *       change to the ledger, never an expected race: a {@code CORRUPT} storage error naming the guard;</li>
 *   <li>the connection lost during the body: nothing was committed; an {@code IO} storage error, and the next
 *       call connects again;</li>
 *   <li>the connection lost while COMMIT was in flight: this process cannot know whether the write took
 *       effect, so {@code COMMIT_OUTCOME_UNKNOWN}: never success, never plain failure; the ledger decides.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class PgDatabase implements Transactions, AutoCloseable {
    /**
     * How long the server lets this engine's session sit idle inside a transaction before ending it (and with it
     * the transaction and its row locks). The engine never waits for anything inside a transaction, so only a
     * host that stopped (SIGSTOP, a long GC pause) or was cut off mid-transaction sits there: while it does, the
     * token counter's row lock it holds stalls every grant of every other host. Safety does not depend on it (the
     * transaction rolls back); liveness after a partition does, so it is short.
     */
    static final long IDLE_IN_TRANSACTION_MS = 5_000;

    /** A user-info part ({@code user:password@}) before the host of a URL: anything up to an {@code @} before the query. */
    private static final Pattern USER_INFO = Pattern.compile("(?i)^jdbc:postgresql://[^?]*@");

    private final LedgerLocation location;
    private final long busyBoundMs;
    private final long pauseMinNanos;
    private final long pauseMaxNanos;
    private final ReentrantLock lock = new ReentrantLock(true);
    private Connection connection; // guarded by lock; null after a lost connection until the next call
    private volatile boolean labSandbox;
    private volatile String processIdentity;
    private volatile IdentityClaim claim;
    private boolean claimJournalled; // guarded by lock
    /** The insert of this process's row, run in the first write that commits (registerLazily, decision 0304). */
    private volatile TxWork<?> pendingRegistration;

    private volatile boolean closed;
    /** An operators' reader's connection: a read-only session, never migrated (decision 0905). */
    private final boolean readOnly;
    /** The highest token this engine saw committed, and whether the ledger went backwards (decision 0605). */
    private final WentBackwardsGuard backwards = new WentBackwardsGuard(
            new WentBackwardsGuard.Words() {
                @Override
                public String sentence(long seen, long counter) {
                    return wentBackwardsSentence(seen, counter);
                }

                @Override
                public Path file() {
                    return null;
                }
            },
            PgTx.TOKEN_STRIPES);
    /** A test's hook run just before COMMIT is sent (to kill the connection at commit); null in production. */
    private volatile Runnable beforeCommit;

    private PgDatabase(LedgerLocation location, EngineConfig config, boolean readOnly) {
        this.location = location;
        this.readOnly = readOnly;
        this.busyBoundMs = config.busyBound().toMillis();
        this.pauseMinNanos = config.busyRetryPauseMin().toNanos();
        this.pauseMaxNanos = config.busyRetryPauseMax().toNanos();
    }

    /**
     * Connects, migrates (creating the schema in an empty database when allowed) and checks every guard.
     * A PostgreSQL database is created by its administrator, never by Sovereign: {@code createIfMissing}
     * decides only whether an empty one may be given a ledger.
     */
    public static PgDatabase open(EngineConfig config, boolean createIfMissing) {
        LedgerLocation location = config.location();
        PgDatabase db = new PgDatabase(location, config, false);
        try {
            db.connection = db.connect();
            if (!createIfMissing && PgMigrator.schemaVersion(db.connection) == 0) {
                throw new StorageException(
                        Problem.MISSING_FILE,
                        null,
                        "There is no Sovereign ledger in the PostgreSQL" + " database " + location
                                + " (create one with 'sovereign init').",
                        null);
            }
            new PgMigrator(
                            config.createAsLabSandbox(),
                            SovereignVersion.current().version(),
                            SovereignVersion.current().commit(),
                            (int) Math.max(1, config.busyBound().toMillis()))
                    .migrate(db.connection);
            PgServerClock.requireUnmoved(db.connection, location);
            db.read(tx -> {
                PgLedgerHistory.requireUsable(tx, String.valueOf(location));
                return null;
            });
            db.labSandbox =
                    db.read(tx -> tx.one("SELECT lab_sandbox FROM ledger_mark WHERE id = 1", rs -> rs.getInt(1) == 1)
                            .orElse(false));
        } catch (PgSchemaException e) {
            db.close();
            throw new StorageException(problemOf(e.problem()), null, e.getMessage(), e);
        } catch (SQLException e) {
            db.close();
            throw translate(location, e, "open");
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return db;
    }

    /**
     * Connects for reading only (the operators' reader, decision 0905): the session is read-only
     * ({@code default_transaction_read_only}), so no statement on it can write; nothing is migrated or created; a
     * database with no ledger, a schema Sovereign did not create, or a version older or newer than this code is
     * refused in one sentence. A lost connection is connected again by the next call, read-only again.
     */
    public static PgDatabase openForReading(LedgerLocation location) {
        PgDatabase db =
                new PgDatabase(location, EngineConfig.forDatabase(location).build(), true);
        try {
            db.connection = db.connect();
            PgMigrator.checkReadable(db.connection, location);
        } catch (PgSchemaException e) {
            db.close();
            throw new StorageException(problemOf(e.problem()), null, e.getMessage(), e);
        } catch (SQLException e) {
            db.close();
            throw translate(location, e, "read");
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return db;
    }

    static Problem problemOf(PgSchemaException.Problem p) {
        return switch (p) {
            case MISSING -> Problem.MISSING_FILE;
            case NOT_OURS -> Problem.NOT_OURS;
            case SCHEMA_TOO_NEW -> Problem.SCHEMA_TOO_NEW;
            case CORRUPT -> Problem.CORRUPT;
            case BUSY -> Problem.BUSY;
            case IO -> Problem.IO;
        };
    }

    /**
     * A connection for this engine. Two session settings bound what another process can cost it:
     * {@code lock_timeout} (the busy bound) turns a lock held too long into 55P03, retried until the bound and
     * then {@code BUSY}, never an endless wait; {@code idle_in_transaction_session_timeout} lets the server
     * end the session of a client that stopped in the middle of a transaction (a frozen or suspended
     * process), so the token counter it holds is not held for ever; that client then finds its write lost
     * before its commit.
     */
    private Connection connect() {
        Connection c = connect(location);
        try (Statement s = c.createStatement()) {
            s.execute("SET lock_timeout = " + Math.max(1, busyBoundMs));
            s.execute("SET idle_in_transaction_session_timeout = " + IDLE_IN_TRANSACTION_MS);
            if (readOnly) {
                s.execute("SET default_transaction_read_only = on");
            }
        } catch (SQLException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a connection that failed its set-up
            }
            throw translate(location, e, "open");
        }
        return c;
    }

    static Connection connect(LedgerLocation location) {
        if (USER_INFO.matcher(location.text()).find()) {
            // pgjdbc would take 'user:password@host' for a host name and put it, password and all, in the message
            // of the UnknownHostException it causes: refuse before it sees it, with no cause to print
            throw new StorageException(
                    Problem.IO,
                    null,
                    "Cannot connect to the PostgreSQL ledger " + location + ": the"
                            + " PostgreSQL driver does not understand user:password@ before the host; give ?user=…&password=…"
                            + " or, better, keep the password in a password file (PGPASSFILE, ~/.pgpass).",
                    null);
        }
        try {
            Connection c = DriverManager.getConnection(location.text());
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return c;
        } catch (SQLException e) {
            throw new StorageException(
                    Problem.IO,
                    null,
                    "Cannot connect to the PostgreSQL ledger " + location + ": " + whyNotConnected(location, e) + ".",
                    e);
        }
    }

    /**
     * Why a connection failed, in words an operator can act on: the TLS failures the driver reports as a Java
     * exception's name or a verifier's class get their own clause (decision 0906); anything else is the driver's
     * first line. Never the URL as typed: callers name the location, which hides its secrets.
     */
    static String whyNotConnected(LedgerLocation location, SQLException e) {
        String mode = PgConnectionSecurity.sslmode(location);
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                return "the server's certificate is not trusted: no certificate in the file sslrootcert names (or"
                        + " ~/.postgresql/root.crt) signed it, so sslmode=" + mode + " refused the server before"
                        + " anything was sent";
            }
        }
        String first = firstLine(e);
        if (first.contains("could not be verified by hostnameverifier")) {
            return "the server's certificate is trusted but does not name the host this URL connects to, so"
                    + " sslmode=" + mode + " refused it before anything was sent (connect by a name the certificate"
                    + " lists)";
        }
        if ("28000".equals(e.getSQLState()) && first.contains("no encryption")) {
            return "the server accepts this login only over TLS and the URL's sslmode=" + mode + " sent none (" + first
                    + "); use sslmode=verify-full with sslrootcert";
        }
        return first;
    }

    public LedgerLocation location() {
        return location;
    }

    /** Whether this ledger was created as a lab sandbox (its durable {@code ledger_mark} row). */
    @Override
    public boolean isLabSandbox() {
        return labSandbox;
    }

    /** Set once by the engine so refusals are journalled under this process's identity. */
    @Override
    public void setProcessIdentity(String identity) {
        this.processIdentity = identity;
    }

    @Override
    public String processIdentity() {
        return processIdentity;
    }

    /** This engine acts as an identity another process registered (decision 0802); see SQLite's Database. */
    @Override
    public void setClaim(IdentityClaim claim) {
        lock.lock();
        try {
            this.claim = claim;
            this.claimJournalled = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public IdentityClaim claim() {
        return claim;
    }

    /** As SQLite's: {@code registration} runs inside the first write that commits, before its own statements. */
    @Override
    public void registerWithFirstWrite(TxWork<?> registration) {
        this.pendingRegistration = registration;
    }

    /** Whether this process's row is written (always, for an engine that registered when it opened). */
    @Override
    public boolean isRegistered() {
        return pendingRegistration == null;
    }

    /** For tests: runs {@code hook} on the engine's thread just before each COMMIT is sent. */
    public void beforeCommit(Runnable hook) {
        this.beforeCommit = hook;
    }

    /** The backend process id of the current connection (for tests that kill it); connects if needed. */
    public int backendPid() {
        return read(tx -> (int) tx.scalarLong("SELECT pg_backend_pid()"));
    }

    /** Runs {@code work} as one READ COMMITTED transaction, retried whole on a conflict (see the class comment). */
    @Override
    public <T> T write(TxWork<T> work) {
        return write(work, true);
    }

    private <T> T write(TxWork<T> work, boolean mayJournalClaim) {
        return backwards.guard(
                () -> writeAnyway(work, mayJournalClaim),
                () -> read(tx -> tx.lastToken()),
                seen -> writeAnyway(
                        tx -> {
                            PgLedgerHistory.recordWentBackwards(tx, seen);
                            return null;
                        },
                        false));
    }

    /** A beat read the counter: below a token this engine saw committed, the ledger went backwards (decision 0605). */
    @Override
    public void requireCounterNotBelowSeen(long counter) {
        backwards.requireCounterNotBelowSeen(counter);
    }

    /** A mint returned {@code minted}: not above a token this engine saw committed, the ledger went backwards. */
    void requireForward(long minted) {
        backwards.requireForward(minted);
    }

    /** What this engine says when the ledger went backwards (decision 0605). */
    private String wentBackwardsSentence(long seen, long counter) {
        return "The PostgreSQL ledger " + location + " went backwards: this engine (process " + processIdentity
                + ") had seen token " + FencingTokens.describe(seen) + ", but the counter is at "
                + FencingTokens.describe(Math.max(0, counter)) + ", so it was put back (a"
                + " pg_restore) without a fence bump; it refuses to write until its owner runs 'sovereign fence bump'.";
    }

    /** The highest token this engine minted in a committed transaction (decision 0605); 0 before its first. */
    public long highestTokenSeen() {
        return backwards.highestSeen();
    }

    private <T> T writeAnyway(TxWork<T> work, boolean mayJournalClaim) {
        Refusal refusal;
        lock.lock();
        try {
            ensureOpen();
            long deadline = System.nanoTime() + busyBoundMs * 1_000_000L;
            while (true) {
                Connection c = connection();
                PgTx tx = null;
                boolean committing = false;
                try {
                    c.setAutoCommit(false);
                    tx = new PgTx(this, backwards, c, mayJournalClaim && !claimJournalled ? claim : null);
                    TxWork<?> registration = mayJournalClaim ? pendingRegistration : null;
                    if (registration != null) {
                        registration.run(tx); // the first write registers the process; rolled back with it if refused
                    }
                    T result = work.run(tx);
                    committing = true;
                    Runnable hook = beforeCommit;
                    if (hook != null) {
                        hook.run();
                    }
                    c.commit();
                    for (long token : tx.mintedTokens()) {
                        backwards.committed(token);
                    }
                    claimJournalled |= tx.claimWritten();
                    if (registration != null) {
                        pendingRegistration = null;
                    }
                    try {
                        c.setAutoCommit(true);
                    } catch (SQLException lostAfterCommit) {
                        dropConnection(); // the commit was acknowledged: the write stands; the next call reconnects
                    }
                    return result;
                } catch (Refusal r) {
                    rollbackQuietly(c);
                    refusal = r;
                    break;
                } catch (PgConflict e) {
                    rollbackQuietly(c);
                    if (System.nanoTime() < deadline) {
                        pause();
                        continue;
                    }
                    throw new StorageException(
                            Problem.BUSY,
                            null,
                            "The PostgreSQL ledger " + location + " kept"
                                    + " changing under this write past the wait bound (" + e.getMessage()
                                    + "); try again.",
                            e);
                } catch (SQLException e) {
                    if (isConnectionLost(c, e)) {
                        dropConnection();
                        if (committing) {
                            throw commitOutcomeUnknown(e);
                        }
                        throw new StorageException(
                                Problem.IO,
                                null,
                                "The connection to the PostgreSQL ledger "
                                        + location + " was lost during a write, before its commit, so nothing of it was"
                                        + " written (" + firstLine(e) + "); the next call connects again.",
                                e);
                    }
                    rollbackQuietly(c);
                    if (isRetryable(e) && System.nanoTime() < deadline) {
                        pause();
                        continue;
                    }
                    throw translate(location, e, "write to");
                } catch (RuntimeException | Error e) {
                    rollbackQuietly(c);
                    throw e;
                }
            }
            if (refusal.category().isFencing()) {
                refusal = journalRejectionOrWarn(refusal);
            }
        } finally {
            lock.unlock();
        }
        throw refusal;
    }

    private StorageException commitOutcomeUnknown(SQLException e) {
        return new StorageException(
                Problem.COMMIT_OUTCOME_UNKNOWN,
                null,
                "The connection to the PostgreSQL ledger "
                        + location + " was lost while a commit was in flight (" + firstLine(e)
                        + "), so whether that write"
                        + " took effect is unknown: the ledger decides; read it (the lease, the attempt, the journal) before"
                        + " acting on it.",
                e);
    }

    /** Journals a refusal as a {@code REJECTED} fence event in its own transaction. */
    @Override
    public void journalRejection(Refusal r) {
        write(
                tx -> {
                    Rejections.journalIn(tx, r, processIdentity);
                    return null;
                },
                false);
    }

    /** As SQLite's: a failed journal write does not replace the refusal, it becomes its warning (decision 0109). */
    @Override
    public Refusal journalRejectionOrWarn(Refusal r) {
        return Rejections.orWarn(r, () -> journalRejection(r));
    }

    /** Runs a read in auto-commit mode: each statement sees the latest committed state. */
    @Override
    public <T> T read(TxWork<T> work) {
        lock.lock();
        try {
            ensureOpen();
            long deadline = System.nanoTime() + busyBoundMs * 1_000_000L;
            while (true) {
                Connection c = connection();
                try {
                    return work.run(new PgTx(this, backwards, c, null));
                } catch (SQLException e) {
                    if (isConnectionLost(c, e)) {
                        dropConnection();
                        throw new StorageException(
                                Problem.IO,
                                null,
                                "The connection to the PostgreSQL ledger " + location + " was lost during a read ("
                                        + firstLine(e) + ").",
                                e);
                    }
                    if (isRetryable(e) && System.nanoTime() < deadline) {
                        pause();
                        continue;
                    }
                    throw translate(location, e, "read");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs a read in one REPEATABLE READ, READ ONLY transaction: every statement of {@code work} sees the same
     * snapshot (the counts of a summary agree with each other).
     */
    public <T> T snapshot(TxWork<T> work) {
        return read(tx -> {
            Connection c = ((PgTx) tx).connection();
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            try {
                T result = work.run(tx);
                c.commit();
                return result;
            } finally {
                rollbackQuietly(c);
                c.setReadOnly(readOnly);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
        });
    }

    private Connection connection() {
        if (connection == null) {
            connection = connect();
        }
        return connection;
    }

    private void dropConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // it is gone already
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the engine for " + location + " is closed");
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
            c.setAutoCommit(true);
        } catch (SQLException ignored) {
            // the connection is broken; the server rolls the transaction back with it
        }
    }

    private void pause() {
        long nanos = pauseMinNanos == pauseMaxNanos
                ? pauseMinNanos
                : ThreadLocalRandom.current().nextLong(pauseMinNanos, pauseMaxNanos + 1);
        LockSupport.parkNanos(nanos);
        if (Thread.currentThread().isInterrupted()) {
            throw new StorageException(
                    Problem.BUSY, null, "Interrupted while waiting to retry a write.", new InterruptedException());
        }
    }

    /** 40001 serialization failure, 40P01 deadlock, 55P03 lock not available: run the whole transaction again. */
    static boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
    }

    /** Class 08 (connection exception) or an administrator's termination (57P01..57P03). */
    static boolean isConnectionLost(Connection c, SQLException e) {
        if (isConnectionState(e)) {
            return true;
        }
        try {
            return c.isClosed();
        } catch (SQLException ignored) {
            return true;
        }
    }

    /** The SQL state of a connection that failed or was ended: class 08, or 57P01..57P03 (an administrator's). */
    static boolean isConnectionState(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }

    /**
     * The one sentence for a server that could not be reached or kept while the ledger was being opened, whatever
     * step it was at (decision 0315): the same words as a connection refused, naming the URL without its secrets.
     */
    static String cannotConnect(Object where, SQLException e) {
        return "Cannot connect to the PostgreSQL ledger " + where + ": " + firstLine(e) + ".";
    }

    /** Wraps a JDBC failure once, as one sentence naming the ledger (never its password). */
    static StorageException translate(LedgerLocation location, SQLException e, String doing) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (isConnectionState(e)) {
            return new StorageException(Problem.IO, null, cannotConnect(location, e), e);
        }
        if (state.equals("SV001") && firstLine(e).contains("session row is written only by")) {
            // not a broken ledger: this login acts for a process another login registered (decision 0912)
            return new StorageException(
                    Problem.READ_ONLY,
                    null,
                    "The PostgreSQL ledger " + location + " refused to let"
                            + " this login " + doing.replace(" to", "")
                            + " the session row of a process it did not register ("
                            + firstLine(e)
                            + "); run that process under the login that registered it, or act as the ledger's"
                            + " operator.",
                    e);
        }
        if (state.equals("SV001")
                && (firstLine(e).contains("only by the login that registered")
                        || firstLine(e).contains("only by the ledger's operator role or its owner"))) {
            // not a broken ledger either: this login acts for another login's process, or does the operator's work
            // (a retry, an acknowledgement; decision 0916)
            return new StorageException(
                    Problem.READ_ONLY,
                    null,
                    "The PostgreSQL ledger " + location + " refused to let"
                            + " this login " + doing + " it (" + firstLine(e)
                            + "); run that process under the login that"
                            + " registered it, or act as the ledger's operator.",
                    e);
        }
        if (state.equals("SV001") && firstLine(e).contains("the ledger went backwards")) {
            return new StorageException(
                    Problem.WENT_BACKWARDS,
                    null,
                    "The PostgreSQL ledger " + location + " went"
                            + " backwards (an engine that had seen a token above its counter said so in its history), so it"
                            + " issues no token until its owner runs 'sovereign fence bump'.",
                    e);
        }
        if (state.equals("SV001") && firstLine(e).contains("has issued every token of its epoch")) {
            return new StorageException(
                    Problem.EPOCH_EXHAUSTED,
                    null,
                    "The PostgreSQL ledger " + location + " has"
                            + " issued every token of its epoch (2^40 - 1 of them); its owner must run 'sovereign fence bump'.",
                    e);
        }
        if (state.equals("SV001")) {
            return new StorageException(
                    Problem.CORRUPT,
                    null,
                    "The PostgreSQL ledger " + location + " refused a write"
                            + " this engine made (" + firstLine(e)
                            + "): its fence caught either a bug in Sovereign or a"
                            + " ledger changed by hand; nothing of that write was kept.",
                    e);
        }
        if (isRetryable(e)) {
            return new StorageException(
                    Problem.BUSY,
                    null,
                    "The PostgreSQL ledger " + location + " stayed busy" + " past the wait bound (" + firstLine(e)
                            + "); try again later.",
                    e);
        }
        if (state.equals("42501") && firstLine(e).contains("permission denied for table actors")) {
            // a worker login ensuring an actor the ledger does not have yet (decision 0116)
            return new StorageException(
                    Problem.READ_ONLY,
                    null,
                    "This login may not add actors to the PostgreSQL ledger " + location + ": an operator adds the"
                            + " actor first (sovereign actor add NAME), or the ledger's owner lets worker logins add"
                            + " actors (sovereign actor workers-may-add on).",
                    e);
        }
        if (state.equals("42501")) {
            return new StorageException(
                    Problem.READ_ONLY,
                    null,
                    "The PostgreSQL role may not " + doing + " the ledger " + location + " (" + firstLine(e) + ").",
                    e);
        }
        return new StorageException(
                Problem.IO,
                null,
                "Could not " + doing + " the PostgreSQL ledger " + location + ": " + firstLine(e) + ".",
                e);
    }

    static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        String line = (nl >= 0 ? m.substring(0, nl) : m).trim();
        return line.startsWith("ERROR: ") ? line.substring("ERROR: ".length()) : line;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                dropConnection();
            }
        } finally {
            lock.unlock();
        }
    }
}
