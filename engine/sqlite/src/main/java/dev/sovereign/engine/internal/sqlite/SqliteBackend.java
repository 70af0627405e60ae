package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.Ledger;
import dev.sovereign.engine.spi.LedgerRows;
import dev.sovereign.engine.spi.StorageBackend;
import dev.sovereign.engine.spi.tools.LedgerBackups;
import dev.sovereign.engine.spi.tools.LedgerCopyReport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Optional;
import java.util.function.Function;

/**
 * The embedded default backend: one SQLite file, named by its path. Registered for
 * {@link java.util.ServiceLoader} in {@code META-INF/services}. Stateless and thread-safe.
 */
public final class SqliteBackend implements StorageBackend {
    @Override
    public String name() {
        return "sqlite";
    }

    /** The driver the backend's connections come from; without its jar the core refuses in one sentence. */
    @Override
    public Optional<Driver> driver() {
        return Optional.of(new Driver("org.sqlite.JDBC", "org.xerial:sqlite-jdbc"));
    }

    @Override
    public int schemaVersion() {
        return Migrator.LATEST;
    }

    /** Everything that is not a JDBC URL of another database is a file path. */
    @Override
    public boolean accepts(String database) {
        // a file path: a URL of any kind, in any case, is some server backend's, never a SQLite file
        return database != null && !LedgerLocation.looksLikeUrl(database);
    }

    @Override
    public Ledger open(EngineConfig config, Grants grants, boolean createIfMissing) {
        return SqliteLedger.open(config, grants, createIfMissing);
    }

    @Override
    public AdminReader openReader(LedgerLocation location, Path dataDirectory, Clock clock, ZoneId zone) {
        return SqliteAdminReader.open(location.file().orElseThrow(), dataDirectory, clock, zone);
    }

    @Override
    public LedgerBackups.Backup backup(LedgerLocation ledger, Path copy, Clock clock) {
        return SqliteBackups.backup(ledger.file().orElseThrow(), copy, clock);
    }

    @Override
    public LedgerBackups.Restore restore(Path backup, LedgerLocation target, long aboveEpoch, Clock clock) {
        return SqliteBackups.restore(backup, target.file().orElseThrow(), aboveEpoch, clock);
    }

    @Override
    public <T> T readAll(LedgerLocation location, Function<LedgerRows, T> body) {
        return SqliteLedgerRows.read(location.file().orElseThrow(), body);
    }

    @Override
    public LedgerCopyReport moveFrom(
            LedgerLocation location, LedgerLocation movedTo, Function<LedgerRows, LedgerCopyReport> copy) {
        return SqliteLedgerRows.move(location.file().orElseThrow(), movedTo, copy);
    }
}
