package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.process.Processes;
import dev.sovereign.engine.rules.ProcessRules;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The process registry on the {@code processes} table, for both backends. Thread-safe. */
public final class JdbcProcesses implements Processes {
    public static final String COLUMNS =
            "identity, pid, host, kind, label, started_at, heartbeat_at, heartbeat_interval_ms, stopped_at";

    private final Transactions db;

    public JdbcProcesses(Transactions db) {
        this.db = db;
    }

    public static ProcessInfo map(ResultSet rs) throws SQLException {
        return new ProcessInfo(
                rs.getString("identity"),
                JdbcTx.nullableLong(rs, "pid"),
                rs.getString("host"),
                rs.getString("kind"),
                rs.getString("label"),
                rs.getLong("started_at"),
                rs.getLong("heartbeat_at"),
                rs.getLong("heartbeat_interval_ms"),
                JdbcTx.nullableLong(rs, "stopped_at"));
    }

    /** A fresh identity: {@code proc_} and a random UUID. Never derived from the PID. */
    public static String newIdentity() {
        return "proc_" + UUID.randomUUID();
    }

    /**
     * Registers this engine's process (or, with {@code actAs}, makes sure that identity exists,
     * registering it if needed) and returns its identity. Acting as an identity that was already
     * registered is a claim: the database journals who made it ({@link IdentityClaim}).
     */
    public String register(EngineConfig config) {
        String identity = config.actAs().orElseGet(JdbcProcesses::newIdentity);
        long pid = ProcessHandle.current().pid();
        String host = hostName();
        String label = config.processLabel() != null ? config.processLabel() : config.processKind() + " " + pid;
        if (config.registerLazily()) {
            // Nothing is written now: the row goes in with this engine's first write that commits (0304).
            Optional<ProcessInfo> before = config.actAs().isPresent() ? find(identity) : Optional.empty();
            db.registerWithFirstWrite(tx -> tx.update(
                    "INSERT INTO processes (identity, pid, host, kind, label,"
                            + " started_at, heartbeat_at, heartbeat_interval_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                            + " ON CONFLICT (identity) DO NOTHING",
                    identity,
                    pid,
                    host,
                    config.processKind(),
                    label,
                    tx.now(),
                    tx.now(),
                    config.heartbeatInterval().toMillis()));
            before.ifPresent(p -> db.setClaim(IdentityClaim.of(p, label)));
            return identity;
        }
        Optional<ProcessInfo> registered = db.write(tx -> {
            Optional<ProcessInfo> before = config.actAs().isPresent()
                    ? tx.one("SELECT " + COLUMNS + " FROM processes WHERE identity = ?", JdbcProcesses::map, identity)
                    : Optional.empty();
            tx.update(
                    "INSERT INTO processes (identity, pid, host, kind, label, started_at, heartbeat_at,"
                            + " heartbeat_interval_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                            + " ON CONFLICT (identity) DO NOTHING",
                    identity,
                    pid,
                    host,
                    config.processKind(),
                    label,
                    tx.now(),
                    tx.now(),
                    config.heartbeatInterval().toMillis());
            return before;
        });
        // Acting as an identity another process registered (--process): journal who does (decision 0802).
        registered.ifPresent(p -> db.setClaim(IdentityClaim.of(p, label)));
        return identity;
    }

    public void markStopped(String identity) {
        if (!db.isRegistered()) {
            return; // a lazily registering engine that never wrote: there is no row to stop (decision 0304)
        }
        db.write(tx -> tx.update(
                "UPDATE processes SET stopped_at = ? WHERE identity = ? AND stopped_at IS NULL", tx.now(), identity));
    }

    /**
     * An operator's stop of {@code identity} (see {@code Ledger.stopProcess}): refused by the rule book when the
     * row is missing or already stopped; else {@code stopped_at} is set and a {@code PROCESS_STOPPED} event
     * journalled, in one transaction. Releases nothing.
     */
    public ProcessInfo stop(String identity) {
        return db.write(tx -> {
            Optional<ProcessInfo> row = tx.one(
                    "SELECT " + COLUMNS + " FROM processes WHERE identity = ?"
                            + tx.dialect().forUpdate(),
                    JdbcProcesses::map,
                    identity);
            Optional<Refusal> no = ProcessRules.whyNotStoppable(identity, row);
            if (no.isPresent()) {
                throw no.get();
            }
            if (tx.update(
                            "UPDATE processes SET stopped_at = ? WHERE identity = ? AND stopped_at IS NULL",
                            tx.now(),
                            identity)
                    != 1) {
                throw new IllegalStateException("process " + identity + " changed under its stop");
            }
            tx.journal(
                    EventKind.PROCESS_STOPPED,
                    "process",
                    identity,
                    null,
                    null,
                    ProcessRules.stoppedByOperator(row.get()));
            return row.get();
        });
    }

    @Override
    public Optional<ProcessInfo> find(String identity) {
        return db.read(
                tx -> tx.one("SELECT " + COLUMNS + " FROM processes WHERE identity = ?", JdbcProcesses::map, identity));
    }

    @Override
    public List<ProcessInfo> list() {
        return db.read(
                tx -> tx.query("SELECT " + COLUMNS + " FROM processes ORDER BY started_at DESC", JdbcProcesses::map));
    }

    /** The host name for display: {@link ProcessRef#thisHost()}, the one rule for it (the console compares with it). */
    public static String hostName() {
        return ProcessRef.thisHost();
    }

    public static int staleAfter() {
        return EngineConfig.STALE_AFTER_MISSED_BEATS;
    }
}
