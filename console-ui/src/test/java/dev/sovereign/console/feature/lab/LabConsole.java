package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.shell.MainWindow;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.engine.Ledgers;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;
import java.util.stream.Stream;
import javafx.collections.ListChangeListener;
import javafx.scene.Scene;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The whole console as the app builds it, on real time (the lab's workers are real processes on the
 * real clock): the real FX executor, the real poller thread, throw-away preferences and a throw-away
 * sandbox directory. Remembers every worker pid the Lab page ever showed, so a test can prove they
 * are all gone after the console closed.
 */
final class LabConsole {
    final Path dir;
    final Preferences prefs;
    final List<Long> pids = new ArrayList<>();
    ShellViewModel vm;
    Scene scene;
    private Stage stage;

    LabConsole() throws IOException {
        dir = Files.createTempDirectory("sovereign-lab-console-");
        prefs = Preferences.userRoot().node("dev/sovereign/console-test/" + UUID.randomUUID());
    }

    /** Builds the main window on {@code stage}; call from a TestFX {@code @Start}. */
    void show(Stage stage) {
        show(stage, 820);
    }

    /** ... {@code height} pixels tall (the docs' pictures are taller than the default window). */
    void show(Stage stage, double height) {
        vm = new ShellViewModel(
                new ConsoleSettings(prefs),
                new FxUiExecutor(),
                Clock.systemUTC(),
                ZoneId.of("UTC"),
                Ledgers::openReader,
                Duration.ofMillis(100));
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        vm.lab().useSandboxDirectory(dir.resolve("sandboxes"));
        vm.lab().workers().addListener((ListChangeListener<LabWorkerItem>) c -> {
            while (c.next()) {
                c.getAddedSubList().forEach(w -> pids.add(w.pid()));
            }
        });
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, height);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        this.stage = stage;
    }

    /** File → Open lab sandbox, as a trainer would (the menu item's own action). */
    void openSandboxFromTheMenu(FxRobot robot) {
        MenuBar bar = robot.lookup("#menu-bar").queryAs(MenuBar.class);
        MenuItem item = bar.getMenus().stream()
                .flatMap(m -> m.getItems().stream())
                .filter(i -> "menu-lab-sandbox".equals(i.getId()))
                .findFirst()
                .orElseThrow();
        robot.interact(item::fire);
        await(() -> vm.attachment().attachedProperty().get() != null
                && vm.ledger().snapshot() != null
                && robot.lookup("#lab-page").tryQuery().isPresent());
    }

    LabWorkerItem worker(String label) {
        return vm.lab().workers().stream()
                .filter(w -> w.label().equals(label))
                .findFirst()
                .orElseThrow();
    }

    /** Waits (with a deadline) for a condition read on the FX thread. */
    void await(BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor(
                    60,
                    TimeUnit.SECONDS,
                    () -> WaitForAsyncUtils.asyncFx(condition::getAsBoolean).get());
        } catch (TimeoutException e) {
            throw new AssertionError("condition not reached in 60 s; the page says: " + describe(), e);
        }
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** What the Lab page shows, for a failure message. */
    String describe() {
        try {
            return WaitForAsyncUtils.asyncFx(() -> {
                        StringBuilder b = new StringBuilder(
                                "message '" + vm.lab().messageProperty().get() + "'; summary '"
                                        + vm.lab().summaryProperty().get() + "'");
                        for (LabWorkerItem w : vm.lab().workers()) {
                            b.append("; ")
                                    .append(w.label())
                                    .append(" ")
                                    .append(w.state())
                                    .append(" [")
                                    .append(w.ledgerProperty().get())
                                    .append("] ")
                                    .append(String.join(" | ", w.process().lines()));
                        }
                        return b.toString();
                    })
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "(could not read the page: " + e + ")";
        }
    }

    /** Closes the console as the app does when its window closes (on the FX thread). */
    void close(FxRobot robot) {
        if (vm != null) {
            robot.interact(vm::close);
        }
    }

    /**
     * The end of a test that resized the window: the stage back to the default size (TestFX hands the same stage to
     * the next test), the console closed, its files and settings removed.
     */
    void tearDown(FxRobot robot) throws BackingStoreException, IOException {
        if (stage != null) {
            robot.interact(() -> {
                stage.setWidth(1320);
                stage.setHeight(820);
            });
        }
        close(robot);
        cleanUp();
    }

    void cleanUp() throws BackingStoreException, IOException {
        prefs.removeNode();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Renders the scene to {@code target/screenshots/NAME.png}. */
    Path screenshot(FxRobot robot, String name) throws IOException {
        Path out = Path.of("target", "screenshots");
        Files.createDirectories(out);
        WaitForAsyncUtils.waitForFxEvents();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        int w = (int) shot[0].getWidth();
        int h = (int) shot[0].getHeight();
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        PixelReader r = shot[0].getPixelReader();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                img.setRGB(x, y, r.getArgb(x, y));
            }
        }
        Path png = out.resolve(name + ".png");
        ImageIO.write(img, "png", png.toFile());
        return png;
    }
}
