package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.StorageException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 26, "the file's history" (decision 0605): when an engine finds the ledger put back by hand, the console's
 * status bar says that it went backwards and what to run, until an operator's fence bump starts a new epoch.
 */
class LedgerHistoryAlarmTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void theStatusBarSaysTheLedgerWentBackwardsUntilAFenceBump() throws Exception {
        Engine one = fx.engine("worker one");
        one.actors().add("a");
        one.actors().add("b");
        one.leases().acquire("a", Duration.ofMinutes(5));
        Path copy = fx.dir().resolve("raw.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + fx.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + copy);
        }
        Engine two = fx.engine("worker two");
        two.leases().acquire("b", Duration.ofMinutes(5));
        ShellViewModel vm = fx.attachedShell();
        assertThat(vm.statusLine().ledgerAlarmShortProperty().get()).isEmpty();

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + fx.file());
                Statement s = c.createStatement()) {
            s.executeUpdate("restore from " + copy); // put back without 'sovereign restore'
        }
        assertThatThrownBy(two::heartbeatNow).isInstanceOf(StorageException.class); // the engine that saw token 2
        vm.pollNow();

        assertThat(vm.statusLine().ledgerAlarmShortProperty().get())
                .isEqualTo("Ledger went backwards: run 'sovereign fence bump'");
        assertThat(vm.statusLine().ledgerAlarmProperty().get())
                .contains("process " + two.processIdentity() + " had seen token 2")
                .contains("issues no token until an operator runs 'sovereign fence bump'");

        one.bumpFence(-1);
        vm.pollNow();
        assertThat(vm.statusLine().ledgerAlarmShortProperty().get()).isEmpty();
        assertThat(vm.statusLine().ledgerAlarmProperty().get()).isEmpty();
    }
}
