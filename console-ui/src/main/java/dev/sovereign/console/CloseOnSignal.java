package dev.sovereign.console;

import javafx.application.Platform;
import sun.misc.Signal;

/**
 * SIGTERM, SIGINT and SIGHUP close the console as Ctrl+Q does, instead of ending the JVM under it.
 *
 * <p>Left to the JVM's default, such a signal runs the shutdown hooks while the JavaFX thread is still
 * handling events; JavaFX's own hook disposes the graphics pipeline, and the next mouse or pulse event
 * dies with a {@code NullPointerException} from {@code GraphicsPipeline.getPipeline()} (seen in CI, when
 * the CLI passed its own SIGTERM on to the console). Here a signal asks the JavaFX thread to exit:
 * {@link ConsoleApp#stop()} runs (the demo's and the lab's processes stop), {@code launch} returns, and
 * the launcher exits 0 — the console was closed, as asked, and says so in one line on stderr. A signal that comes before the toolkit runs
 * is remembered and honoured as soon as the window exists. A second signal (Ctrl-C twice), or a JavaFX
 * thread that has not finished within {@link #GRACE_MS}, ends the JVM the default way (128 + the signal's
 * number; the shutdown hooks still stop the demo's processes). The grace is shorter than the 15 s that
 * {@code sovereign console} waits for its console after passing a signal on.
 */
final class CloseOnSignal {
    static final long GRACE_MS = 10_000;

    private static final Object LOCK = new Object();
    private static boolean started;
    private static boolean requested;

    private CloseOnSignal() {}

    /** Installs the handlers; before {@code Application.launch}. */
    static void install() {
        for (String name : new String[] {"TERM", "INT", "HUP"}) {
            try {
                Signal.handle(new Signal(name), CloseOnSignal::received);
            } catch (IllegalArgumentException unavailable) {
                // this JVM uses the signal itself (e.g. -Xrs): keep its default
            }
        }
    }

    /** Called by {@link ConsoleApp#start} on the JavaFX thread once the window is shown. */
    static void toolkitStarted() {
        boolean exitNow;
        synchronized (LOCK) {
            started = true;
            exitNow = requested;
        }
        if (exitNow) {
            Platform.exit();
        }
    }

    private static void received(Signal signal) {
        boolean again;
        boolean running;
        synchronized (LOCK) {
            again = requested;
            requested = true;
            running = started;
        }
        if (again) {
            System.exit(128 + signal.getNumber()); // a second signal while closing: stop waiting
        }
        // One line, so a console that vanished says why (a terminal closed, a job ended, a kill).
        System.err.println("sovereign console: closing on SIG" + signal.getName() + ".");
        if (running) {
            Platform.runLater(Platform::exit);
        }
        Thread watchdog = new Thread(
                () -> {
                    try {
                        Thread.sleep(GRACE_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    System.exit(128 + signal.getNumber());
                },
                "close-on-signal-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
