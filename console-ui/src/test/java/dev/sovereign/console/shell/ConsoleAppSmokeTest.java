package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ConsoleApp;
import dev.sovereign.console.testing.ConsoleFixture;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;
import javafx.application.Application;
import javafx.scene.control.Label;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/** The real application class, started as the launcher would: command line, poller, ticker. */
class ConsoleAppSmokeTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private final String prefsNode = "dev/sovereign/console-test/" + UUID.randomUUID();
    private Application app;

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            FxToolkit.cleanupApplication(app);
        }
        System.clearProperty(ConsoleApp.PREFERENCES_PROPERTY);
        Preferences.userRoot().node(prefsNode).removeNode();
    }

    @Test
    void theAppAttachesTheDatabaseOnItsCommandLineAndKeepsTicking() throws Exception {
        fx.engine("worker 7101").actors().add("operator");
        System.setProperty(ConsoleApp.PREFERENCES_PROPERTY, prefsNode);
        FxToolkit.registerPrimaryStage();

        app = FxToolkit.setupApplication(ConsoleApp.class, "--db", fx.file().toString());

        FxRobot robot = new FxRobot();
        WaitForAsyncUtils.waitFor(
                10,
                TimeUnit.SECONDS,
                () -> "Connected"
                        .equals(robot.lookup("#status-health")
                                .queryAs(Label.class)
                                .getText()));
        assertThat(robot.lookup("#status-database").queryAs(Label.class).getText())
                .isEqualTo(fx.file().toString());
        assertThat(robot.lookup("#state-operator").queryAs(Label.class).getText())
                .isEqualTo("free");
        String refreshed = robot.lookup("#status-refresh").queryAs(Label.class).getText();
        // The ticker (an AnimationTimer on the FX thread) moves the "ago" text without any new read.
        WaitForAsyncUtils.waitFor(
                10,
                TimeUnit.SECONDS,
                () -> !refreshed.equals(
                        robot.lookup("#status-refresh").queryAs(Label.class).getText()));
        assertThat(new ConsoleSettings(Preferences.userRoot().node(prefsNode)).recentFiles())
                .containsExactly(fx.file());
    }
}
