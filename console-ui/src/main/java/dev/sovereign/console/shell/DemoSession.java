package dev.sovereign.console.shell;

import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.lab.Demo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The console's live demo: a fresh database with real worker processes, a feeder and a little chaos
 * ({@link Demo}), attached like any other file, with this console's supervisor ticking every
 * {@link #SUPERVISOR_INTERVAL}. {@link ShellViewModel} delegates the demo's lifecycle here.
 *
 * <p>States: <b>none</b> → {@link #start()} → <b>starting</b> (the worker JVMs launch in the
 * background; whatever was attached has been let go) → <b>running</b> (its database attached, the
 * narration and the banner showing) → {@link #stop()} → <b>none</b>. A start that fails goes back to
 * none with a danger banner. A demo that finishes starting after it was stopped (another file was
 * attached meanwhile) is closed at once, unseen: each start has a generation, and only the current
 * one may show. Stopping closes the demo and every process it started in the background;
 * {@link #release()} hands the running demo to the console's close, which waits for it.
 *
 * <p>UI-thread confined; the demo's narration arrives from its own thread and is handed to the UI thread.
 */
public final class DemoSession {
    /** Starts a demo on a fresh database; the app's makes one in the user's data folder. */
    @FunctionalInterface
    public interface Starter {
        Demo start() throws IOException;
    }

    /** The system property naming another folder for demo databases (tests use a temporary one). */
    public static final String FOLDER_PROPERTY = "sovereign.demo.dir";
    /** How often this console's supervisor ticks in the demo. */
    public static final Duration SUPERVISOR_INTERVAL = Duration.ofSeconds(1);

    private final UiExecutor ui;
    private final Starter starter;
    private final Runnable letGo;
    private final Consumer<Path> attachDemo;
    private final Consumer<Banner> showBanner;

    private final ReadOnlyBooleanWrapper starting = new ReadOnlyBooleanWrapper(this, "demoStarting");
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "demoRunning");
    private final ReadOnlyStringWrapper narration = new ReadOnlyStringWrapper(this, "demoNarration", "");
    private Demo demo;
    private long generation;

    /**
     * @param letGo      lets go of whatever database is attached (before a demo starts)
     * @param attachDemo attaches a started demo's database as a demo (not a recent file; its supervisor ticks)
     * @param showBanner shows the banner that says the demo runs, or why it could not start
     */
    DemoSession(
            UiExecutor ui, Starter starter, Runnable letGo, Consumer<Path> attachDemo, Consumer<Banner> showBanner) {
        this.ui = ui;
        this.starter = starter;
        this.letGo = letGo;
        this.attachDemo = attachDemo;
        this.showBanner = showBanner;
    }

    /** Where demo databases go: {@value #FOLDER_PROPERTY} if set, else the user's data folder. */
    public static Path folder() {
        String dir = System.getProperty(FOLDER_PROPERTY);
        return dir != null && !dir.isBlank() ? Path.of(dir) : Demo.defaultFolder();
    }

    /** The real demo, the app's: a fresh database in {@link #folder()}, on {@code clock}. */
    public static Starter realDemo(Clock clock) {
        return () -> Demo.start(Demo.Settings.defaults(Demo.newDatabase(folder(), clock)));
    }

    /**
     * Starts a demo in the background: a fresh database, real worker processes, a feeder, a little
     * chaos; attaches it. Whatever was attached (a demo too) is let go first. Does nothing while one starts.
     */
    void start() {
        if (starting.get()) {
            return;
        }
        stop();
        letGo.run();
        long mine = ++generation;
        starting.set(true);
        ui.background(
                starter::start,
                d -> {
                    if (mine != generation) {
                        closeInBackground(d); // abandoned meanwhile
                        return;
                    }
                    starting.set(false);
                    demo = d;
                    running.set(true);
                    d.addNarrator(sentence -> ui.onUi(() -> {
                        if (demo == d) {
                            narration.set(sentence);
                        }
                    }));
                    narration.set("Started " + d.workers().size() + " worker processes for "
                            + String.join(", ", Demo.ACTORS) + " with a "
                            + OperatorDesk.seconds(d.settings().ttl())
                            + " lease TTL; something happens every few seconds.");
                    showBanner.accept(Banner.info(
                            Banner.DEMO_RUNNING,
                            "A fresh database with " + d.workers().size()
                                    + " real worker processes, a feeder and this console's supervisor: " + d.database()
                                    + ". Leases renew, expire and change hands within seconds; now and then a worker is paused or"
                                    + " killed. Everything stops when you close the console."));
                    attachDemo.accept(d.database());
                },
                problem -> {
                    if (mine != generation) {
                        return;
                    }
                    starting.set(false);
                    showBanner.accept(new Banner(
                            Banner.Severity.DANGER, "Could not start the demo", Banner.oneLine(problem), false));
                });
    }

    /** Ends the demo, if one runs or starts: its worker processes are stopped in the background. */
    void stop() {
        generation++;
        starting.set(false);
        Demo d = demo;
        demo = null;
        running.set(false);
        narration.set("");
        if (d != null) {
            closeInBackground(d);
        }
    }

    /**
     * Forgets the demo without stopping it and returns it (or null), for the console's close, which
     * closes it on its own thread once the database is let go. A demo still starting is abandoned.
     */
    Demo release() {
        generation++;
        Demo d = demo;
        demo = null;
        running.set(false);
        return d;
    }

    /**
     * Stops a demo's processes off the JavaFX thread — unless the console is closing and its background
     * threads are gone (a demo that finished starting after the window closed, e.g. on a signal during the
     * start): then here, so its worker processes never outlive the console.
     */
    private void closeInBackground(Demo d) {
        try {
            ui.background(
                    () -> {
                        d.close();
                        return null;
                    },
                    x -> {},
                    x -> {});
        } catch (RejectedExecutionException closing) {
            d.close();
        }
    }

    /** Whether a demo is being started (its worker processes launching). */
    public ReadOnlyBooleanProperty startingProperty() {
        return starting.getReadOnlyProperty();
    }

    /** Whether the attached database is a running demo. */
    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    /** What the demo did last, in one sentence. */
    public ReadOnlyStringProperty narrationProperty() {
        return narration.getReadOnlyProperty();
    }

    /** The running demo, or null. */
    public Demo demo() {
        return demo;
    }
}
