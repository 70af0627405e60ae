package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import atlantafx.base.controls.Message;
import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.AboutSovereign;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.SovereignVersion;
import dev.sovereign.engine.spi.Backends;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.application.Application;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.input.KeyCode;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The whole window, headless: welcome page, banners, shortcuts and theme switching. */
@ExtendWith(ApplicationExtension.class)
class ConsoleWindowTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;

    @Start
    void start(Stage stage) {
        fx.settings().setTheme(ConsoleTheme.LIGHT);
        fx.settings().addRecent(fx.file());
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {});
        Scene scene = new Scene(window.create(), 1200, 760);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }

    @Test
    void withNoDatabaseTheWelcomePageOffersOpenAndRecentFiles(FxRobot robot) {
        assertThat(robot.lookup("#welcome").tryQuery()).isPresent();
        assertThat(robot.lookup("#welcome-open").queryAs(Button.class).getText())
                .isEqualTo("Open database\u2026");
        assertThat(robot.lookup("#recent-0").queryAs(Button.class).getText())
                .isEqualTo(fx.file().toString());
        assertThat(robot.lookup("#status-database").queryAs(Label.class).getText())
                .isEqualTo("No database attached");
        assertThat(robot.lookup("#nav-leases").query().isDisabled()).isTrue();
    }

    /** The schema version this build writes to a SQLite file, asked from the backend, as the About box does. */
    private static int sqliteSchema() {
        return Backends.all().stream()
                .filter(b -> b.name().equals("sqlite"))
                .findFirst()
                .orElseThrow()
                .schemaVersion();
    }

    @Test
    void f1ShowsTheAboutBoxWithTheVersionTheCommitAndTheSchemaLikeTheCommandLine(FxRobot robot) {
        robot.press(KeyCode.F1).release(KeyCode.F1);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#about-box").tryQuery()).isPresent();
        assertThat(robot.lookup("#about-line-0").queryAs(Label.class).getText())
                .isEqualTo("sovereign " + SovereignVersion.current().version())
                .doesNotContain("unknown");
        assertThat(robot.lookup("#about-line-1").queryAs(Label.class).getText())
                .isEqualTo("commit " + SovereignVersion.current().commit());
        assertThat(robot.lookup("#about-line-2").queryAs(Label.class).getText())
                .isEqualTo("schema sqlite v" + sqliteSchema());
        // one schema line per backend on the class path, as 'sovereign --version' (the console reads servers too)
        assertThat(robot.lookup("#about-line-3").queryAs(Label.class).getText()).startsWith("schema postgres v");
        assertThat(AboutSovereign.current().lines()).hasSize(4);

        robot.clickOn("#about-close");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#about-box").tryQuery()).isEmpty();
    }

    @Test
    void aRecentFileAttachesAndTheStatusBarDescribesTheConnection(FxRobot robot) {
        Scenario.build(fx);
        robot.clickOn("#recent-0");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#leases-page").tryQuery()).isPresent();
        assertThat(robot.lookup("#status-database").queryAs(Label.class).getText())
                .isEqualTo(fx.file().toString());
        assertThat(robot.lookup("#status-schema").queryAs(Label.class).getText())
                .isEqualTo("schema v" + sqliteSchema());
        assertThat(robot.lookup("#status-change-marker").queryAs(Label.class).getText())
                .startsWith("change ");
        assertThat(robot.lookup("#status-health").queryAs(Label.class).getText())
                .isEqualTo("Connected");
        assertThat(robot.lookup("#status-refresh").queryAs(Label.class).getText())
                .startsWith("refreshed ");
        assertThat(robot.lookup("#nav-count-rejections").queryAs(Label.class).getText())
                .isEqualTo("3");
        assertThat(robot.lookup("#nav-count-runs").queryAs(Label.class).getText())
                .as("the worker-lost run and the failed one need action")
                .isEqualTo("2");
    }

    @Test
    void aDatabaseOpenedLaterJoinsTheRecentListsEvenAfterAGarbageCollection(FxRobot robot) {
        Path other = fx.dir().resolve("other.db");
        fx.engine("worker 7101");
        try (var e = Engine.open(other)) {
            e.actors().add("operator");
        }
        // Listeners hung on a short-lived list wrapper vanish when it is collected: collect first.
        System.gc();
        System.gc();

        robot.interact(() -> vm.attach(other));
        robot.interact(vm::detach);

        assertThat(robot.lookup("#recent-0").queryAs(Button.class).getText()).isEqualTo(other.toString());
        assertThat(robot.lookup("#recent-1").queryAs(Button.class).getText())
                .isEqualTo(fx.file().toString());
    }

    @Test
    void aForeignFileShowsABannerNotAStackTrace(FxRobot robot) throws Exception {
        Path foreign = fx.dir().resolve("photos.db");
        Files.write(foreign, new byte[4096]);
        Files.writeString(foreign, "GIF89a definitely not sqlite");

        robot.interact(() -> vm.attach(foreign));

        Node banner = robot.lookup("#banner").query();
        assertThat(banner.isVisible()).isTrue();
        assertThat(((Message) banner).getTitle()).isEqualTo("Not a Sovereign database");
        assertThat(((Message) banner).getDescription())
                .contains(foreign.toString())
                .doesNotContain("Exception");
        assertThat(robot.lookup("#welcome").tryQuery()).isPresent();
    }

    @Test
    void aSecondBannerShowsItsOwnTitleAndTextNotThePreviousOnes(FxRobot robot) throws Exception {
        Path missing = fx.dir().resolve("nowhere.db");
        Path foreign = fx.dir().resolve("photos.db");
        Files.writeString(foreign, "GIF89a definitely not sqlite" + "x".repeat(4096));

        robot.interact(() -> vm.attach(missing));
        assertThat(bannerTexts(robot)).contains("Database not found");

        robot.interact(() -> vm.attach(foreign));

        List<String> shown = bannerTexts(robot);
        assertThat(shown)
                .as("the visible headline is the second message's")
                .contains("Not a Sovereign database")
                .noneMatch(t -> t.contains("nowhere.db"))
                .noneMatch(t -> t.equals("Database not found"));
        assertThat(shown.stream().filter(t -> t.contains(foreign.toString()))).hasSize(1);
    }

    /** Every piece of text the banner shows, as rendered (labels and texts in its skin). */
    private static List<String> bannerTexts(FxRobot robot) {
        WaitForAsyncUtils.waitForFxEvents();
        List<String> out = new ArrayList<>();
        for (Node n : robot.lookup("#banner-holder").query().lookupAll("*")) {
            if (n instanceof Labeled l
                    && l.isVisible()
                    && l.getText() != null
                    && !l.getText().isBlank()) {
                out.add(l.getText());
            } else if (n instanceof Text t
                    && t.isVisible()
                    && t.getText() != null
                    && !t.getText().isBlank()
                    && !(t.getParent() instanceof Labeled)
                    && !isInsideLabeled(t)) {
                out.add(t.getText());
            }
        }
        return out;
    }

    private static boolean isInsideLabeled(Node n) {
        for (Node p = n.getParent(); p != null; p = p.getParent()) {
            if (p instanceof Labeled) {
                return true;
            }
        }
        return false;
    }

    @Test
    void ctrlDigitsSwitchPagesAndF5Refreshes(FxRobot robot) {
        Scenario.build(fx);
        robot.interact(() -> vm.attach(fx.file()));
        int snapshots = fx.reader.snapshots.get();

        robot.press(KeyCode.CONTROL, KeyCode.DIGIT2).release(KeyCode.DIGIT2, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.TIMELINE);
        assertThat(robot.lookup("#timeline-page").tryQuery()).isPresent();

        robot.press(KeyCode.CONTROL, KeyCode.DIGIT3).release(KeyCode.DIGIT3, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#rejections-page").tryQuery()).isPresent();

        robot.press(KeyCode.F5).release(KeyCode.F5);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(fx.reader.snapshots.get()).isEqualTo(snapshots + 1);
    }

    @Test
    void ctrlTSwitchesTheThemeAndRemembersIt(FxRobot robot) {
        assertThat(Application.getUserAgentStylesheet()).isEqualTo(new PrimerLight().getUserAgentStylesheet());

        robot.press(KeyCode.CONTROL, KeyCode.T).release(KeyCode.T, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(Application.getUserAgentStylesheet()).isEqualTo(new PrimerDark().getUserAgentStylesheet());
        assertThat(fx.settings().theme()).isEqualTo(ConsoleTheme.DARK);

        robot.press(KeyCode.CONTROL, KeyCode.T).release(KeyCode.T, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(Application.getUserAgentStylesheet()).isEqualTo(new PrimerLight().getUserAgentStylesheet());
    }
}
