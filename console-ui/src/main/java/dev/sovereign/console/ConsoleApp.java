package dev.sovereign.console;

import dev.sovereign.console.fx.FxTicker;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.LaunchArguments;
import dev.sovereign.console.shell.LedgerOpener;
import dev.sovereign.console.shell.MainWindow;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.shell.WindowPlacement;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.prefs.Preferences;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.beans.InvalidationListener;
import javafx.event.EventHandler;
import javafx.scene.Scene;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;

/**
 * The desktop console: attaches to the database named on the command line, or opens the demo (with
 * {@code --no-demo}: the welcome page). The system property {@value #PREFERENCES_PROPERTY} names
 * another preferences node (tests use a throw-away one so they never touch the user's recent files or
 * theme); {@value dev.sovereign.console.shell.DemoSession#FOLDER_PROPERTY} another folder for demo databases.
 *
 * <p>Closing the window, Ctrl+Q, or the JVM's end (a shutdown hook in the demo) stops the demo's
 * processes; {@link #stop()} waits for them.
 */
public final class ConsoleApp extends Application {
    public static final String PREFERENCES_PROPERTY = "sovereign.console.preferences";

    private ShellViewModel vm;
    private FxTicker ticker;
    private Runnable rememberWindow;

    @Override
    public void start(Stage stage) {
        Clock clock = Clock.systemUTC();
        String node = System.getProperty(PREFERENCES_PROPERTY);
        ConsoleSettings settings = node == null
                ? ConsoleSettings.forUser()
                : new ConsoleSettings(Preferences.userRoot().node(node));
        vm = new ShellViewModel(
                settings,
                new FxUiExecutor(),
                clock,
                ZoneId.systemDefault(),
                new LedgerOpener() {
                    @Override
                    public AdminReader open(Path database) {
                        return open(database, ZoneId.systemDefault());
                    }

                    @Override
                    public AdminReader open(Path database, ZoneId zone) {
                        return Ledgers.openReader(database, clock, zone); // its sentences in the zone shown
                    }

                    @Override
                    public AdminReader open(LedgerLocation location, ZoneId zone) {
                        return location.isFile()
                                ? open(location.file().orElseThrow(), zone)
                                : Ledgers.openReader(location, clock, zone);
                    }
                },
                LedgerPoller.DEFAULT_INTERVAL);
        MainWindow window = new MainWindow(vm, Platform::exit, getHostServices()::showDocument);
        Scene scene = new Scene(window.create());
        window.install(scene);
        ticker = new FxTicker(clock, vm::tick, vm::wantsFineTicks);
        vm.onFineTicksMayChange(ticker::recheck);
        ticker.start();
        stage.setTitle("Sovereign console");
        vm.attachedLocationProperty()
                .addListener((obs, o, p) -> stage.setTitle(
                        title(p, vm.demoSession().runningProperty().get())));
        stage.setScene(scene);
        rememberWindow = place(stage, settings);
        stage.show();
        List<String> args = getParameters().getRaw();
        try {
            LaunchArguments.location(args, System.getenv("SOVEREIGN_DB")).ifPresent(vm::attach);
        } catch (IllegalArgumentException e) {
            vm.banners().showProblem("Cannot open the database", e.getMessage());
        }
        if (LaunchArguments.wantsDemo(args, System.getenv("SOVEREIGN_DB"))) {
            vm.startDemo();
        }
        CloseOnSignal.toolkitStarted();
    }

    /**
     * Sizes and places the window to the primary screen's visual bounds — where it last was if that still fits
     * ({@link WindowPlacement}), and remembers it when the window closes; returns what to run at the app's stop
     * (Ctrl+Q ends the toolkit without hiding the window): remember it, and let go of the stage.
     */
    static Runnable place(Stage stage, ConsoleSettings settings) {
        WindowPlacement p = WindowPlacement.choose(Screen.getPrimary().getVisualBounds(), settings.window());
        stage.setX(p.x());
        stage.setY(p.y());
        stage.setWidth(p.width());
        stage.setHeight(p.height());
        stage.setMaximized(p.maximized());
        // the bounds a maximised window returns to: the last ones it had while not maximised
        WindowPlacement[] normal = {p};
        InvalidationListener track = o -> {
            if (!stage.isMaximized() && !stage.isIconified()) {
                normal[0] = new WindowPlacement(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight(), false);
            }
        };
        stage.xProperty().addListener(track);
        stage.yProperty().addListener(track);
        stage.widthProperty().addListener(track);
        stage.heightProperty().addListener(track);
        EventHandler<WindowEvent> onHidden = e -> remember(stage, settings, normal[0]);
        stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, onHidden);
        return () -> {
            // the app's end: remember where the window is, and let go of the stage (a test reuses it)
            remember(stage, settings, normal[0]);
            stage.removeEventHandler(WindowEvent.WINDOW_HIDDEN, onHidden);
            stage.xProperty().removeListener(track);
            stage.yProperty().removeListener(track);
            stage.widthProperty().removeListener(track);
            stage.heightProperty().removeListener(track);
        };
    }

    private static void remember(Stage stage, ConsoleSettings settings, WindowPlacement normal) {
        settings.setWindow(
                new WindowPlacement(normal.x(), normal.y(), normal.width(), normal.height(), stage.isMaximized()));
    }

    /** The window's title: a file's name, or a server's URL without its secrets. */
    public static String title(LedgerLocation attached, boolean demo) {
        if (attached == null) {
            return "Sovereign console";
        }
        String name = attached.file()
                .map(f -> f.getFileName().toString())
                .orElse(attached.withoutSecrets().toString());
        return name + (demo ? " (demo)" : "") + " \u2014 Sovereign console";
    }

    @Override
    public void stop() {
        if (rememberWindow != null) {
            rememberWindow.run();
            rememberWindow = null;
        }
        if (ticker != null) {
            ticker.stop();
        }
        if (vm != null) {
            vm.close();
        }
    }
}
