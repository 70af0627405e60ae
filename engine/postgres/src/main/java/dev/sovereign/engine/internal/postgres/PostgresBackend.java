package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.LedgerRows;
import dev.sovereign.engine.spi.StorageBackend;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Optional;

/**
 * The backend for more than one machine (contract §15): a PostgreSQL database named by its
 * {@code jdbc:postgresql:} URL, kept verbatim for the driver. Registered for {@link java.util.ServiceLoader}
 * in {@code META-INF/services}. Stateless and thread-safe.
 */
public final class PostgresBackend implements StorageBackend {
    @Override
    public String name() {
        return "postgres";
    }

    /** The driver the backend's connections come from; without its jar the core refuses in one sentence. */
    @Override
    public Optional<Driver> driver() {
        return Optional.of(new Driver("org.postgresql.Driver", "org.postgresql:postgresql"));
    }

    @Override
    public int schemaVersion() {
        return PgMigrator.LATEST;
    }

    @Override
    public boolean accepts(String database) {
        return database != null && database.startsWith("jdbc:postgresql:");
    }

    @Override
    public Ledger open(EngineConfig config, Grants grants, boolean createIfMissing) {
        return PgLedger.open(config, grants, createIfMissing);
    }

    /** The operators' read-only view (decision 0905): its own read-only session, never migrating. */
    @Override
    public AdminReader openReader(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone) {
        return PgAdminReader.open(location, dataDirectory, clock, zone);
    }

    /** Creates or checks the schema before the source is locked (decision 0927): {@link PgLedgerCopy#prepare}. */
    @Override
    public void prepareCopyTarget(LedgerLocation target) {
        PgLedgerCopy.prepare(target, lockTimeoutMillis(target));
    }

    /** Copies into an empty ledger in one transaction (decision 0907): {@link PgLedgerCopy}. */
    @Override
    public LedgerCopyReport copyInto(LedgerLocation target, LedgerRows source) {
        return PgLedgerCopy.copy(target, source, lockTimeoutMillis(target));
    }

    private static int lockTimeoutMillis(LedgerLocation target) {
        return (int) EngineConfig.forDatabase(target).build().busyBound().toMillis();
    }
}
