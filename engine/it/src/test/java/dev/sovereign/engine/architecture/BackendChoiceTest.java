package dev.sovereign.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.internal.sqlite.SqliteBackend;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The core finds its backend by what the user named, through ServiceLoader, and says so when none serves it. */
class BackendChoiceTest {
    private static final String URL = "jdbc:mysql://db.example:5432/ledger?user=op&password=hunter2";

    @Test
    void aFilePathIsServedByTheSqliteBackendFoundOnTheClassPath() {
        assertThat(Backends.all()).hasAtLeastOneElementOfType(SqliteBackend.class);
        assertThat(Backends.forDatabase(Path.of("/tmp/ledger.db"))).isInstanceOf(SqliteBackend.class);
        assertThat(Backends.forDatabase(LedgerLocation.parse("relative/ledger.db")))
                .isInstanceOf(SqliteBackend.class);
    }

    @Test
    void aDatabaseNoBackendServesIsOneSentenceNamingTheBackendsThereAreAndNoSecret() {
        assertThatThrownBy(() -> Backends.forDatabase(LedgerLocation.parse(URL)))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage())
                                .startsWith("No storage backend can open jdbc:mysql://db.example:5432/ledger?user=op"
                                        + "&password=***: the backends on the class path are [")
                                .contains("sqlite")
                                .contains("postgres")
                                .doesNotContain("hunter2"));
    }

    @Test
    void anEngineOpenedOnAUrlChoosesByTheUrlNotByAFileOfThatName() {
        // A URL typed where a file would do must never become a SQLite file named "jdbc:postgresql:…".
        assertThatThrownBy(() -> Engine.open(
                        EngineConfig.forDatabase(URL).heartbeat(false).build()))
                .isInstanceOfSatisfying(
                        StorageException.class,
                        e -> assertThat(e.getMessage())
                                .startsWith("No storage backend can open jdbc:mysql://db.example:5432/ledger")
                                .doesNotContain("hunter2"));
    }
}
