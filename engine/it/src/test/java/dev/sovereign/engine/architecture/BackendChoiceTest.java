package dev.sovereign.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.StorageException;
import dev.sovereign.engine.internal.sqlite.SqliteBackend;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The core finds its backend by what the user named, through ServiceLoader, and says so when none serves it. */
class BackendChoiceTest {
    @Test
    void aFilePathIsServedByTheSqliteBackendFoundOnTheClassPath() {
        assertThat(Backends.all()).hasAtLeastOneElementOfType(SqliteBackend.class);
        assertThat(Backends.forDatabase(Path.of("/tmp/ledger.db"))).isInstanceOf(SqliteBackend.class);
    }

    @Test
    void aDatabaseNoBackendServesIsOneSentenceNamingTheBackendsThereAre() {
        assertThatThrownBy(() -> Backends.forDatabase(Path.of("jdbc:postgresql:ledger")))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("No storage backend can open jdbc:postgresql:ledger: the backends on the"
                                + " class path are [sqlite]."));
    }
}
