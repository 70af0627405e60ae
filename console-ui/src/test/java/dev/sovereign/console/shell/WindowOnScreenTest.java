package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.ConsoleApp;
import dev.sovereign.console.testing.ConsoleFixture;
import java.util.UUID;
import java.util.prefs.Preferences;
import javafx.application.Application;
import javafx.geometry.Rectangle2D;
import javafx.stage.Screen;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 2, with the real application class on the (headless) screen: the window opens inside the screen's
 * visual bounds, where it last was if that still fits, never where a larger screen had it; closing it remembers it.
 */
class WindowOnScreenTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private final String prefsNode = "dev/sovereign/console-test/" + UUID.randomUUID();
    private Application app;

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            FxToolkit.cleanupApplication(app);
        }
        // the primary stage outlives this class: give the next test the window the app opens on this screen
        Stage stage = FxToolkit.registerPrimaryStage();
        WaitForAsyncUtils.asyncFx(() -> {
                    stage.setWidth(1320);
                    stage.setHeight(820);
                    stage.centerOnScreen();
                })
                .get();
        System.clearProperty(ConsoleApp.PREFERENCES_PROPERTY);
        Preferences.userRoot().node(prefsNode).removeNode();
    }

    @Test
    void aRememberedPlaceThatFitsIsWhereTheWindowOpensAndClosingRemembersIt() throws Exception {
        ConsoleSettings settings = new ConsoleSettings(Preferences.userRoot().node(prefsNode));
        settings.setWindow(new WindowPlacement(100, 80, 1100, 640, false));
        Stage stage = start();

        assertThat(bounds(stage)).isEqualTo(new Rectangle2D(100, 80, 1100, 640));
        assertThat(visual().contains(bounds(stage))).isTrue();

        WaitForAsyncUtils.asyncFx(() -> {
                    stage.setX(120);
                    stage.setWidth(1000);
                })
                .get();
        FxToolkit.cleanupApplication(app);
        app = null;
        assertThat(settings.window()).contains(new WindowPlacement(120, 80, 1000, 640, false));
    }

    @Test
    void aPlaceRememberedOnALargerScreenIsNotUsed() throws Exception {
        Rectangle2D visual = visual();
        new ConsoleSettings(Preferences.userRoot().node(prefsNode))
                .setWindow(new WindowPlacement(visual.getMaxX() - 200, visual.getMaxY() - 100, 1320, 820, false));
        Stage stage = start();

        assertThat(visual.contains(bounds(stage)))
                .as("%s inside %s", bounds(stage), visual)
                .isTrue();
        assertThat(bounds(stage).getWidth()).isEqualTo(Math.min(1320, visual.getWidth()));
        assertThat(bounds(stage).getHeight()).isEqualTo(Math.min(820, visual.getHeight()));
    }

    private Stage start() throws Exception {
        System.setProperty(ConsoleApp.PREFERENCES_PROPERTY, prefsNode);
        Stage stage = FxToolkit.registerPrimaryStage();
        app = FxToolkit.setupApplication(ConsoleApp.class, "--no-demo");
        WaitForAsyncUtils.waitForFxEvents();
        return stage;
    }

    private static Rectangle2D visual() throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> Screen.getPrimary().getVisualBounds())
                .get();
    }

    private static Rectangle2D bounds(Stage stage) throws Exception {
        return WaitForAsyncUtils.asyncFx(
                        () -> new Rectangle2D(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight()))
                .get();
    }
}
