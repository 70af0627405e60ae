package dev.sovereign.console.actions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 item 9: the welcome page said the console writes only when an operator acts, but after one action the
 * console's process heartbeat once a second for as long as the file stayed attached. Now the process an action
 * registers stops when the action is done (as a CLI call's does); only the console's own auto-ticking supervisor,
 * while it is on, keeps one process beating. Real engine, real file; the desk's background work runs on the calling
 * thread, so every assertion follows a finished action.
 */
class ConsoleWritesOnlyWhileItActsTest {
    @TempDir
    Path dir;

    /** The console processes of the file: whether each is still running (no stop time). */
    private static List<Boolean> consoleProcessesRunning(Path file) throws SQLException {
        List<Boolean> running = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT stopped_at IS NULL FROM processes WHERE kind = 'console'"
                        + " ORDER BY started_at, identity")) {
            while (rs.next()) {
                running.add(rs.getBoolean(1));
            }
        }
        return running;
    }

    @Test
    void anActionsProcessStopsWhenTheActionIsDoneAndOnlyTheSupervisorKeepsOneRunning() throws Exception {
        Path file = dir.resolve("ledger.db");
        try (Engine e =
                Engine.open(EngineConfig.forDatabase(file).heartbeat(false).build())) {
            e.actors().add("operator");
        }
        OperatorDesk desk = new OperatorDesk(new CurrentThreadUiExecutor(), Ledgers::openOperatorActions);
        desk.attach(LedgerLocation.file(file));
        ActionStatus status = new ActionStatus();

        desk.tickNow(status, Long::toString, t -> {});
        assertThat(status.tone()).as(status.messageProperty().get()).isEqualTo(ActionStatus.Tone.DONE);
        assertThat(consoleProcessesRunning(file))
                .as("the tick's process, stopped once it was done")
                .containsExactly(false);

        desk.tickNow(status, Long::toString, t -> {});
        assertThat(consoleProcessesRunning(file)).containsExactly(false, false);

        desk.startSupervisor(Duration.ofSeconds(1), status);
        assertThat(status.tone()).isEqualTo(ActionStatus.Tone.DONE);
        assertThat(consoleProcessesRunning(file))
                .as("the supervisor's process runs while it is on")
                .containsExactly(false, false, true);
        desk.tickNow(status, Long::toString, t -> {}); // an action while it runs uses that same process
        assertThat(consoleProcessesRunning(file)).containsExactly(false, false, true);

        desk.stopSupervisor(status);
        assertThat(status.tone()).isEqualTo(ActionStatus.Tone.DONE);
        assertThat(consoleProcessesRunning(file))
                .as("stopped with the supervisor")
                .containsExactly(false, false, false);
        desk.close();
    }
}
